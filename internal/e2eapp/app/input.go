package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
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

	return []*cli.Command{restore, load}
}
