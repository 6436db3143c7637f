// Package commands is what the todo example's commands do and declare,
// independent of the CLI framework: cmd/todo wires them to urfave/cli and
// cmd/todo-cobra to cobra, cmd/todo-v2 to urfave/cli v2, and the binaries
// answer alike. Only reading flags and arguments is left to the wiring.
package commands

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/todo/internal/todo"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/feature/json5"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/safefile"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/schema"
)

// The words every wiring uses, so help, --schema and describe match.
const (
	Tool      = "todo"
	ToolUsage = "A to-do list that serves people and agents"
	FileUsage = "the to-do file (default: $XDG_DATA_HOME/todo/todo.json)"
	FileEnv   = "TODO_FILE"
	// DataHomeEnv is read by todo.DefaultPath; both wirings declare it
	// with WithEnvVar, so that AGENTS.md lists it.
	DataHomeEnv      = "XDG_DATA_HOME"
	DataHomeEnvUsage = "the directory the default to-do file is kept under, as todo/todo.json, when neither --file nor TODO_FILE is given (default: ~/.local/share)"

	AddUsage      = "Add a to-do"
	PriorityUsage = "low, normal or high"
	TagUsage      = "a tag; repeat for more"
	IDUsage       = "the new to-do's id, such as release-notes (default: the next t<n>)"

	ListUsage   = "List to-dos"
	StatusUsage = "open, done or all"

	ShowUsage  = "Show one to-do"
	DoneUsage  = "Mark a to-do done (again is fine)"
	PurgeUsage = "Delete done to-dos for good (--all: every to-do)"
	AllUsage   = "delete open to-dos too"

	WatchUsage    = "Print the open to-dos once a second until stopped"
	IntervalUsage = "time between updates"
	CountUsage    = "stop after this many updates; 0 means never"

	ImportUsage   = "Add to-dos from JSON lines on stdin (or --input-file), all or none"
	DefaultsUsage = "a JSON object of what every imported to-do that does not say gets, such as {priority: 'high', tags: ['inbox']}"
	RemoveUsage   = "Delete one to-do (a missing one is fine: status not_found)"
	TagCmdUsage   = "Tag several to-dos at once"
	ArchiveUsage  = "Move done to-dos to an archive file: back up, archive, prune"
	ToUsage       = "the archive file (default: the to-do file with .archive.json)"
	ExportUsage   = "Export to-dos to a JSON file, as a job (follow it with 'todo job status')"
)

// idPattern is what a to-do's id looks like: t3 as add numbers them, or
// one given with add --id.
const idPattern = `^[a-z][a-z0-9-]{0,39}$`

// Declarations are the Duet declarations of every command.
type Declarations struct {
	Add, List, Show, Done, Purge, Watch schema.Meta
	Import                              schema.Meta
	Remove, Tag, Archive, Export        schema.Meta
}

