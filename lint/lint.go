// Package lint holds duetvet's analyzers: the parts of the CLI Agent Spec a
// running program cannot check, checked where the code is written.
//
//   - [Chdir]: a command that changes the process's working directory
//     (F-041); the lifecycle undoes it at run time, this finds it first.
//   - [ExitLiteral]: an exit code written as a number rather than a named
//     constant (F-001).
//   - [ValidatePure]: a Meta.Validate hook that writes files, starts
//     programs or calls the network: phase 1 must change nothing (C-006).
//   - [NetTimeout]: a network call that can wait for ever (C-012).
//   - [FixCommand]: a fix_command with a placeholder, which cannot be run
//     as it is (C-030).
//   - [RawExec]: a program started without package proc (C-019).
//   - [Untracked]: a temporary file or directory, or a file lock, taken
//     with no cleanup (C-017).
//
// Test files are not checked: tests write literal codes and change
// directories on purpose. A line that must do what an analyzer reports says
// so with a directive on it or the line above, naming the analyzer:
//
//	//duetvet:allow chdir -- restores the working directory a command changed
//
// Run them with cmd/duetvet, as go vet runs its own:
//
//	go run github.com/duet-cli/duet/lint/cmd/duetvet ./...
package lint

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

const (
	duet         = "github.com/duet-cli/duet/"
	exitcodePath = duet + "exitcode"
	schemaPath   = duet + "schema"
	envelopePath = duet + "envelope"
)

// Analyzers are all of duetvet's checks.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{Chdir, ExitLiteral, ValidatePure, NetTimeout, FixCommand, RawExec, Untracked}
}

// Chdir reports calls that change the process's working directory.
var Chdir = &analysis.Analyzer{
	Name:     "chdir",
	Doc:      "report calls that change the process's working directory (CLI Agent Spec F-041): build absolute paths instead",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		eachCall(pass, func(call *ast.CallExpr, fn *types.Func) {
			switch pkg, name := funcID(fn); {
			case pkg == "os" && name == "Chdir",
				pkg == "os" && name == "(*File).Chdir",
				(pkg == "syscall" || pkg == "golang.org/x/sys/unix") && (name == "Chdir" || name == "Fchdir"):
				report(pass, call.Pos(), "%s changes the working directory of the whole process: build absolute paths instead (F-041)", shortName(fn))
			}
		})
		return nil, nil
	},
}

// ExitLiteral reports exit codes written as numbers.
var ExitLiteral = &analysis.Analyzer{
	Name:     "exitliteral",
	Doc:      "report exit codes written as integer literals (CLI Agent Spec F-001): use exitcode's named codes, or a named constant for a code declared in Meta.ExitCodes",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
		ins.WithStack([]ast.Node{(*ast.BasicLit)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
			lit := n.(*ast.BasicLit)
			if !push || lit.Kind != token.INT || !isNamed(pass.TypesInfo.TypeOf(lit), exitcodePath, "Code") {
				return true
			}
			if declares(stack) {
				return true
			}
			report(pass, lit.Pos(), "exit code %s is a bare number: use a named code such as exitcode.NotFound, or a named constant for a code in Meta.ExitCodes (F-001)", lit.Value)
			return true
		})
		return nil, nil
	},
}

// declares reports whether the literal at the top of stack names a code: a
// constant declaration, or a key of an exitcode.Table.
func declares(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.GenDecl:
			return n.Tok == token.CONST
		case *ast.KeyValueExpr:
			return n.Key == stack[i+1] || n.Key == unparenOf(stack, i+1)
		case *ast.CallExpr, *ast.FuncLit, *ast.BlockStmt:
			return false
		}
	}
	return false
}

func unparenOf(stack []ast.Node, i int) ast.Node {
	if p, ok := stack[i].(*ast.ParenExpr); ok {
		return p.X
	}
	return stack[i]
}

