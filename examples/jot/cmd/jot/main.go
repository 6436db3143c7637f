// Command jot keeps notes. Built as it is, it is wrapped with Duet in one
// line (run.go); built with -tags bare, it is the app as it was before
// (bare.go): examples/jot/e2e runs both.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/duet-cli/duet/examples/jot/internal/app"
)

func main() {
	if err := run(context.Background(), app.New(), os.Args); err != nil {
		code, answered := exit(err)
		if !answered {
			fmt.Fprintln(os.Stderr, "jot:", err)
		}
		os.Exit(code)
	}
}
