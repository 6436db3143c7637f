package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/schema"
)

// longworkCommands are the commands whose work can outlive the caller's
// call budget (CLI Agent Spec §79): crunch detaches into a job, and grind
// too, within a lifetime; tally and journal checkpoint and resume, and
// logbook, journal's twin, does both; linesum checkpoints its way through
// the lines of stdin.
func longworkCommands() []*cli.Command {
	return []*cli.Command{
		worker("crunch", schema.Interruption{Detach: true, IdleTimeout: crunchIdle}),
		worker("grind", schema.Interruption{Detach: true, MaxLifetime: grindLifetime}),
		resumable("tally", schema.Safe, false), resumable("journal", schema.Mutating, false),
		resumable("logbook", schema.Mutating, true),
		linesumCommand(),
	}
}

// longworkOptions are the Duet options the longwork commands need.
func longworkOptions() []urfave.Option { return nil }

// crunchIdle is crunch's idle limit: a job of it that reports no progress
// for this long is STALLED.
const crunchIdle = 1500 * time.Millisecond

// grindLifetime is grind's max lifetime: its work, in a call or a job,
// ends TIMEOUT past it.
const grindLifetime = 2 * time.Second

// worker (crunch, grind) works through --items items, one each --every, reporting
// each. --stall-after stops the reports after that many items, the work
// then waiting for its end; --back reports done going back after the last
// item; --hold makes it, after its last report, create <dir>/reported and
// wait for <dir>/release.
func worker(name string, interruption schema.Interruption) *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:  name,
		Usage: "Work through items, reporting each (work that detaches into a job when the call's budget runs out)",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "items", Value: 3, Usage: "how many items"},
			&cli.DurationFlag{Name: "every", Value: 50 * time.Millisecond, Usage: "how long each item takes"},
			&cli.IntFlag{Name: "stall-after", Value: -1, Usage: "report no progress after this many items, and wait"},
			&cli.BoolFlag{Name: "back", Usage: "after the last item, report done two lower"},
			&cli.StringFlag{Name: "hold", Usage: "a directory: after the last report, create reported in it and wait for release"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			n := int(c.Int("items"))
			for i := 1; i <= n; i++ {
				if int(c.Int("stall-after")) == i-1 {
					<-ctx.Done()
					return ctx.Err()
				}
				if err := pause(ctx, c.Duration("every")); err != nil {
					return err
				}
				out.ProgressIn("items", fmt.Sprintf("item %d", i), i, n)
			}
			if c.Bool("back") {
				out.ProgressIn("items", "counted again", max(n-2, 0), n)
			}
			if dir := c.String("hold"); dir != "" {
				if err := hold(dir, "reported", "release"); err != nil {
					return err
				}
			}
			return out.Result(map[string]int{"items": n})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Interruption: &interruption})
}

