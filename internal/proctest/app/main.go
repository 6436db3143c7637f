// Command app is a Duet app whose commands start the child program
// ($PROCTEST_CHILD, see ../child) through package proc, for tests that send
// the whole process real signals.
//
//	app hold   start `child wait --spawn --record $PROCTEST_RECORD`, its
//	           ready lines on stderr, and wait for it
//	app watch  start `child wait` in the background and answer its pid
package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

func main() {
	child, record := os.Getenv("PROCTEST_CHILD"), os.Getenv("PROCTEST_RECORD")
	hold := urfave.Annotate(&cli.Command{Name: "hold", Usage: "Run a program until it ends",
		Action: func(ctx context.Context, _ *cli.Command) error {
			cmd := proc.Command(ctx, child, "wait", "--spawn", "--record", record)
			cmd.Stdout = os.Stderr // the ready lines, for the test
			if err := cmd.Start(); err != nil {
				return err
			}
			return errors.Join(cmd.Wait(), ctx.Err())
		}}, schema.Meta{Danger: schema.Safe, Timeout: schema.NoTimeout})
	watch := urfave.Annotate(&cli.Command{Name: "watch", Usage: "Start a watcher in the background",
		Action: func(ctx context.Context, _ *cli.Command) error {
			cmd := proc.Command(ctx, child, "wait")
			cmd.Background = true
			if err := cmd.Start(); err != nil {
				return err
			}
			envelope.From(ctx).Effect(envelope.Created) // a process started (C-003)
			return envelope.From(ctx).Result(map[string]any{"background_pid": cmd.Process.Pid, "cleanup_command": "kill " + "-TERM"})
		}}, schema.Meta{Danger: schema.Mutating, Background: &schema.Background{CleanupCommand: "kill -TERM <background_pid>", MaxLifetime: time.Minute}})
	urfave.Main(&cli.Command{Name: "app", Usage: "proc's test app", Commands: []*cli.Command{hold, watch}}, adapters.WithGrace(time.Second))
}
