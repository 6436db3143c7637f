// Package commands is what the todo example's commands do and declare,
// independent of the CLI framework: cmd/todo wires them to urfave/cli and
// cmd/todo-cobra to cobra, and the two binaries answer alike. Only reading
// flags and arguments is left to the wiring.
package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// The words both wirings use, so help, --schema and describe match.
const (
	Tool      = "todo"
	ToolUsage = "A to-do list that serves people and agents"
	FileUsage = "the to-do file (default: $XDG_DATA_HOME/todo/todo.json)"
	FileEnv   = "TODO_FILE"

	AddUsage      = "Add a to-do"
	PriorityUsage = "low, normal or high"
	TagUsage      = "a tag; repeat for more"

	ListUsage   = "List to-dos"
	StatusUsage = "open, done or all"

	ShowUsage  = "Show one to-do"
	DoneUsage  = "Mark a to-do done (again is fine)"
	PurgeUsage = "Delete done to-dos for good (--all: every to-do)"
	AllUsage   = "delete open to-dos too"

	WatchUsage    = "Print the open to-dos once a second until stopped"
	IntervalUsage = "time between updates"
	CountUsage    = "stop after this many updates; 0 means never"
)

// Declarations are the Duet declarations of every command.
type Declarations struct {
	Add, List, Show, Done, Purge, Watch schema.Meta
}

// Declare returns the declarations. The commands that answer with one item
// share one output schema value, which Duet builds and describes once.
func Declare() Declarations {
	item := schema.Of[todo.Item]()
	idArg := []schema.Arg{{Name: "id", Required: true, Type: schema.String, ID: true, Usage: "the item's id, such as t3"}}
	notFound := exitcode.Table{exitcode.NotFound: {Description: "No to-do has that id."}}
	return Declarations{
		Add: schema.Meta{
			Danger: schema.Mutating,
			Output: item,
			Flags:  map[string]schema.FlagMeta{"priority": {Enum: todo.Priorities}},
			Args:   []schema.Arg{{Name: "title", Required: true, Type: schema.String, Usage: "what to do"}},
			Examples: []schema.Example{
				{Description: "add an urgent item", Command: `add "renew the certificate" --priority high`},
			},
		},
		List: schema.Meta{
			Danger: schema.Safe,
			List:   true,
			NoArgs: true,
			Output: schema.Of[[]todo.Item](),
			Flags:  map[string]schema.FlagMeta{"status": {Enum: []string{"open", "done", "all"}, Profile: true}},
			Examples: []schema.Example{
				{Description: "every item, ids only", Command: "list --status all --output id"},
			},
		},
		Show:  schema.Meta{Danger: schema.Safe, Output: item, Args: idArg, ExitCodes: notFound},
		Done:  schema.Meta{Danger: schema.Mutating, Output: item, Args: idArg, ExitCodes: notFound},
		Purge: schema.Meta{Danger: schema.Destructive, DryRun: true, NoArgs: true, Examples: []schema.Example{{Description: "see what would be deleted", Command: "purge --dry-run"}}},
		Watch: schema.Meta{Danger: schema.Safe, NoArgs: true, LongRunning: true},
	}
}

// RootMeta declares the root command's --file flag as read from TODO_FILE,
// and, like list's --status, one a saved profile may hold.
func RootMeta() schema.Meta {
	return schema.Meta{Flags: map[string]schema.FlagMeta{"file": {Env: []string{FileEnv}, Profile: true}}}
}

// Store opens the to-do file at path, or at the default path when it is empty.
func Store(path string) *todo.Store {
	if path == "" {
		path = todo.DefaultPath()
	}
	return &todo.Store{Path: path}
}

// within resolves the store's file against the invocation's working
// directory, which --cwd changes and the process's never does.
func within(ctx context.Context, s *todo.Store) *todo.Store {
	return &todo.Store{Path: string(envelope.From(ctx).Abs(s.Path)), Now: s.Now}
}

// Add adds a to-do and answers with it.
func Add(ctx context.Context, s *todo.Store, title, priority string, tags []string) error {
	s = within(ctx, s)
	it, err := s.Add(title, priority, todo.NormalizeTags(tags))
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
}

// List answers with the to-dos of a status: open, done or all.
func List(ctx context.Context, s *todo.Store, status string) error {
	s = within(ctx, s)
	items, err := s.List(status)
	if err != nil {
		return notFound(err, "")
	}
	return envelope.From(ctx).Result(items)
}

// Show answers with one to-do.
func Show(ctx context.Context, s *todo.Store, id string) error {
	s = within(ctx, s)
	it, err := s.Get(id)
	if err != nil {
		return notFound(err, id)
	}
	return envelope.From(ctx).Result(it)
}

// Done marks a to-do done; doing it again changes nothing and says so.
func Done(ctx context.Context, s *todo.Store, id string) error {
	s = within(ctx, s)
	it, changed, err := s.Done(id)
	if err != nil {
		return notFound(err, id)
	}
	out := envelope.From(ctx)
	out.Effect(envelope.Noop)
	if changed {
		out.Effect(envelope.Updated)
	} else {
		out.Warn("ALREADY_DONE", fmt.Sprintf("%s was already done; nothing changed", it.ID), "")
	}
	return out.Result(it)
}

// Purge deletes done to-dos (all of them with all), or with --dry-run says
// which it would.
func Purge(ctx context.Context, s *todo.Store, all bool) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	removed, err := s.Purge(all, out.DryRun())
	if err != nil {
		return notFound(err, "")
	}
	out.Effect(envelope.Deleted)
	if len(removed) == 0 {
		out.Effect(envelope.Noop)
	}
	if out.DryRun() {
		ids := make([]string, len(removed))
		for i, it := range removed {
			ids[i] = it.ID
		}
		out.WouldAffect(map[string]any{"todos": ids, "count": len(removed), "reversible": false})
	}
	return out.Result(map[string]any{"removed": removed, "count": len(removed)})
}

// Watch reports the number of open to-dos every interval, count times (0:
// until cancelled or timed out).
func Watch(ctx context.Context, s *todo.Store, interval time.Duration, count int) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for n := 1; ; n++ {
		items, err := s.List("open")
		if err != nil {
			return notFound(err, "")
		}
		if err := out.Item(map[string]any{"tick": n, "open": len(items)}); err != nil {
			return err
		}
		out.Progress("watching", n, count)
		if count > 0 && n >= count {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// notFound turns the store's sentinels into errors an agent can act on.
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
