// Command todo-cobra is the todo example built on cobra instead of urfave/cli:
// the same commands (internal/commands), wired the cobra way, wrapped with
// Duet's cobra adapter. It answers exactly as cmd/todo does.
package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/examples/todo/internal/commands"
	"github.com/duet-cli/duet/examples/todo/internal/options"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
)

var version = "0.1.0"

func main() {
	opts := options.For(version, serveMCP()...)
	// exec runs every line of a batch in this process, on a todo made anew.
	opts = append(opts, adapters.WithNewApp(func() (adapters.Framework, error) { return duetcobra.Wrap(newApp(), opts...) }))
	duetcobra.Main(newApp(), opts...)
}

func newApp() *cobra.Command {
	decl := commands.Declare()
	var file string
	store := func() *todo.Store { return commands.Store(file) }

	var priority, id string
	var tags []string
	add := duetcobra.Annotate(&cobra.Command{
		Use:   "add <title>",
		Short: commands.AddUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			return commands.Add(cmd.Context(), store(), id, first(args), priority, tags)
		},
	}, decl.Add)
	add.Flags().StringVarP(&priority, "priority", "p", "normal", commands.PriorityUsage)
	add.Flags().StringSliceVar(&tags, "tag", nil, commands.TagUsage)
	add.Flags().StringVar(&id, "id", "", commands.IDUsage)

	var status string
	list := duetcobra.Annotate(&cobra.Command{
		Use:   "list",
		Short: commands.ListUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return commands.List(cmd.Context(), store(), status)
		},
	}, decl.List)
	list.Flags().StringVar(&status, "status", "open", commands.StatusUsage)

	show := duetcobra.Annotate(&cobra.Command{
		Use:   "show <id>",
		Short: commands.ShowUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			return commands.Show(cmd.Context(), store(), first(args))
		},
	}, decl.Show)

	done := duetcobra.Annotate(&cobra.Command{
		Use:   "done <id>",
		Short: commands.DoneUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			return commands.Done(cmd.Context(), store(), first(args))
		},
	}, decl.Done)

	var all bool
	purge := duetcobra.Annotate(&cobra.Command{
		Use:   "purge",
		Short: commands.PurgeUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return commands.Purge(cmd.Context(), store(), all)
		},
	}, decl.Purge)
	purge.Flags().BoolVar(&all, "all", false, commands.AllUsage)

	var interval time.Duration
	var count int
	watch := duetcobra.Annotate(&cobra.Command{
		Use:   "watch",
		Short: commands.WatchUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return commands.Watch(cmd.Context(), store(), interval, count)
		},
	}, decl.Watch)
	watch.Flags().DurationVar(&interval, "interval", time.Second, commands.IntervalUsage)
	watch.Flags().IntVar(&count, "count", 0, commands.CountUsage)

	var defaults string
	imp := duetcobra.Annotate(&cobra.Command{
		Use:   "import",
		Short: commands.ImportUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return commands.Import(cmd.Context(), store(), defaults)
		},
	}, decl.Import)
	imp.Flags().StringVar(&defaults, "defaults", "", commands.DefaultsUsage)

	remove := duetcobra.Annotate(&cobra.Command{
		Use:   "remove <id>",
		Short: commands.RemoveUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			return commands.Remove(cmd.Context(), store(), first(args))
		},
	}, decl.Remove)

	tag := duetcobra.Annotate(&cobra.Command{
		Use:   "tag <tag> <ids>...",
		Short: commands.TagCmdUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			return commands.Tag(cmd.Context(), store(), args[0], args[1:])
		},
	}, decl.Tag)

	var to string
	archive := duetcobra.Annotate(&cobra.Command{
		Use:   "archive",
		Short: commands.ArchiveUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return commands.Archive(cmd.Context(), store(), to)
		},
	}, decl.Archive)
	archive.Flags().StringVar(&to, "to", "", commands.ToUsage)

	var exportStatus string
	export := duetcobra.Annotate(&cobra.Command{
		Use:   "export",
		Short: commands.ExportUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return commands.Export(cmd.Context(), store(), exportStatus)
		},
	}, decl.Export)
	export.Flags().StringVar(&exportStatus, "status", "all", commands.StatusUsage)

	root := duetcobra.Annotate(&cobra.Command{Use: commands.Tool, Short: commands.ToolUsage}, commands.RootMeta())
	root.PersistentFlags().StringVar(&file, "file", "", commands.FileUsage)
	root.AddCommand(add, list, show, done, purge, watch, imp, remove, tag, archive, export)
	return root
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