// Declare returns the declarations. The commands that answer with one item
// share one output schema value, which Duet builds and describes once.
func Declare() Declarations {
	item := schema.Of[todo.Item]()
	idArg := []schema.Arg{{Name: "id", Required: true, Type: schema.String, ID: true, Pattern: idPattern, Pipe: true, Usage: "the item's id, such as t3; - reads it from stdin"}}
	notFound := exitcode.Table{exitcode.NotFound: {Description: "No to-do has that id."}}
	return Declarations{
		Add: schema.Meta{
			Danger: schema.Mutating,
			Output: item,
			Flags: map[string]schema.FlagMeta{
				"priority": {Enum: todo.Priorities},
				"id":       {ID: true, Pattern: idPattern},
			},
			Args: []schema.Arg{{Name: "title", Required: true, Type: schema.String, Usage: "what to do"}},
			Examples: []schema.Example{
				{Description: "add an urgent item", Command: `add "renew the certificate" --priority high`},
				{Description: "the same, as one JSON object", Command: `add --raw-payload '{"title": "renew the certificate", "priority": "high"}'`},
				{Description: "add it once, however often the call is retried", Command: `add "ship it" --id ship --idempotency-key ship-1`},
			},
			RawPayload: true,
			ExitCodes: exitcode.Table{exitcode.Conflict: {
				Description: "A to-do with that --id exists (data holds it), or the --idempotency-key was used for another call.",
				ErrorCodes:  []string{"ALREADY_EXISTS", "IDEMPOTENCY_KEY_REUSED"}}},
		},
		List: schema.Meta{
			Danger: schema.Safe,
			List:   true,
			NoArgs: true,
			Output: schema.Of[[]todo.Item](),
			Flags:  map[string]schema.FlagMeta{"status": {Enum: []string{"open", "done", "all"}, Profile: true}},
			Examples: []schema.Example{
				{Description: "every item, ids only", Command: "list --status all --format id"},
			},
		},
		Show:  schema.Meta{Danger: schema.Safe, Output: item, Args: idArg, ExitCodes: notFound},
		Done:  schema.Meta{Danger: schema.Mutating, Output: item, Args: idArg, ExitCodes: notFound},
		Purge: schema.Meta{Danger: schema.Destructive, DryRun: true, NoArgs: true, Examples: []schema.Example{{Description: "see what would be deleted", Command: "purge --dry-run"}}},
		Watch: schema.Meta{Danger: schema.Safe, NoArgs: true, LongRunning: true, Validate: positiveInterval},
		Import: schema.Meta{
			Danger: schema.Mutating,
			NoArgs: true,
			Output: schema.Of[[]todo.Item](),
			Stdin:  `JSON lines, one to-do each: {"title": "...", "priority": "low|normal|high", "tags": ["..."]} (JSON5 accepted)`,
			Flags:  map[string]schema.FlagMeta{"defaults": {JSON: true}},
			// Every line is checked before anything is added, and with
			// --validate-only too.
			Validate: ValidateImport,
			Examples: []schema.Example{
				{Description: "import from a file of any size", Command: "import --input-file todos.jsonl"},
				{Description: "import what is piped, high priority unless a line says", Command: `import --defaults "{priority: 'high'}"`},
			},
		},
		Remove: schema.Meta{Danger: schema.Destructive, DryRun: true, Args: idArg,
			ExitCodes: exitcode.Table{
				exitcode.Success:  {Description: "The to-do was deleted, or there was none with that id (data.status not_found)."},
				exitcode.NotFound: {Description: "Not used: removing a to-do that does not exist succeeds with data.status not_found."},
			}},
		Tag: schema.Meta{Danger: schema.Mutating,
			Args: []schema.Arg{
				{Name: "tag", Required: true, Type: schema.String, Usage: "the tag to add"},
				{Name: "ids", Required: true, Variadic: true, Type: schema.String, ID: true, Pattern: idPattern, Usage: "the to-dos to tag"},
			},
			ExitCodes: exitcode.Table{
				exitcode.PartialFailure: {Description: "Some to-dos were tagged and some were not: data.results says which."},
				exitcode.NotFound:       {Description: "None of the ids names a to-do."},
			},
			Examples: []schema.Example{{Description: "tag three to-dos", Command: "tag urgent t1 t2 t3"}}},
		Archive: schema.Meta{Danger: schema.Mutating, NoArgs: true, Steps: ArchiveSteps, Rollback: true,
			Flags:     map[string]schema.FlagMeta{"to": {Path: schema.InProject}},
			ExitCodes: exitcode.Table{exitcode.PartialFailure: {Description: "A step failed after others completed: data says which, and where to --resume-from."}},
			Examples: []schema.Example{
				{Description: "archive, undoing everything if a step fails", Command: "archive --rollback-on-failure"},
				{Description: "finish a run that failed at the archive step", Command: "archive --resume-from archive"},
			}},
		Export: schema.Meta{Danger: schema.Mutating, NoArgs: true, Async: true, Timeout: 10 * time.Minute,
			Flags:    map[string]schema.FlagMeta{"status": {Enum: []string{"open", "done", "all"}}},
			Examples: []schema.Example{{Description: "export everything, then wait for the file", Command: "export && todo job status <job_id> --wait"}}},
	}
}

// ArchiveSteps are the steps of archive, in order.
var ArchiveSteps = []string{"backup", "archive", "prune"}

// RootMeta declares the root command's --file flag as read from TODO_FILE,
// and, like list's --status, one a saved profile may hold.
func RootMeta() schema.Meta {
	return schema.Meta{Flags: map[string]schema.FlagMeta{"file": {Env: []string{FileEnv}, Profile: true, Path: schema.InProject}}}
}

// Store opens the to-do file at path, or at the default path when it is
// empty. Its lock is Duet's: a change that waits for it too long answers
// LOCK_HELD, and it is released when the command ends however it ends.
func Store(path string) *todo.Store {
	if path == "" {
		path = todo.DefaultPath()
	}
	return &todo.Store{Path: path, Lock: func(ctx context.Context, path string, fn func() error) error {
		return lock.With(ctx, path, 0, fn)
	}}
}

// within resolves the store's file against the invocation's working
// directory, which --cwd changes and the process's never does.
func within(ctx context.Context, s *todo.Store) *todo.Store {
	in := *s
	in.Path = string(envelope.From(ctx).Abs(s.Path))
	return &in
}

