// Command todo-v2 is the todo example built on urfave/cli v2: the same
// commands (internal/commands), wired the v2 way, wrapped with Duet's v2
// adapter. It answers exactly as cmd/todo and cmd/todo-cobra do, given its
// flags before its arguments, as v2 reads them.
package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfavev2"
	"github.com/duet-cli/duet/examples/todo/internal/commands"
	"github.com/duet-cli/duet/examples/todo/internal/options"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
)

var version = "0.1.0"

func main() {
	opts := options.For(version, serveMCP()...)
	// exec runs every line of a batch in this process, on a todo made anew.
	opts = append(opts, adapters.WithNewApp(func() (adapters.Framework, error) { return urfavev2.Wrap(newApp(), opts...) }))
	urfavev2.Main(newApp(), opts...)
}

// fileFlag is todo's global --file. A v2 app takes a flag after a
// command's name only if the command declares it: every command does.
func fileFlag() cli.Flag {
	return &cli.StringFlag{Name: "file", EnvVars: []string{commands.FileEnv}, Usage: commands.FileUsage}
}

func store(c *cli.Context) *todo.Store {
	for _, ctx := range c.Lineage() { // where the command line set it: before or after the command's name
		if ctx.IsSet("file") {
			return commands.Store(ctx.String("file"))
		}
	}
	return commands.Store(c.String("file"))
}

func newApp() *cli.App {
	app := &cli.App{Name: commands.Tool, Usage: commands.ToolUsage, Flags: []cli.Flag{fileFlag()}}
	decl := commands.Declare()
	app.Commands = []*cli.Command{
		urfavev2.Annotate(app, &cli.Command{
			Name:      "add",
			Usage:     commands.AddUsage,
			ArgsUsage: "<title>",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "normal", Usage: commands.PriorityUsage},
				&cli.StringSliceFlag{Name: "tag", Usage: commands.TagUsage},
				&cli.StringFlag{Name: "id", Usage: commands.IDUsage},
				fileFlag(),
			},
			Action: func(c *cli.Context) error {
				return commands.Add(c.Context, store(c), c.String("id"), c.Args().First(), c.String("priority"), c.StringSlice("tag"))
			},
		}, decl.Add),
		urfavev2.Annotate(app, &cli.Command{
			Name:  "list",
			Usage: commands.ListUsage,
			Flags: []cli.Flag{&cli.StringFlag{Name: "status", Value: "open", Usage: commands.StatusUsage}, fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.List(c.Context, store(c), c.String("status"))
			},
		}, decl.List),
		urfavev2.Annotate(app, &cli.Command{
			Name:      "show",
			ArgsUsage: "<id>",
			Usage:     commands.ShowUsage,
			Flags:     []cli.Flag{fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Show(c.Context, store(c), c.Args().First())
			},
		}, decl.Show),
		urfavev2.Annotate(app, &cli.Command{
			Name:      "done",
			ArgsUsage: "<id>",
			Usage:     commands.DoneUsage,
			Flags:     []cli.Flag{fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Done(c.Context, store(c), c.Args().First())
			},
		}, decl.Done),
		urfavev2.Annotate(app, &cli.Command{
			Name:  "purge",
			Usage: commands.PurgeUsage,
			Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: commands.AllUsage}, fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Purge(c.Context, store(c), c.Bool("all"))
			},
		}, decl.Purge),
		urfavev2.Annotate(app, &cli.Command{
			Name:  "watch",
			Usage: commands.WatchUsage,
			Flags: []cli.Flag{
				&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: commands.IntervalUsage},
				&cli.IntFlag{Name: "count", Usage: commands.CountUsage},
				fileFlag(),
			},
			Action: func(c *cli.Context) error {
				return commands.Watch(c.Context, store(c), c.Duration("interval"), c.Int("count"))
			},
		}, decl.Watch),
		urfavev2.Annotate(app, &cli.Command{
			Name:  "import",
			Usage: commands.ImportUsage,
			Flags: []cli.Flag{&cli.StringFlag{Name: "defaults", Usage: commands.DefaultsUsage}, fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Import(c.Context, store(c), c.String("defaults"))
			},
		}, decl.Import),
		urfavev2.Annotate(app, &cli.Command{
			Name:      "remove",
			ArgsUsage: "<id>",
			Usage:     commands.RemoveUsage,
			Flags:     []cli.Flag{fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Remove(c.Context, store(c), c.Args().First())
			},
		}, decl.Remove),
		urfavev2.Annotate(app, &cli.Command{
			Name:      "tag",
			Usage:     commands.TagCmdUsage,
			ArgsUsage: "<tag> <ids>...",
			Flags:     []cli.Flag{fileFlag()},
			Action: func(c *cli.Context) error {
				args := c.Args().Slice()
				return commands.Tag(c.Context, store(c), args[0], args[1:])
			},
		}, decl.Tag),
		urfavev2.Annotate(app, &cli.Command{
			Name:  "archive",
			Usage: commands.ArchiveUsage,
			Flags: []cli.Flag{&cli.StringFlag{Name: "to", Usage: commands.ToUsage}, fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Archive(c.Context, store(c), c.String("to"))
			},
		}, decl.Archive),
		urfavev2.Annotate(app, &cli.Command{
			Name:  "export",
			Usage: commands.ExportUsage,
			Flags: []cli.Flag{&cli.StringFlag{Name: "status", Value: "all", Usage: commands.StatusUsage}, fileFlag()},
			Action: func(c *cli.Context) error {
				return commands.Export(c.Context, store(c), c.String("status"))
			},
		}, decl.Export),
	}
	urfavev2.Annotate(app, nil, commands.RootMeta())
	return app
}
