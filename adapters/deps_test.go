package adapters_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStartCostDeps: what every wrapped app links stays small, because an
// app nobody ported pays for it at every start (bench/adopt.sh). Package net
// makes a cgo build link libc dynamically; crypto starts its FIPS self-checks;
// a tokenizer's vocabulary is megabytes. They are for apps that ask for them
// (nethttp, tokens/tiktoken, envelope/filedigest). crypto/sha256 alone,
// linked into examples/todo (-tags nomcp), took `todo list` from a median
// of 2.78 ms to 2.87 ms (+3.2 %, 300 interleaved runs each, measured twice):
// the sha256 of a binary --output is opt-in for that reason.
func TestStartCostDeps(t *testing.T) {
	for adapter, banned := range map[string][]string{
		// cobra's pflag links net itself: an app built on it pays that anyway.
		"./urfave": {"net", "net/http", "runtime/cgo", "os/user", "crypto/rand", "crypto/sha256", "math/big", "github.com/tiktoken-go/tokenizer", "golang.org/x/tools/go/analysis"},
		"./cobra":  {"net/http", "os/user", "crypto/rand", "crypto/sha256", "math/big", "github.com/tiktoken-go/tokenizer", "golang.org/x/tools/go/analysis"},
	} {
		out, err := exec.Command("go", "list", "-deps", adapter).Output()
		if err != nil {
			t.Fatal(err)
		}
		deps := strings.Fields(string(out))
		for _, b := range banned {
			if slices.Contains(deps, b) {
				t.Errorf("%s links %s", adapter, b)
			}
		}
	}
}

// TestStartCostInit: Duet's packages that every wrapped app links do no
// work when the program starts. A package variable set by a call or a map
// literal runs in the package's initialisation, before main, in every start
// of every wrapped app, whatever command runs (bench/adopt.sh): a regexp is
// compiled, a map built, a sync.OnceValue allocated. Such values are built
// where they are used, or on first use.
func TestStartCostInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", "./urfave", "./cobra").Output()
	if err != nil {
		t.Fatal(err)
	}
	// Values that cost next to nothing, set by the linker or a pointer copy.
	allowed := map[string]bool{"errors.New": true, "fs.SkipDir": true, "fs.SkipAll": true}
	fset := token.NewFileSet()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, rest, _ := strings.Cut(line, "\t")
		dir, files, _ := strings.Cut(rest, "\t")
		if !strings.HasPrefix(path, "github.com/duet-cli/duet/") {
			continue
		}
		for _, name := range strings.Fields(files) {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				g, ok := decl.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, spec := range g.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						ast.Inspect(v, func(n ast.Node) bool {
							switch n := n.(type) {
							case *ast.FuncLit:
								return false // runs when called, not at start
							case *ast.CallExpr:
								if fn := types.ExprString(n.Fun); !allowed[fn] && !isConversion(n) {
									t.Errorf("%s: a package variable calls %s at every start", fset.Position(n.Pos()), fn)
								}
							case *ast.CompositeLit:
								if _, isMap := n.Type.(*ast.MapType); isMap {
									t.Errorf("%s: a package variable builds a map at every start", fset.Position(n.Pos()))
								}
							}
							return true
						})
					}
				}
			}
		}
	}
}

// isConversion reports whether call is a conversion the compiler makes
// static, such as []byte("...") or (*T)(nil).
func isConversion(call *ast.CallExpr) bool {
	switch fun := call.Fun.(type) {
	case *ast.ArrayType:
		return true
	case *ast.ParenExpr:
		_, ok := fun.X.(*ast.StarExpr)
		return ok
	}
	return false
}

// TestCoreLinksNoFeature holds the architecture (DESIGN.md): the engine and
// the framework adapters import no feature package, so that a one-line
// wrap links none; a feature imports the engine and no other feature.
func TestCoreLinksNoFeature(t *testing.T) {
	const feature = "github.com/duet-cli/duet/feature/"
	pkgs := []string{"./..."} // the engine and every adapter
	work, _ := exec.Command("go", "env", "GOWORK").Output()
	if w := strings.TrimSpace(string(work)); w != "" && w != "off" {
		// The one-line wraps are in the examples' module, which only the
		// workspace builds beside this one.
		pkgs = append(pkgs, "../examples/jot/cmd/jot", "../examples/tally/cmd/tally")
	}
	out, err := goList(append([]string{"-deps"}, pkgs...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, feature) {
			t.Errorf("the core links %s", dep)
		}
	}
	out, err = goList("-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../feature/...")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if strings.HasSuffix(pkg, "/level3") { // the bundle imports them all
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, feature) && !strings.HasPrefix(imp, pkg+"/") {
				t.Errorf("%s imports another feature, %s", pkg, imp)
			}
		}
	}
}

// goList runs go list with args, its stderr in the error.
func goList(args ...string) ([]byte, error) {
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = fmt.Errorf("go list %s: %w\n%s", strings.Join(args, " "), err, exit.Stderr)
	}
	return out, err
}
