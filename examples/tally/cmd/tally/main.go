// Command tally counts lines, words and characters. Built as it is, it is
// wrapped with Duet in one line (run.go); built with -tags bare, it is the
// app as it was before (bare.go): examples/tally/e2e runs both.
package main

import (
	"os"

	"github.com/duet-cli/duet/examples/tally/internal/app"
)

func main() {
	root := app.New()
	root.SetArgs(app.Args(root, os.Args[1:]))
	run(root)
}
