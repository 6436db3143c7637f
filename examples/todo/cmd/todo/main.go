// Command todo is Duet's small example: a to-do list in a JSON file, built on
// urfave/cli v3 and wrapped with Duet so that it serves a person and an agent.
//
//	todo add "write the README" --priority high
//	todo list            # a table at a terminal, one JSON envelope in a pipe
//	todo done t1
//	todo purge --dry-run
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

var version = "0.1.0"

func main() {
	urfave.Main(newApp(), urfave.WithVersion(version))
}

func store(cmd *cli.Command) *todo.Store {
	path := cmd.String("file")
	if path == "" {
		path = todo.DefaultPath()
	}
	return &todo.Store{Path: path}
}

// notFound turns the store's sentinel into the error an agent can act on.
func notFound(err error, id string) error {
	if errors.Is(err, todo.ErrNotFound) {
		return envelope.Errorf(exitcode.NotFound, "TODO_NOT_FOUND", "no to-do with id %s", id).
			WithSuggestion("run 'todo list --status all' to see the ids")
	}
	var corrupt *todo.CorruptError
	if errors.As(err, &corrupt) {
		return envelope.Errorf(exitcode.Precondition, "STORE_CORRUPT", "%v", err).
			WithFix("repair or move the file "+corrupt.Path, "")
	}
	return err
}

var idArg = []schema.Arg{{Name: "id", Required: true, Type: schema.String, ID: true, Usage: "the item's id, such as t3"}}

func newApp() *cli.Command {
	// One schema value for the commands that return an item: it is built
	// once, and Wrap and describe handle a shared value once.
	item := schema.Of[todo.Item]()

	add := &cli.Command{
		Name:      "add",
		Usage:     "Add a to-do",
		ArgsUsage: "<title>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "normal", Usage: "low, normal or high"},
			&cli.StringSliceFlag{Name: "tag", Usage: "a tag; repeat for more"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			it, err := store(cmd).Add(cmd.Args().First(), cmd.String("priority"), todo.NormalizeTags(cmd.StringSlice("tag")))
			if err != nil {
				return notFound(err, "")
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			out.RenderText(func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Added %s: %s\n", it.ID, it.Title)
				return err
			})
			return out.Result(it)
		},
	}
	urfave.Annotate(add, schema.Meta{
		Danger: schema.Mutating,
		Output: item,
		Flags:  map[string]schema.FlagMeta{"priority": {Enum: todo.Priorities}},
		Args:   []schema.Arg{{Name: "title", Required: true, Type: schema.String, Usage: "what to do"}},
		Examples: []schema.Example{
			{Description: "add an urgent item", Command: `add "renew the certificate" --priority high`},
		},
	})

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
			return envelope.From(ctx).Result(items)
		},
	}
	urfave.Annotate(list, schema.Meta{
		Danger: schema.Safe,
		List:   true,
		Output: schema.Of[[]todo.Item](),
		Flags:  map[string]schema.FlagMeta{"status": {Enum: []string{"open", "done", "all"}}},
		Examples: []schema.Example{
			{Description: "every item, ids only", Command: "list --status all --output id"},
		},
	})

	show := &cli.Command{
		Name:  "show",
		Usage: "Show one to-do",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id := cmd.Args().First()
			it, err := store(cmd).Get(id)
			if err != nil {
				return notFound(err, id)
			}
			return envelope.From(ctx).Result(it)
		},
	}
	urfave.Annotate(show, schema.Meta{Danger: schema.Safe, Output: item, Args: idArg,
		ExitCodes: exitcode.Table{exitcode.NotFound: {Description: "No to-do has that id."}}})

	done := &cli.Command{
		Name:  "done",
		Usage: "Mark a to-do done (again is fine)",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id := cmd.Args().First()
			it, changed, err := store(cmd).Done(id)
			if err != nil {
				return notFound(err, id)
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Noop)
			if changed {
				out.Effect(envelope.Updated)
			}
			return out.Result(it)
		},
	}
	urfave.Annotate(done, schema.Meta{Danger: schema.Mutating, Output: item, Args: idArg,
		ExitCodes: exitcode.Table{exitcode.NotFound: {Description: "No to-do has that id."}}})

	purge := &cli.Command{
		Name:  "purge",
		Usage: "Delete done to-dos for good (--all: every to-do)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "delete open to-dos too"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			removed, err := store(cmd).Purge(cmd.Bool("all"), out.DryRun())
			if err != nil {
				return notFound(err, "")
			}
			out.Effect(envelope.Deleted)
			if len(removed) == 0 {
				out.Effect(envelope.Noop)
			}
			return out.Result(map[string]any{"removed": removed, "count": len(removed)})
		},
	}
	urfave.Annotate(purge, schema.Meta{Danger: schema.Destructive, Examples: []schema.Example{
		{Description: "see what would be deleted", Command: "purge --dry-run"},
	}})

	watch := &cli.Command{
		Name:  "watch",
		Usage: "Print the open to-dos once a second until stopped",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "time between updates"},
			&cli.IntFlag{Name: "count", Usage: "stop after this many updates; 0 means never"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			tick := time.NewTicker(cmd.Duration("interval"))
			defer tick.Stop()
			for n := 1; ; n++ {
				items, err := store(cmd).List("open")
				if err != nil {
					return notFound(err, "")
				}
				if err := out.Item(map[string]any{"tick": n, "open": len(items)}); err != nil {
					return err
				}
				out.Progress("watching", n, int(cmd.Int("count")))
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
	urfave.Annotate(watch, schema.Meta{Danger: schema.Safe})

	return &cli.Command{
		Name:  "todo",
		Usage: "A to-do list that serves people and agents",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Sources: cli.EnvVars("TODO_FILE"), Usage: "the to-do file (default: $XDG_DATA_HOME/todo/todo.json)"},
		},
		Commands: []*cli.Command{add, list, show, done, purge, watch},
	}
}
