package app

import (
	"context"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// confirmCommands are a command that runs only when its own --yes confirms
// it (REQ-O-048's confirm_flag), previewing otherwise, and one declared
// idempotent (REQ-C-002), which a rerun converges.
func confirmCommands() []*cli.Command {
	rollout := urfave.Annotate(&cli.Command{
		Name:      "rollout",
		Usage:     "Roll a release out to every host: a preview unless --yes is given",
		ArgsUsage: "<version>",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "roll out for real; omit to preview"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			target := filepath.Join(dataDir(c), "rolled-out")
			if out.DryRun() {
				out.WouldAffect(map[string]any{"release": c.Args().First(), "hosts": 3})
				return out.Result(map[string]string{"release": c.Args().First()})
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(target, []byte(c.Args().First()), 0o600); err != nil {
				return err
			}
			return out.Result(map[string]string{"release": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Mutating, DryRun: true, ConfirmFlag: "yes",
		Args: []schema.Arg{{Name: "version", Required: true, Type: schema.String, Usage: "the release"}}})

	snapshot := urfave.Annotate(&cli.Command{
		Name:  "snapshot",
		Usage: "Rewrite the state snapshot; a rerun converges on the same snapshot",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			file := filepath.Join(dataDir(c), "snapshot.json")
			if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(file, []byte(`{"healthy":true}`), 0o600); err != nil {
				return err
			}
			return out.Result(map[string]string{"snapshot": file})
		},
	}, schema.Meta{Danger: schema.Mutating, Idempotent: true, NoArgs: true})

	// decommission is destructive: it previews unless --confirm-destructive
	// confirms it (REQ-O-048 with REQ-O-021), and never asks.
	decommission := urfave.Annotate(&cli.Command{
		Name:      "decommission",
		Usage:     "Take a host out of service for good; without --confirm-destructive, say what it would do",
		ArgsUsage: "<host>",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Deleted)
			marker := filepath.Join(dataDir(c), "decommissioned-"+c.Args().First())
			if out.DryRun() {
				out.WouldAffect(map[string]any{"host": c.Args().First(), "reversible": false})
				return out.Result(map[string]string{"host": c.Args().First()})
			}
			if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(marker, nil, 0o600); err != nil {
				return err
			}
			return out.Result(map[string]string{"host": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Destructive, DryRun: true, ConfirmFlag: "confirm-destructive",
		Args: []schema.Arg{{Name: "host", Required: true, Type: schema.String, Usage: "the host"}}})

	return []*cli.Command{rollout, snapshot, decommission}
}
