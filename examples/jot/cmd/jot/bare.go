//go:build bare

package main

import (
	"context"

	"github.com/urfave/cli/v3"
)

func run(ctx context.Context, root *cli.Command, args []string) error {
	return root.Run(ctx, args)
}
