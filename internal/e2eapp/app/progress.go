package app

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/feature/changelog"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/walk"
)

// progressCommands are the long-running and traversing commands: heartbeats, directory walks, and the built-in changelog and generate-skills commands.
func progressCommands() []*cli.Command {
	return []*cli.Command{analyzeCommand(), treeCommand()}
}

// progressOptions are the Duet options the progress commands need: the
// history `e2eapp changelog` lists (generate-skills needs none).
func progressOptions() []urfave.Option {
	return []urfave.Option{adapters.WithFeatures(changelog.New(Changelog...))}
}

// Changelog is e2eapp's interface history, in no particular order (Duet
// sorts it newest first).
var Changelog = []changelog.Entry{
	{Version: "0.9.0", Date: "2025-06-02", Added: []string{"command status", "command sync"}},
	{Version: "1.0.0", Date: "2025-09-15", Breaking: true, Removed: []string{"flag --dir"}, Changed: []string{"data.files: from a string to an array"}},
	{Version: "0.10.0", Date: "2025-07-30", Added: []string{"command backup", "data.sha256"}},
	{Version: "1.1.0", Date: "2026-01-20", Added: []string{"command analyze", "command tree.list", "command tree.delete"}},
	{Version: "2.0.0", Date: "2026-04-01", Breaking: true, Removed: []string{"data.url"}, Added: []string{"data.deployed_url"}},
}

// analyzeCommand is a long-running command in two steps, load and
// analyze, the second in batches: it reports each through Duet (Step,
// Progress), which is what its heartbeats say. With --gate, it reads one
// line from that named pipe before loading and one before each batch, so
// that the caller decides how long it runs; without, it runs at once.
func analyzeCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:  "analyze",
		Usage: "Analyze the data set in batches, reporting each (a long-running command with heartbeats)",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "batches", Value: 2, Usage: "how many batches"},
			&cli.StringFlag{Name: "gate", Usage: "a named pipe to read a line from before the load and before each batch"},
			&cli.BoolFlag{Name: "fail", Usage: "fail the last batch"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			gate := func() error { return nil }
			if p := c.String("gate"); p != "" {
				f, err := os.Open(p) // blocks until the caller opens it to write
				if err != nil {
					return err
				}
				defer f.Close()
				r := bufio.NewReader(f)
				gate = func() error {
					if _, err := r.ReadString('\n'); err != nil {
						return envelope.Errorf(exitcode.GeneralError, "GATE_CLOSED", "the gate %s closed: %v", p, err)
					}
					return nil
				}
			}
			n := int(c.Int("batches"))
			if err := out.Step(ctx, "load", func(context.Context) error { return gate() }); err != nil {
				return err
			}
			err := out.Step(ctx, "analyze", func(context.Context) error {
				for i := 1; i <= n; i++ {
					out.Progress(fmt.Sprintf("analyzing batch %d/%d", i, n), i-1, n)
					if err := gate(); err != nil {
						return err
					}
					if i == n && c.Bool("fail") {
						return envelope.Errorf(exitcode.GeneralError, "BATCH_FAILED", "batch %d/%d failed", i, n)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			return out.Result(map[string]int{"batches": n})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, LongRunning: true, Steps: []string{"load", "analyze"}})
}

// treeCommand walks directory trees with package walk: list reports every
// entry, delete removes a tree. Both declare Meta.Traverses, so Duet gives
// them --no-follow-symlinks and --max-depth and stops a walk at a symlink
// loop or a tree too deep.
func treeCommand() *cli.Command {
	dirArg := []schema.Arg{{Name: "dir", Required: true, Type: schema.String, Usage: "the directory"}}

	list := urfave.Annotate(&cli.Command{
		Name:      "list",
		Usage:     "List every file and directory under a directory, symlinks followed unless told not to",
		ArgsUsage: "<dir>",
		Action: func(ctx context.Context, c *cli.Command) error {
			type entry struct {
				Path  string `json:"path"`
				Depth int    `json:"depth"`
				Dir   bool   `json:"dir"`
				Link  bool   `json:"link"`
			}
			entries := []entry{}
			stats, err := walk.Walk(ctx, c.Args().First(), func(e walk.Entry) error {
				entries = append(entries, entry{Path: e.Path, Depth: e.Depth, Dir: e.IsDir(), Link: e.Link})
				return nil
			})
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]any{"entries": entries, "symlinks_skipped": stats.SymlinksSkipped, "revisited": stats.Revisited})
		},
	}, schema.Meta{Danger: schema.Safe, Traverses: true, Args: dirArg})

	del := urfave.Annotate(&cli.Command{
		Name:      "delete",
		Usage:     "Delete a directory tree (a link is deleted, never what it leads to)",
		ArgsUsage: "<dir>",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Deleted)
			// The tree is walked whole first: a loop or a tree too deep
			// deletes nothing.
			var found []walk.Entry
			stats, err := walk.Walk(ctx, c.Args().First(), func(e walk.Entry) error {
				found = append(found, e)
				return nil
			})
			if err != nil {
				return err
			}
			// What a followed link leads to is not the tree's to delete:
			// the link is deleted, not what the walk saw through it.
			var links []string
			var doomed []walk.Entry
			for _, e := range found {
				if slices.ContainsFunc(links, func(l string) bool { return strings.HasPrefix(e.Path, l+string(os.PathSeparator)) }) {
					continue
				}
				if e.Link && e.IsDir() && e.Depth > 0 {
					links = append(links, e.Path)
				}
				doomed = append(doomed, e)
			}
			if out.DryRun() {
				out.WouldAffect(map[string]int{"entries": len(doomed)})
				return out.Result(map[string]int{"deleted_count": 0, "symlinks_skipped": stats.SymlinksSkipped})
			}
			for _, e := range slices.Backward(doomed) {
				remove := os.Remove
				if e.IsDir() && !e.Link {
					remove = os.RemoveAll // a directory reached twice was walked once, through another path
				}
				if err := remove(e.Path); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			return out.Result(map[string]int{"deleted_count": len(doomed), "symlinks_skipped": stats.SymlinksSkipped})
		},
	}, schema.Meta{Danger: schema.Destructive, DryRun: true, Traverses: true, Args: dirArg})

	return urfave.Annotate(&cli.Command{Name: "tree", Usage: "Walk directory trees", Commands: []*cli.Command{list, del}}, schema.Meta{})
}