// Add adds a to-do, under id when it is not empty, and answers with it. A
// to-do with that id already is answered as ALREADY_EXISTS, with it as data.
func Add(ctx context.Context, s *todo.Store, id, title, priority string, tags []string) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	it, err := s.Add(ctx, id, title, priority, todo.NormalizeTags(tags))
	var exists *todo.ExistsError
	if errors.As(err, &exists) {
		return out.AlreadyExists(id, exists.Item, "a to-do with id %s already exists", id)
	}
	if err != nil {
		return notFound(err, "")
	}
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
	it, changed, err := s.Done(ctx, id)
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
	removed, err := s.Purge(ctx, all, out.DryRun())
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

// positiveInterval refuses a watch --interval of 0 or less in phase 1: a
// ticker takes a positive one (it panicked).
func positiveInterval(_ context.Context, in schema.Input) error {
	v := in.String("interval")
	if d, err := time.ParseDuration(v); err == nil && d <= 0 {
		return envelope.Invalid([]envelope.FieldError{{Code: "OUT_OF_RANGE", Field: "interval",
			Message: fmt.Sprintf("--interval must be more than 0, not %s", v)}})
	}
	return nil
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

// Import adds the to-dos of the input, one JSON object (JSON5 accepted) per
// line: every line is checked first, and every problem reported at once,
// so that nothing is added unless all of it can be. defaults is a JSON
// object of the priority and tags a line that gives none gets.
//
// The checks are import's Meta.Validate (ValidateImport), which Duet runs
// before the command, and for --validate-only: the input is refused there,
// with nothing changed. They run again here, for a caller of Import that
// is not Duet's lifecycle.
func Import(ctx context.Context, s *todo.Store, defaults string) error {
	s = within(ctx, s)
	news, err := readImport(ctx, defaults)
	if err != nil {
		return err
	}
	added, err := s.AddAll(ctx, news)
	if err != nil {
		return notFound(err, "")
	}
	out := envelope.From(ctx)
	out.Effect(envelope.Created)
	if len(added) == 0 {
		out.Effect(envelope.Noop)
	}
	out.RenderText(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Imported %d to-dos\n", len(added))
		return err
	})
	return out.Result(added)
}

// ValidateImport is import's phase-1 check (schema.Meta.Validate): --defaults
// and every line of the payload, as Import reads them, changing nothing.
func ValidateImport(ctx context.Context, in schema.Input) error {
	_, err := readImport(ctx, in.String("defaults"))
	return err
}

// readImport reads the payload as to-dos to add: every problem of it at
// once (envelope.Invalid), or --defaults' alone when that is wrong.
func readImport(ctx context.Context, defaults string) ([]todo.New, error) {
	type entry struct {
		Title    string   `json:"title"`
		Priority string   `json:"priority"`
		Tags     []string `json:"tags"`
	}
	var base entry
	if defaults != "" {
		strict, err := json5.Normalize([]byte(defaults))
		if err == nil {
			err = strictDecode(strict, &base)
		}
		if err == nil && base.Title != "" {
			err = errors.New("a title is no default")
		}
		if err != nil {
			return nil, envelope.Validationf("INVALID_DEFAULTS", "--defaults: want an object of priority and tags: %v", envelope.As(err).Message).WithField("defaults")
		}
	}
	r, err := input.From(ctx).Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var news []todo.New
	var problems []envelope.FieldError
	lines := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := lines.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			field := fmt.Sprintf("line %d", n)
			e := base
			strict, jerr := json5.Normalize(text)
			var derr error
			if jerr == nil {
				derr = strictDecode(strict, &e)
			}
			switch {
			case jerr != nil:
				bad := envelope.As(jerr)
				problems = append(problems, envelope.FieldError{Code: bad.Code, Field: field, Message: field + ": " + bad.Message, CorrectedInput: bad.CorrectedInput})
			case derr != nil:
				problems = append(problems, envelope.FieldError{Code: "INVALID_TODO", Field: field, Message: field + ": " + derr.Error()})
			case e.Title == "":
				problems = append(problems, envelope.FieldError{Code: "INVALID_TODO", Field: field, Message: field + ": a to-do needs a title"})
			case e.Priority != "" && !slices.Contains(todo.Priorities, e.Priority):
				problems = append(problems, envelope.FieldError{Code: "INVALID_ENUM_VALUE", Field: field, ValidValues: todo.Priorities,
					Message: fmt.Sprintf("%s: priority must be one of %s, not %q", field, strings.Join(todo.Priorities, ", "), e.Priority)})
			default:
				news = append(news, todo.New{Title: e.Title, Priority: cmp.Or(e.Priority, "normal"), Tags: todo.NormalizeTags(e.Tags)})
			}
		}
		if err != nil {
			break
		}
	}
	if len(problems) > 0 {
		return nil, envelope.Invalid(problems)
	}
	return news, nil
}