// sideEffects are the calls a Validate hook must not make, by package and name.
var sideEffects = map[string][]string{
	"os": {"Create", "CreateTemp", "WriteFile", "OpenFile", "Remove", "RemoveAll", "Mkdir", "MkdirAll", "MkdirTemp",
		"Rename", "Symlink", "Link", "Chmod", "Chown", "Lchown", "Chtimes", "Truncate", "Chdir", "Setenv", "Unsetenv",
		"(*File).Write", "(*File).WriteString", "(*File).WriteAt", "(*File).Truncate"},
	"os/exec":  {"Command", "CommandContext"},
	"net/http": {"Get", "Head", "Post", "PostForm", "(*Client).Do", "(*Client).Get", "(*Client).Post", "(*Client).Head", "(*Client).PostForm"},
	"net":      {"Dial", "DialTimeout", "(*Dialer).Dial", "(*Dialer).DialContext"},
}

// ValidatePure reports side effects in Meta.Validate hooks.
var ValidatePure = &analysis.Analyzer{
	Name:     "validatepure",
	Doc:      "report Meta.Validate hooks that write files, start programs or call the network (CLI Agent Spec C-006): validation must change nothing",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
		decls := map[*types.Func]*ast.FuncDecl{}
		ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil)}, func(n ast.Node) {
			d := n.(*ast.FuncDecl)
			if fn, ok := pass.TypesInfo.Defs[d.Name].(*types.Func); ok {
				decls[fn] = d
			}
		})
		hook := func(v ast.Expr) {
			var body *ast.BlockStmt
			switch f := ast.Unparen(v).(type) {
			case *ast.FuncLit:
				body = f.Body
			case *ast.Ident, *ast.SelectorExpr:
				if fn, ok := uses(pass, f).(*types.Func); ok && decls[fn] != nil {
					body = decls[fn].Body
				}
			}
			if body == nil {
				return
			}
			ast.Inspect(body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fn := callee(pass, call)
				pkg, name := funcID(fn)
				for _, bad := range sideEffects[pkg] {
					if name == bad {
						report(pass, call.Pos(), "%s in a Validate hook: validation must change nothing and call no one; do it in the action (C-006)", shortName(fn))
					}
				}
				return true
			})
		}
		ins.Preorder([]ast.Node{(*ast.CompositeLit)(nil), (*ast.AssignStmt)(nil)}, func(n ast.Node) {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if !isNamed(pass.TypesInfo.TypeOf(n), schemaPath, "Meta") {
					return
				}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Validate" {
							hook(kv.Value)
						}
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "Validate" && i < len(n.Rhs) &&
						isNamed(pass.TypesInfo.TypeOf(sel.X), schemaPath, "Meta") {
						hook(n.Rhs[i])
					}
				}
			}
		})
		return nil, nil
	},
}

// NetTimeout reports network calls with no time limit.
var NetTimeout = &analysis.Analyzer{
	Name:     "nettimeout",
	Doc:      "report network calls that can wait for ever (CLI Agent Spec C-012): use a context or a client with a Timeout",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		eachCall(pass, func(call *ast.CallExpr, fn *types.Func) {
			switch pkg, name := funcID(fn); {
			case pkg == "net/http" && (name == "Get" || name == "Head" || name == "Post" || name == "PostForm"):
				report(pass, call.Pos(), "http.%s uses http.DefaultClient, which has no timeout: use a request with the command's context (http.NewRequestWithContext) (C-012)", name)
			case pkg == "net/http" && name == "NewRequest":
				report(pass, call.Pos(), "http.NewRequest has no context, so the command's timeout cannot stop it: use http.NewRequestWithContext (C-012)")
			case pkg == "net" && name == "Dial":
				report(pass, call.Pos(), "net.Dial has no timeout: use a net.Dialer's DialContext with the command's context (C-012)")
			}
		})
		ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
		ins.Preorder([]ast.Node{(*ast.SelectorExpr)(nil), (*ast.CompositeLit)(nil)}, func(n ast.Node) {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if v, ok := uses(pass, n).(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "net/http" && v.Name() == "DefaultClient" {
					report(pass, n.Pos(), "http.DefaultClient has no timeout: give requests the command's context, or use a client with a Timeout (C-012)")
				}
			case *ast.CompositeLit:
				if !isNamed(pass.TypesInfo.TypeOf(n), "net/http", "Client") {
					return
				}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Timeout" {
							return
						}
					}
				}
				report(pass, n.Pos(), "an http.Client without a Timeout waits for ever unless every request carries a deadline: set Timeout (C-012)")
			}
		})
		return nil, nil
	},
}

