package lint

import (
	"go/ast"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// untrackedResources are the calls that take a resource the invocation
// does not release by itself, by package and name.
var untrackedResources = map[string][]string{
	"os":                    {"MkdirTemp", "CreateTemp"},
	"syscall":               {"Flock"},
	"golang.org/x/sys/unix": {"Flock"},
}

// tracking are Duet's packages that take these resources to track them.
var tracking = []string{duet + "lock", envelopePath, procPath, duet + "internal/sessiondir", duet + "internal/atomicfile"}

// Untracked reports resources taken with no cleanup.
var Untracked = &analysis.Analyzer{
	Name:     "untracked",
	Doc:      "report temporary files and directories and file locks taken with no cleanup in the function that takes them (CLI Agent Spec C-017): use envelope.Output's TempDir or lock.Acquire, which the invocation releases on exit, SIGTERM and timeout, or register Output.OnCleanup",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		if slices.Contains(tracking, pass.Pkg.Path()) {
			return nil, nil
		}
		ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
		ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
			if !push {
				return true
			}
			call := n.(*ast.CallExpr)
			fn := callee(pass, call)
			pkg, name := funcID(fn)
			if !slices.Contains(untrackedResources[pkg], name) || cleansUp(pass, enclosingBody(stack)) {
				return true
			}
			report(pass, call.Pos(), "%s takes a resource nothing releases if the command is stopped: use envelope.Output's TempDir or lock.Acquire, which the invocation releases, or release it in a defer or Output.OnCleanup (C-017)", shortName(fn))
			return true
		})
		return nil, nil
	},
}

// enclosingBody is the body of the innermost function on the stack.
func enclosingBody(stack []ast.Node) *ast.BlockStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			return f.Body
		case *ast.FuncLit:
			return f.Body
		}
	}
	return nil
}

// cleansUp reports whether a function body releases what it takes: it
// defers a call, or registers a cleanup hook (Output.OnCleanup).
func cleansUp(pass *analysis.Pass, body *ast.BlockStmt) bool {
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			found = true
		case *ast.CallExpr:
			if pkg, name := funcID(callee(pass, n)); pkg == envelopePath && name == "(*Output).OnCleanup" {
				found = true
			}
		}
		return !found
	})
	return found
}
