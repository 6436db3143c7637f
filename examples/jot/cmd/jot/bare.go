//go:build bare

package main

import (
	"context"

	"github.com/urfave/cli/v3"
)

func run(ctx context.Context, root *cli.Command, args []string) error {
	return root.Run(ctx, args)
}

// exit is 1 for every error: urfave exits with an ExitCoder's code itself.
func exit(error) (code int, answered bool) { return 1, false }