// FixCommand reports fix_commands that cannot be run as they are.
var FixCommand = &analysis.Analyzer{
	Name:     "fixcommand",
	Doc:      "report fix_commands with placeholders or shell syntax (CLI Agent Spec C-030): a fix_command is run verbatim",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		eachCall(pass, func(call *ast.CallExpr, fn *types.Func) {
			if pkg, name := funcID(fn); pkg != envelopePath || name != "(*Error).WithFix" || len(call.Args) != 2 {
				return
			}
			tv, ok := pass.TypesInfo.Types[call.Args[1]]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				return
			}
			if s := constant.StringVal(tv.Value); strings.ContainsAny(s, "<>$`{}") {
				report(pass, call.Args[1].Pos(), "fix_command %q holds a placeholder or shell syntax: it must run as it is; state the condition in fix_required instead (C-030)", s)
			}
		})
		return nil, nil
	},
}

// eachCall calls fn for every call of a named function or method.
func eachCall(pass *analysis.Pass, fn func(*ast.CallExpr, *types.Func)) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		if f := callee(pass, call); f != nil {
			fn(call, f)
		}
	})
}

// callee is the function or method a call calls, or nil.
func callee(pass *analysis.Pass, call *ast.CallExpr) *types.Func {
	f, _ := uses(pass, ast.Unparen(call.Fun)).(*types.Func)
	return f
}

// uses is the object an identifier or selector refers to.
func uses(pass *analysis.Pass, e ast.Expr) types.Object {
	switch e := e.(type) {
	case *ast.Ident:
		return pass.TypesInfo.Uses[e]
	case *ast.SelectorExpr:
		if sel, ok := pass.TypesInfo.Selections[e]; ok {
			return sel.Obj()
		}
		return pass.TypesInfo.Uses[e.Sel]
	}
	return nil
}

// funcID names a function by its package path and name, a method as
// "(*T).Name" or "(T).Name".
func funcID(fn *types.Func) (pkg, name string) {
	if fn == nil || fn.Pkg() == nil {
		return "", ""
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return fn.Pkg().Path(), fn.Name()
	}
	t, star := sig.Recv().Type(), ""
	if p, ok := t.(*types.Pointer); ok {
		t, star = p.Elem(), "*"
	}
	if n, ok := t.(*types.Named); ok {
		return fn.Pkg().Path(), "(" + star + n.Obj().Name() + ")." + fn.Name()
	}
	return fn.Pkg().Path(), fn.Name()
}

func shortName(fn *types.Func) string {
	pkg, name := funcID(fn)
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + strings.NewReplacer("(*", "", ")", "", "(", "").Replace(name)
}

// isNamed reports whether t is the named type pkg.name, or a pointer to it.
func isNamed(t types.Type, pkg, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// report is pass.Reportf, except in test files and on lines that carry an
// allow directive for this analyzer.
func report(pass *analysis.Pass, pos token.Pos, format string, args ...any) {
	at := pass.Fset.Position(pos)
	if strings.HasSuffix(at.Filename, "_test.go") || allowed(pass, pos, at.Line) {
		return
	}
	pass.Reportf(pos, format, args...)
}

func allowed(pass *analysis.Pass, pos token.Pos, line int) bool {
	for _, f := range pass.Files {
		if f.FileStart > pos || pos > f.FileEnd {
			continue
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				l := pass.Fset.Position(c.Slash).Line
				if l != line && l != line-1 {
					continue
				}
				rest, ok := strings.CutPrefix(c.Text, "//duetvet:allow ")
				if !ok {
					continue
				}
				if names, _, _ := strings.Cut(rest, " --"); slices.Contains(strings.Fields(names), pass.Analyzer.Name) {
					return true
				}
			}
		}
	}
	return false
}
