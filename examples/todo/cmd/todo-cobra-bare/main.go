// Command todo-cobra-bare exists only as the benchmark baseline for
// bench/run.sh: it is cmd/todo-cobra (same commands, same flags, same store
// package) on plain cobra without Duet, each command printing its result as
// JSON to stdout itself. Comparing the two measures what Duet costs a whole
// cobra process. It is not an example to copy.
package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/examples/todo/internal/commands"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
)

var version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newApp().ExecuteContext(ctx)
	stop()
	if err != nil {
		os.Exit(1)
	}
}

// emit writes v to stdout as one JSON document.
func emit(v any) error { return json.NewEncoder(os.Stdout).Encode(v) }

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

func newApp() *cobra.Command {
	var file string
	store := func() *todo.Store {
		if file == "" {
			file = os.Getenv(commands.FileEnv)
		}
		return commands.Store(file)
	}

	var priority string
	var tags []string
	add := &cobra.Command{
		Use:   "add <title>",
		Short: commands.AddUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			it, err := store().Add(cmd.Context(), "", first(args), priority, todo.NormalizeTags(tags))
			if err != nil {
				return err
			}
			return emit(it)
		},
	}
	add.Flags().StringVarP(&priority, "priority", "p", "normal", commands.PriorityUsage)
	add.Flags().StringSliceVar(&tags, "tag", nil, commands.TagUsage)

	var status string
	list := &cobra.Command{
		Use:   "list",
		Short: commands.ListUsage,
		RunE: func(*cobra.Command, []string) error {
			items, err := store().List(status)
			if err != nil {
				return err
			}
			return emit(items)
		},
	}
	list.Flags().StringVar(&status, "status", "open", commands.StatusUsage)

	show := &cobra.Command{
		Use:   "show",
		Short: commands.ShowUsage,
		RunE: func(_ *cobra.Command, args []string) error {
			it, err := store().Get(first(args))
			if err != nil {
				return err
			}
			return emit(it)
		},
	}

	done := &cobra.Command{
		Use:   "done",
		Short: commands.DoneUsage,
		RunE: func(cmd *cobra.Command, args []string) error {
			it, _, err := store().Done(cmd.Context(), first(args))
			if err != nil {
				return err
			}
			return emit(it)
		},
	}

	var all bool
	purge := &cobra.Command{
		Use:   "purge",
		Short: commands.PurgeUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			removed, err := store().Purge(cmd.Context(), all, false)
			if err != nil {
				return err
			}
			return emit(map[string]any{"removed": removed, "count": len(removed)})
		},
	}
	purge.Flags().BoolVar(&all, "all", false, commands.AllUsage)

	var interval time.Duration
	var count int
	watch := &cobra.Command{
		Use:   "watch",
		Short: commands.WatchUsage,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for n := 1; ; n++ {
				items, err := store().List("open")
				if err != nil {
					return err
				}
				if err := emit(map[string]any{"tick": n, "open": len(items)}); err != nil {
					return err
				}
				if count > 0 && n >= count {
					return nil
				}
				select {
				case <-cmd.Context().Done():
					return cmd.Context().Err()
				case <-tick.C:
				}
			}
		},
	}
	watch.Flags().DurationVar(&interval, "interval", time.Second, commands.IntervalUsage)
	watch.Flags().IntVar(&count, "count", 0, commands.CountUsage)

	root := &cobra.Command{Use: commands.Tool, Short: commands.ToolUsage, Version: version}
	root.PersistentFlags().StringVar(&file, "file", "", commands.FileUsage)
	root.AddCommand(add, list, show, done, purge, watch)
	return root
}