// strictDecode decodes one JSON object into v, refusing unknown fields.
func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Remove deletes one to-do. Removing one that does not exist succeeds with
// data.status not_found: the state asked for holds.
func Remove(ctx context.Context, s *todo.Store, id string) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	it, found, err := s.Remove(ctx, id, out.DryRun())
	if err != nil {
		return notFound(err, id)
	}
	if !found {
		out.Effect(envelope.Noop)
		return out.Result(map[string]any{"status": "not_found", "id": id})
	}
	out.Effect(envelope.Deleted)
	if out.DryRun() {
		out.WouldAffect(map[string]any{"todos": []string{id}, "count": 1, "reversible": false})
	}
	return out.Result(map[string]any{"status": "deleted", "id": id, "todo": it})
}

// Tag adds a tag to several to-dos, and answers item by item: a batch whose
// summary and results say which were tagged and which were not.
func Tag(ctx context.Context, s *todo.Store, tag string, ids []string) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	tagged, err := s.Tag(ctx, todo.NormalizeTags([]string{tag})[0], ids)
	if err != nil {
		return notFound(err, "")
	}
	b := out.Batch()
	for _, t := range tagged {
		switch {
		case t.Err != nil:
			b.Fail(t.ID, notFound(t.Err, t.ID))
		case t.Changed:
			b.OK(t.ID, envelope.Updated, t.Item)
		default:
			b.OK(t.ID, envelope.Noop, t.Item)
		}
	}
	return b.Finish()
}

// Archive moves the done to-dos to an archive file in three steps — back
// the to-do file up, add the done ones to the archive, prune them from the
// to-do file — each of which can be undone (--rollback-on-failure) and
// resumed from (--resume-from).
func Archive(ctx context.Context, s *todo.Store, to string) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	if to == "" {
		to = s.Path + ".archive.json"
	}
	var moved []todo.Item
	err := out.Step(ctx, "backup", func(ctx context.Context) error {
		out.Undo(func(context.Context) error { return removeIfExists(s.BackupPath()) })
		return notFound(s.Backup(ctx), "")
	})
	if err == nil {
		err = out.Step(ctx, "archive", func(ctx context.Context) error {
			done, err := s.Snapshot(ctx, "done")
			if err != nil {
				return notFound(err, "")
			}
			// The archive is read as the store is: a regular file, capped —
			// never a device that reads without end (--to /dev/full).
			before, err := safefile.ReadFile(to, todo.MaxStore)
			existed := err == nil
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return unwritable(to, err)
			}
			out.Undo(func(context.Context) error {
				if existed {
					return atomicfile.Write(to, before, 0o600)
				}
				return removeIfExists(to)
			})
			var archived []todo.Item
			if existed && json.Unmarshal(before, &archived) != nil {
				return unwritable(to, errors.New("it is not a JSON list of to-dos"))
			}
			raw, _ := json.MarshalIndent(append(archived, done...), "", "  ")
			if err := atomicfile.Write(to, append(raw, '\n'), 0o600); err != nil {
				return unwritable(to, err)
			}
			moved = done
			return nil
		})
	}
	if err == nil {
		err = out.Step(ctx, "prune", func(ctx context.Context) error {
			out.Undo(func(ctx context.Context) error { return s.Restore(ctx) })
			_, err := s.Purge(ctx, false, false)
			return notFound(err, "")
		})
	}
	if err != nil {
		return err
	}
	out.Effect(envelope.Updated)
	if len(moved) == 0 {
		out.Effect(envelope.Noop)
	}
	return out.Result(map[string]any{"archived": len(moved), "archive": to, "backup": s.BackupPath()})
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func unwritable(path string, err error) error {
	return envelope.Errorf(exitcode.Precondition, "ARCHIVE_UNWRITABLE", "cannot write the archive %s: %v", path, err).
		WithFix("pass --to with a writable file", "")
}

// Export writes the to-dos of a status to a JSON file for the caller. It is
// an async command: the caller gets a job at once, and the file's path in
// the job's answer. The to-do file is read under its lock, so the export
// is one consistent state.
func Export(ctx context.Context, s *todo.Store, status string) error {
	s = within(ctx, s)
	out := envelope.From(ctx)
	out.Progress("waiting for the to-do file", 0, 0)
	items, err := s.Snapshot(ctx, status)
	if err != nil {
		return notFound(err, "")
	}
	f, cleanup, err := out.OutputFile("todos.json")
	if err != nil {
		return err
	}
	defer f.Close()
	raw, _ := json.MarshalIndent(items, "", "  ")
	if _, err := f.Write(append(raw, '\n')); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	out.Effect(envelope.Created) // the file it wrote
	return out.Result(map[string]any{"output_file": f.Name(), "count": len(items), "cleanup": cleanup})
}

// notFound turns the store's sentinels into errors an agent can act on.
func notFound(err error, id string) error {
	if err == nil {
		return nil
	}
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
