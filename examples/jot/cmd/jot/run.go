//go:build !bare

package main

import (
	"context"
	"errors"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
)

// run is the one line that adopts Duet: it was root.Run(ctx, args).
func run(ctx context.Context, root *cli.Command, args []string) error {
	return urfave.Exec(ctx, root, args)
}

// exit is the exit code err stands for, and whether Duet answered with it
// already: then main has nothing to print.
func exit(err error) (code int, answered bool) {
	var done *adapters.ExitError
	return adapters.ExitCode(err), errors.As(err, &done)
}
