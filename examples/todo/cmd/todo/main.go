// Command todo is Duet's small example: a to-do list in a JSON file, built on
// urfave/cli v3 and wrapped with Duet so that it serves a person and an agent.
// cmd/todo-cobra is the same app on cobra; what the commands do and declare
// is shared (internal/commands), only the wiring differs.
//
//	todo add "write the README" --priority high
//	todo list            # a table at a terminal, one JSON envelope in a pipe
//	todo done t1
//	todo purge --dry-run
//	todo import < todos.jsonl   # or --input-file todos.jsonl
package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/todo/internal/commands"
	"github.com/duet-cli/duet/examples/todo/internal/options"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
)

var version = "0.1.0"

func main() { urfave.Main(newApp(), wrapping()...) }

// wrapping is the options todo is wrapped with: exec runs every line of a
// batch in this process, on a todo made anew (adapters.WithNewApp).
func wrapping() []urfave.Option {
	opts := options.For(version, serveMCP()...)
	return append(opts, adapters.WithNewApp(func() (adapters.Framework, error) { return urfave.Wrap(newApp(), opts...) }))
}

func store(cmd *cli.Command) *todo.Store { return commands.Store(cmd.String("file")) }

func newApp() *cli.Command {
	decl := commands.Declare()

	add := urfave.Annotate(&cli.Command{
		Name:      "add",
		Usage:     commands.AddUsage,
		ArgsUsage: "<title>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "normal", Usage: commands.PriorityUsage},
			&cli.StringSliceFlag{Name: "tag", Usage: commands.TagUsage},
			&cli.StringFlag{Name: "id", Usage: commands.IDUsage},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Add(ctx, store(cmd), cmd.String("id"), cmd.Args().First(), cmd.String("priority"), cmd.StringSlice("tag"))
		},
	}, decl.Add)

	list := urfave.Annotate(&cli.Command{
		Name:  "list",
		Usage: commands.ListUsage,
		Flags: []cli.Flag{&cli.StringFlag{Name: "status", Value: "open", Usage: commands.StatusUsage}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.List(ctx, store(cmd), cmd.String("status"))
		},
	}, decl.List)

	show := urfave.Annotate(&cli.Command{
		Name:      "show",
		ArgsUsage: "<id>",
		Usage:     commands.ShowUsage,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Show(ctx, store(cmd), cmd.Args().First())
		},
	}, decl.Show)

	done := urfave.Annotate(&cli.Command{
		Name:      "done",
		ArgsUsage: "<id>",
		Usage:     commands.DoneUsage,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Done(ctx, store(cmd), cmd.Args().First())
		},
	}, decl.Done)

	purge := urfave.Annotate(&cli.Command{
		Name:  "purge",
		Usage: commands.PurgeUsage,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: commands.AllUsage}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Purge(ctx, store(cmd), cmd.Bool("all"))
		},
	}, decl.Purge)

	watch := urfave.Annotate(&cli.Command{
		Name:  "watch",
		Usage: commands.WatchUsage,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: commands.IntervalUsage},
			&cli.IntFlag{Name: "count", Usage: commands.CountUsage},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Watch(ctx, store(cmd), cmd.Duration("interval"), int(cmd.Int("count")))
		},
	}, decl.Watch)

	imp := urfave.Annotate(&cli.Command{
		Name:  "import",
		Usage: commands.ImportUsage,
		Flags: []cli.Flag{&cli.StringFlag{Name: "defaults", Usage: commands.DefaultsUsage}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Import(ctx, store(cmd), cmd.String("defaults"))
		},
	}, decl.Import)

	remove := urfave.Annotate(&cli.Command{
		Name:      "remove",
		ArgsUsage: "<id>",
		Usage:     commands.RemoveUsage,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Remove(ctx, store(cmd), cmd.Args().First())
		},
	}, decl.Remove)

	tag := urfave.Annotate(&cli.Command{
		Name:      "tag",
		Usage:     commands.TagCmdUsage,
		ArgsUsage: "<tag> <ids>...",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			return commands.Tag(ctx, store(cmd), args[0], args[1:])
		},
	}, decl.Tag)

	archive := urfave.Annotate(&cli.Command{
		Name:  "archive",
		Usage: commands.ArchiveUsage,
		Flags: []cli.Flag{&cli.StringFlag{Name: "to", Usage: commands.ToUsage}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Archive(ctx, store(cmd), cmd.String("to"))
		},
	}, decl.Archive)

	export := urfave.Annotate(&cli.Command{
		Name:  "export",
		Usage: commands.ExportUsage,
		Flags: []cli.Flag{&cli.StringFlag{Name: "status", Value: "all", Usage: commands.StatusUsage}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return commands.Export(ctx, store(cmd), cmd.String("status"))
		},
	}, decl.Export)

	return urfave.Annotate(&cli.Command{
		Name:  commands.Tool,
		Usage: commands.ToolUsage,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Sources: cli.EnvVars(commands.FileEnv), Usage: commands.FileUsage},
		},
		Commands: []*cli.Command{add, list, show, done, purge, watch, imp, remove, tag, archive, export},
	}, commands.RootMeta())
}
