// Command todo-bare exists only as the benchmark baseline for bench/run.sh: it
// is the todo example (same commands, same flags, same store package) built on
// plain urfave/cli v3 without Duet, with each action printing its result as
// JSON to stdout itself. Comparing it with the wrapped todo measures what Duet
// costs a whole process. It is not an example to copy.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/examples/todo/internal/todo"
)

var version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newApp().Run(ctx, os.Args)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "todo:", err)
		var coder cli.ExitCoder
		if errors.As(err, &coder) {
			os.Exit(coder.ExitCode())
		}
		os.Exit(1)
	}
}

func store(cmd *cli.Command) *todo.Store {
	path := cmd.String("file")
	if path == "" {
		path = todo.DefaultPath()
	}
	return &todo.Store{Path: path}
}

// emit writes v to stdout as one JSON document.
func emit(v any) error { return json.NewEncoder(os.Stdout).Encode(v) }

// notFound gives the store's sentinel the same exit code the wrapped app uses.
func notFound(err error, id string) error {
	if errors.Is(err, todo.ErrNotFound) {
		return cli.Exit(fmt.Sprintf("no to-do with id %s", id), 5)
	}
	var corrupt *todo.CorruptError
	if errors.As(err, &corrupt) {
		return cli.Exit(err.Error(), 4)
	}
	return err
}

func newApp() *cli.Command {
	add := &cli.Command{
		Name:      "add",
		Usage:     "Add a to-do",
		ArgsUsage: "<title>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "normal", Usage: "low, normal or high"},
			&cli.StringSliceFlag{Name: "tag", Usage: "a tag; repeat for more"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			it, err := store(cmd).Add(ctx, "", cmd.Args().First(), cmd.String("priority"), todo.NormalizeTags(cmd.StringSlice("tag")))
			if err != nil {
				return notFound(err, "")
			}
			return emit(it)
		},
	}

	list := &cli.Command{
		Name:  "list",
		Usage: "List to-dos",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Value: "open", Usage: "open, done or all"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			items, err := store(cmd).List(cmd.String("status"))
			if err != nil {
				return notFound(err, "")
			}
			return emit(items)
		},
	}

	show := &cli.Command{
		Name:  "show",
		Usage: "Show one to-do",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id := cmd.Args().First()
			it, err := store(cmd).Get(id)
			if err != nil {
				return notFound(err, id)
			}
			return emit(it)
		},
	}

	done := &cli.Command{
		Name:  "done",
		Usage: "Mark a to-do done (again is fine)",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id := cmd.Args().First()
			it, _, err := store(cmd).Done(ctx, id)
			if err != nil {
				return notFound(err, id)
			}
			return emit(it)
		},
	}

	purge := &cli.Command{
		Name:  "purge",
		Usage: "Delete done to-dos for good (--all: every to-do)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "delete open to-dos too"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			removed, err := store(cmd).Purge(ctx, cmd.Bool("all"), false)
			if err != nil {
				return notFound(err, "")
			}
			return emit(map[string]any{"removed": removed, "count": len(removed)})
		},
	}

	watch := &cli.Command{
		Name:  "watch",
		Usage: "Print the open to-dos once a second until stopped",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "time between updates"},
			&cli.IntFlag{Name: "count", Usage: "stop after this many updates; 0 means never"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			tick := time.NewTicker(cmd.Duration("interval"))
			defer tick.Stop()
			for n := 1; ; n++ {
				items, err := store(cmd).List("open")
				if err != nil {
					return notFound(err, "")
				}
				if err := emit(map[string]any{"tick": n, "open": len(items)}); err != nil {
					return err
				}
				if c := cmd.Int("count"); c > 0 && n >= int(c) {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-tick.C:
				}
			}
		},
	}

	return &cli.Command{
		Name:    "todo",
		Usage:   "A to-do list that serves people and agents",
		Version: version,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Sources: cli.EnvVars("TODO_FILE"), Usage: "the to-do file (default: $XDG_DATA_HOME/todo/todo.json)"},
		},
		Commands: []*cli.Command{add, list, show, done, purge, watch},
	}
}
