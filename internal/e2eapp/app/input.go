package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/schema"
)

// inputCommands are the commands that read a payload on stdin: one read
// whole (restore) and one a line at a time as the lines arrive (load).
func inputCommands() []*cli.Command {
	restore := urfave.Annotate(&cli.Command{
		Name:  "restore",
		Usage: "Restore the settings from a JSON document on stdin",
		Action: func(ctx context.Context, c *cli.Command) error {
			raw, err := input.From(ctx).ReadAll()
			if err != nil {
				return err
			}
			var settings map[string]any
			if err := json.Unmarshal(raw, &settings); err != nil {
				return envelope.Validationf("INVALID_SETTINGS", "the settings on %s are not a JSON object: %v", input.From(ctx).Name(), err)
			}
			if err := os.MkdirAll(dataDir(c), 0o700); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			if err := os.WriteFile(filepath.Join(dataDir(c), "settings.json"), raw, 0o600); err != nil {
				return err
			}
			return out.Result(map[string]int{"settings": len(settings), "bytes": len(raw)})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Stdin: "the settings, one JSON object"})

	// load applies each line as it reads it, appending it to the data
	// directory's "loaded" file, so that a test sees a line applied while
	// its writer has not yet written the next.
	load := urfave.Annotate(&cli.Command{
		Name:  "load",
		Usage: "Load setting records, one JSON object a line, applying each as it arrives",
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := os.MkdirAll(dataDir(c), 0o700); err != nil {
				return err
			}
			f, err := os.OpenFile(filepath.Join(dataDir(c), "loaded"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				return err
			}
			defer f.Close()
			out := envelope.From(ctx)
			lines, size := 0, 0
			for line, err := range input.From(ctx).Lines() {
				if err != nil {
					return err
				}
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				if !json.Valid(line) {
					return envelope.Validationf("INVALID_RECORD", "line %d is not JSON", lines+1).WithContext("line", lines+1)
				}
				if _, err := f.Write(append(line, '\n')); err != nil {
					return fmt.Errorf("applying line %d: %w", lines+1, err)
				}
				out.Effect(envelope.Updated)
				lines++
				size += len(line)
			}
			if lines == 0 {
				out.Effect(envelope.Noop)
			}
			return out.Result(map[string]int{"lines": lines, "bytes": size})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Stdin: "setting records, one JSON object a line", StdinLines: true})

	// hosts lists the provisioned hosts as a stream, unasked: a command
	// whose natural answer is a stream (Meta.StreamingDefault).
	hosts := urfave.Annotate(&cli.Command{
		Name:  "hosts",
		Usage: "List the provisioned hosts, one a line",
		Action: func(ctx context.Context, c *cli.Command) error {
			entries, err := os.ReadDir(filepath.Join(dataDir(c), "hosts"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			out := envelope.From(ctx)
			for _, e := range entries {
				if err := out.Item(map[string]string{"name": e.Name()}); err != nil {
					return err
				}
			}
			return nil
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Streaming: true, StreamingDefault: true})

	return []*cli.Command{restore, load, hosts, provisionCommand(), applyCommand()}
}

// hostRecord is the record of one host, as provision streams it and apply
// consumes it.
var hostRecord = schema.Schema{"type": "object", "required": []string{"name"},
	"properties": map[string]any{"name": map[string]any{"type": "string"}, "effect": map[string]any{"type": "string"}}}

// provisionCommand creates a host record file for each name, streaming one
// event per host: created, or noop for one that exists (REQ-O-004's
// mutating stream). --fail-at stops it at that name, as an upstream that
// went away; --pause waits between hosts, long enough for heartbeats.
func provisionCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:      "provision",
		Usage:     "Provision hosts, streaming one event per host",
		ArgsUsage: "<name>...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fail-at", Usage: "fail, as an unreachable upstream, when this host's turn comes"},
			&cli.DurationFlag{Name: "pause", Usage: "wait this long before each host"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			dir := filepath.Join(dataDir(c), "hosts")
			for _, name := range c.Args().Slice() {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(c.Duration("pause")):
				}
				if name == c.String("fail-at") {
					return envelope.Errorf(exitcode.Unavailable, "UPSTREAM_UNREACHABLE", "the inventory service went away before %s", name)
				}
				path := filepath.Join(dir, name)
				if _, err := os.Stat(path); err == nil {
					if err := out.Event(envelope.Noop, map[string]string{"name": name}); err != nil {
						return err
					}
					continue
				}
				if !out.DryRun() {
					if err := os.MkdirAll(dir, 0o700); err != nil {
						return err
					}
					if err := os.WriteFile(path, []byte(name), 0o600); err != nil {
						return err
					}
				}
				if err := out.Event(envelope.Created, map[string]string{"name": name}); err != nil {
					return err
				}
			}
			return nil
		},
	}, schema.Meta{Danger: schema.Mutating, Streaming: true, DryRun: true, LongRunning: true,
		Args: []schema.Arg{{Name: "name", Required: true, Variadic: true, Type: schema.String, Usage: "the hosts"}},
		ExitCodes: exitcode.Table{exitcode.Unavailable: {Description: "The inventory service went away; the hosts before it were provisioned.",
			Retryable: true, SideEffects: exitcode.None}}})
}

// applyCommand registers the hosts of another command's stream — `e2eapp
// provision a b --format jsonl | e2eapp apply` — as a records consumer
// (REQ-O-004): each record is appended to the data directory's
// "registered" file as it arrives.
func applyCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:  "apply",
		Usage: "Register the hosts of a provision stream read on stdin",
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := os.MkdirAll(dataDir(c), 0o700); err != nil {
				return err
			}
			f, err := os.OpenFile(filepath.Join(dataDir(c), "registered"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				return err
			}
			defer f.Close()
			out := envelope.From(ctx)
			n := 0
			for rec, err := range input.From(ctx).Records() {
				if err != nil {
					return err
				}
				if _, err := f.Write(append(rec, '\n')); err != nil {
					return err
				}
				out.Effect(envelope.Updated)
				n++
			}
			return out.Result(map[string]int{"registered": n})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Stdin: "a provision stream (jsonl), one host a line", Records: hostRecord})
}
