package lint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
)

const procPath = duet + "proc"

// rawExec are the calls that start a program without package proc, by
// package and name.
var rawExec = map[string][]string{
	"os/exec":               {"Command", "CommandContext"},
	"os":                    {"StartProcess"},
	"syscall":               {"Exec", "ForkExec", "StartProcess"},
	"golang.org/x/sys/unix": {"Exec"},
}

// RawExec reports programs started without package proc.
var RawExec = &analysis.Analyzer{
	Name:     "rawexec",
	Doc:      "report programs started without package proc (CLI Agent Spec C-019): proc.Command refuses shell command lines and metacharacters in user input, tracks and stops the child, and gives it a non-interactive environment",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		if pass.Pkg.Path() == procPath {
			return nil, nil // proc is where programs are started
		}
		eachCall(pass, func(call *ast.CallExpr, fn *types.Func) {
			pkg, name := funcID(fn)
			for _, bad := range rawExec[pkg] {
				if name == bad {
					report(pass, call.Pos(), "%s starts a program outside package proc: use proc.Command(ctx, name, args...), which guards user input, tracks the child and stops it with the command (C-019)", shortName(fn))
				}
			}
		})
		return nil, nil
	},
}
