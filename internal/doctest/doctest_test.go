package doctest_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/duet-cli/duet/internal/apisurface"
)

const module = "github.com/duet-cli/duet"

// root is the module's directory.
var root = filepath.Join("..", "..")

// block is a fenced Go block of a Markdown file.
type block struct {
	file string
	line int // of its first line of code
	code string
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var fence = regexp.MustCompile("(?m)^```go\n((?:.*\n)*?)```\n")

// goBlocks returns the Go blocks of every Markdown file of the module, but
// for what is not its own (testdata, node_modules).
func goBlocks(t *testing.T) []block {
	t.Helper()
	var blocks []block
	eachFile(t, func(path, rel string) error {
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fence.FindAllSubmatchIndex(raw, -1) {
			line := 1 + strings.Count(string(raw[:m[2]]), "\n")
			blocks = append(blocks, block{rel, line, string(raw[m[2]:m[3]])})
		}
		return nil
	})
	return blocks
}

// eachFile calls fn with each file of the module, but for what is not its
// own (testdata, node_modules, hidden directories), by its path and its
// path relative to the module's root, with slashes.
func eachFile(t *testing.T, fn func(path, rel string) error) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		return fn(path, filepath.ToSlash(rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMarkdownGo: every Go block in the module's Markdown compiles, as a
// program or as a fragment of one.
func TestMarkdownGo(t *testing.T) {
	blocks := goBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no Go blocks found: the walk missed the Markdown")
	}
	var fragments []block
	for _, b := range blocks {
		if strings.HasPrefix(b.code, "package ") {
			t.Run(b.String(), func(t *testing.T) { buildProgram(t, b) })
		} else {
			fragments = append(fragments, b)
		}
	}
	t.Run("fragments", func(t *testing.T) { checkFragments(t, fragments) })
}

// TestDocCommentGo: every code block of a doc comment in the module's
// public packages that reads as Go names only what Duet's packages hold;
// one that does not read as Go (a shell command line) is left alone.
func TestDocCommentGo(t *testing.T) {
	var frags []block
	eachFile(t, func(path, rel string) error {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, g := range f.Comments {
			var p comment.Parser
			for _, c := range p.Parse(g.Text()).Content {
				code, ok := c.(*comment.Code)
				if !ok || !readsAsGo(code.Text) {
					continue
				}
				first, _, _ := strings.Cut(code.Text, "\n")
				text := g.Text() // a line of it for each line of the comment
				line := fset.Position(g.Pos()).Line + strings.Count(text[:max(strings.Index(text, first), 0)], "\n")
				frags = append(frags, block{rel, line, code.Text})
			}
		}
		return nil
	})
	if len(frags) == 0 {
		t.Fatal("no Go in doc comments found: the walk missed the code")
	}
	checkFragments(t, frags)
}

// readsAsGo reports whether code parses as Go statements.
func readsAsGo(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+code+"\n}\n", parser.SkipObjectResolution)
	return err == nil
}

// buildProgram builds b as a package of the module (through an overlay:
// nothing is written to the tree), so it compiles against this version of
// Duet.
func buildProgram(t *testing.T, b block) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(b.code), 0o600); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(root, "internal", "doctest", "program", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: src}})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	//duetvet:allow rawexec -- the go command, building the program
	cmd := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", filepath.Join(dir, "program"), "./internal/doctest/program")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s does not build: %v\n%s", b, err, out)
	}
}

// checkFragments parses each fragment as the body of a function and looks
// up every pkg.Name it uses whose pkg is a Duet package it imports under
// that name, as the README's own programs do.
func checkFragments(t *testing.T, frags []block) {
	// The names the Markdown gives Duet's packages.
	names := map[string]string{
		"urfave": "adapters/urfave", "duetcobra": "adapters/cobra", "mcp": "adapters/mcp",
		"completion": "adapters/completion", "adapters": "adapters", "adaptertest": "adapters/adaptertest", "envelope": "envelope",
		"envelopetest": "envelope/envelopetest", "exitcode": "exitcode", "schema": "schema", "proc": "proc", "describe": "describe",
		"conformance": "conformance", "profile": "profile", "lock": "lock", "input": "input",
		"runenv": "runenv", "walk": "walk", "nethttp": "nethttp",
	}
	var patterns []string
	for _, p := range names {
		patterns = append(patterns, module+"/"+p)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: root}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	scope := map[string]*packages.Package{}
	for _, p := range pkgs {
		scope[strings.TrimPrefix(p.PkgPath, module+"/")] = p
	}
	for _, b := range frags {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+b.code+"\n}\n", parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s does not parse as Go statements: %v", b, err)
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			path, ok := names[id.Name]
			if !ok {
				return true
			}
			p := scope[path]
			if p == nil || p.Types == nil {
				t.Fatalf("package %s did not load", path)
			}
			if p.Types.Scope().Lookup(sel.Sel.Name) == nil {
				line := b.line + fset.Position(sel.Pos()).Line - 3
				t.Errorf("%s:%s: %s.%s is not in %s", b.file, strconv.Itoa(line), id.Name, sel.Sel.Name, module+"/"+path)
			}
			return true
		})
	}
}

// TestEveryPackageHasExample: every package a user can import that exports
// something (as internal/apisurface counts them) has a runnable Example
// whose output go test checks.
func TestEveryPackageHasExample(t *testing.T) {
	pkgs, err := apisurface.Count(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		dir := filepath.Join(root, filepath.FromSlash(p.Dir))
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, path := range tests {
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		checked := 0
		for _, ex := range doc.Examples(files...) {
			if ex.Output != "" || ex.EmptyOutput {
				checked++
			}
		}
		if checked == 0 {
			t.Errorf("%s has no Example whose output is checked", p.Dir)
		}
	}
}
