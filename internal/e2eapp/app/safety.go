package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// safetyCommands are the commands whose risk differs: one that reads, one
// that only writes its cache, and two that destroy what they touch.
func safetyCommands() []*cli.Command {
	status := urfave.Annotate(&cli.Command{
		Name:  "status",
		Usage: "Report whether the service is healthy",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]any{"healthy": true, "version": Version})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})

	report := urfave.Annotate(&cli.Command{
		Name:  "report",
		Usage: "Summarise the service's health; keeps the summary in its cache for an hour",
		Action: func(ctx context.Context, c *cli.Command) error {
			dir := filepath.Join(dataDir(c), "cache")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(`{"healthy":true}`), 0o600); err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]any{"healthy": true, "cached_for_seconds": int(reportCacheTTL / time.Second)})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, SideEffects: []schema.SideEffect{
		{Path: "~/.local/share/e2eapp/cache/report.json", Kind: schema.CacheFile, TTL: reportCacheTTL, ClearWith: "e2eapp purge --yes"},
		{Path: "~/.local/share/e2eapp/report.log", Kind: schema.LogFile},
		{Path: "$TMPDIR/e2eapp-report-*", Kind: schema.TempFile},
	}})

	publish := urfave.Annotate(&cli.Command{
		Name:      "publish",
		Usage:     "Publish a release over the live one: a preview unless --live is given",
		ArgsUsage: "<version>",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			live := filepath.Join(dataDir(c), "live-release")
			if out.DryRun() {
				out.WouldAffect(map[string]any{"release": c.Args().First(), "replaces": live})
				return out.Result(map[string]string{"release": c.Args().First()})
			}
			if err := os.MkdirAll(filepath.Dir(live), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(live, []byte(c.Args().First()), 0o600); err != nil {
				return err
			}
			return out.Result(map[string]string{"release": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Destructive, DryRun: true, SafeDefault: true,
		Args: []schema.Arg{{Name: "version", Required: true, Type: schema.String, Usage: "the release"}}})

	purge := urfave.Annotate(&cli.Command{
		Name:  "purge",
		Usage: "Delete e2eapp's cache",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Deleted)
			dir := filepath.Join(dataDir(c), "cache")
			entries, err := os.ReadDir(dir)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if out.DryRun() {
				out.WouldAffect(map[string]int{"files": len(entries)})
				return out.Result(map[string]int{"files": len(entries)})
			}
			if len(entries) == 0 {
				out.Effect(envelope.Noop)
			}
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
			return out.Result(map[string]int{"files": len(entries)})
		},
	}, schema.Meta{Danger: schema.Destructive, DryRun: true, NoArgs: true})

	return []*cli.Command{status, report, publish, purge, scaleCommand()}
}

// scaleCommand sets how many replicas of the service run in an
// environment. Like many apps it takes a lock in its own pre-action hook
// (urfave's Before) and writes in its action: Duet checks the whole
// command line — the declared enum and the command's Validate hook — before
// urfave runs either, so a refused command line takes no lock (REQ-F-015).
func scaleCommand() *cli.Command {
	lockFile := func(c *cli.Command) string { return filepath.Join(dataDir(c), "scale.lock") }
	return urfave.Annotate(&cli.Command{
		Name:  "scale",
		Usage: "Set how many replicas of the service run in an environment",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "env", Usage: "the environment", Required: true},
			&cli.IntFlag{Name: "replicas", Usage: "how many replicas, 1 to 50", Required: true},
		},
		Before: func(ctx context.Context, c *cli.Command) (context.Context, error) {
			if err := os.MkdirAll(dataDir(c), 0o700); err != nil {
				return ctx, err
			}
			return ctx, os.WriteFile(lockFile(c), []byte(strconv.Itoa(os.Getpid())), 0o600)
		},
		After: func(_ context.Context, c *cli.Command) error { return os.Remove(lockFile(c)) },
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			n := int(c.Int("replicas"))
			if _, err := os.Stat(lockFile(c)); err != nil {
				return fmt.Errorf("the action ran without the lock its Before hook takes: %w", err)
			}
			if err := os.WriteFile(filepath.Join(dataDir(c), "replicas-"+c.String("env")), []byte(strconv.Itoa(n)), 0o600); err != nil {
				return err
			}
			return out.Result(map[string]any{"env": c.String("env"), "replicas": n})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true,
		Flags: map[string]schema.FlagMeta{"env": {Enum: []string{"production", "staging"}}},
		Validate: func(_ context.Context, in schema.Input) error {
			if n, err := strconv.Atoi(in.String("replicas")); err != nil || n < 1 || n > 50 {
				return envelope.Invalid([]envelope.FieldError{{Code: "OUT_OF_RANGE", Field: "replicas",
					Message: fmt.Sprintf("--replicas must be 1 to 50, not %s", in.String("replicas"))}})
			}
			return nil
		}})
}
