//go:build !bare

package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// run is the one line that adopts Duet: it was root.Run(ctx, args).
func run(ctx context.Context, root *cli.Command, args []string) error {
	return urfave.Exec(ctx, root, args)
}