// resumable is tally (safe), journal or logbook (mutating; logbook also
// detaches): it works through the lines of a file, one each --every, and
// checkpoints after each. journal and logbook also append each line to
// the file --to, its one unit of writing, before the checkpoint that
// records it. --hold-at stops it after that line, in the
// place --hold-where names (write: after the write, before the
// checkpoint; checkpoint: after the checkpoint), until <--gate>/go exists,
// having created <--gate>/held.
func resumable(name string, danger schema.Danger, detach bool) *cli.Command {
	flags := holdFlags()
	if danger == schema.Mutating {
		flags = append(flags, &cli.StringFlag{Name: "to", Required: true, Usage: "the file each line is appended to"})
	}
	return urfave.Annotate(&cli.Command{
		Name:      name,
		Usage:     "Sum the lengths of a file's lines, checkpointing after each (work that resumes on the identical call)",
		ArgsUsage: "<file>",
		Flags:     flags,
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			path := c.Args().First()
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
			var state struct {
				Done  int `json:"done"`
				Chars int `json:"chars"`
			}
			if _, err := out.Restore(fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano()), &state); err != nil {
				return err
			}
			out.Progress("resumed", state.Done, len(lines))
			at := holdAt(c)
			for i := state.Done; i < len(lines); i++ {
				// Not ctx-aware: a stop is taken at a checkpoint.
				time.Sleep(c.Duration("every"))
				if to := c.String("to"); to != "" {
					if err := appendUnit(to, lines[i]); err != nil {
						return err
					}
				}
				if err := at(i+1, "write"); err != nil {
					return err
				}
				state.Done, state.Chars = i+1, state.Chars+len(lines[i])
				out.Progress("line", state.Done, len(lines))
				if err := out.Checkpoint(state); err != nil {
					return err
				}
				if err := at(i+1, "checkpoint"); err != nil {
					return err
				}
			}
			if danger == schema.Mutating {
				out.Effect(envelope.Updated)
			}
			return out.Result(map[string]int{"lines": len(lines), "chars": state.Chars})
		},
	}, schema.Meta{Danger: danger, Args: []schema.Arg{{Name: "file", Required: true, Type: schema.String, Usage: "the file"}},
		Interruption: &schema.Interruption{Resume: true, Detach: detach}})
}

// holdFlags are the flags of a command that works line by line, one each
// --every, and can be made to hold after a line.
func holdFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "every", Value: 20 * time.Millisecond, Usage: "how long each line takes"},
		&cli.IntFlag{Name: "hold-at", Usage: "hold after this line (1-based); 0 for never"},
		&cli.StringFlag{Name: "hold-where", Value: "checkpoint", Usage: "where to hold: write or checkpoint"},
		&cli.StringFlag{Name: "gate", Usage: "the directory held and go are in"},
	}
}

// holdAt is what holds the work after line i, where it is (write or
// checkpoint), if the flags say so.
func holdAt(c *cli.Command) func(i int, where string) error {
	return func(i int, where string) error {
		if int(c.Int("hold-at")) != i || c.String("hold-where") != where {
			return nil
		}
		return hold(c.String("gate"), "held", "go")
	}
}

// linesumCommand sums the lengths of the lines piped to it, read as they
// come (line mode), one each --every, checkpointing after each: the
// identical call, given the same stdin, skips the lines its checkpoint
// counted; its progress is counted in lines.
func linesumCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:  "linesum",
		Usage: "Sum the lengths of the lines on stdin, checkpointing after each (work that resumes on the identical call)",
		Flags: holdFlags(),
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			var state struct {
				Done  int `json:"done"`
				Chars int `json:"chars"`
			}
			// The stdin the state was read from is Duet's to check.
			if _, err := out.Restore("", &state); err != nil {
				return err
			}
			out.ProgressIn("lines", "resumed", state.Done, 0)
			at := holdAt(c)
			n := 0
			for line, err := range input.From(ctx).Lines() {
				if err != nil {
					return err
				}
				if n++; n <= state.Done {
					continue // counted before the checkpoint
				}
				time.Sleep(c.Duration("every")) // not ctx-aware: a stop is taken at a checkpoint
				state.Done, state.Chars = n, state.Chars+len(line)
				out.ProgressIn("lines", "line", state.Done, 0)
				if err := out.Checkpoint(state); err != nil {
					return err
				}
				if err := at(n, "checkpoint"); err != nil {
					return err
				}
			}
			return out.Result(map[string]int{"lines": state.Done, "chars": state.Chars})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Stdin: "lines of text", StdinLines: true,
		Interruption: &schema.Interruption{Resume: true}})
}

// appendUnit appends one line to path in one write.
func appendUnit(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// hold creates dir/signal and waits, whatever else happens (a signal, a
// time limit: the work holds where it is), for dir/until to exist.
func hold(dir, signal, until string) error {
	if err := os.WriteFile(filepath.Join(dir, signal), nil, 0o600); err != nil {
		return err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, until)); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}
