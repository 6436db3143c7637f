// Command slowwrap is an app whose wrapping waits for a line on stdin, so
// that a test can signal it in the moment before its command line is read:
// it says "wrapping" on stderr, then waits. Its one command, wait, sleeps
// until it is cancelled; `wait --ported` is a command Duet answers for
// everyone, plain `wait` one nobody ported.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

func main() {
	wait := &cli.Command{Name: "wait", Action: func(ctx context.Context, _ *cli.Command) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	ported := urfave.Annotate(&cli.Command{Name: "ported", Action: wait.Action}, schema.Meta{Danger: schema.Safe})
	root := &cli.Command{Name: "slowwrap", Commands: []*cli.Command{wait, ported}}
	adapters.Main(func() (*urfave.App, error) {
		fmt.Fprintln(os.Stderr, "wrapping")
		bufio.NewReader(os.Stdin).ReadString('\n')
		return urfave.Wrap(root)
	}, os.Args[1:])
}
