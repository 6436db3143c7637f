package lint_test

import (
	"fmt"

	"github.com/duet-cli/duet/lint"
)

// duetvet runs these; go vet's -vettool, or multichecker, runs them too.
func ExampleAnalyzers() {
	for _, a := range lint.Analyzers() {
		fmt.Println(a.Name)
	}
	// Output:
	// chdir
	// exitliteral
	// validatepure
	// nettimeout
	// fixcommand
	// rawexec
	// untracked
}
