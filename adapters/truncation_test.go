package adapters_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// truncationApp writes --body to a file (a field declared max_bytes 255)
// and reads a body a backend cut to 255 of its 8192 bytes.
func truncationApp(dir string) *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "write",
			Flags: []cli.Flag{&cli.StringFlag{Name: "body"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				if err := os.WriteFile(filepath.Join(dir, "body"), []byte(c.String("body")), 0o644); err != nil {
					return err
				}
				envelope.From(ctx).Effect(envelope.Updated) // C-003
				return envelope.From(ctx).Result(map[string]int{"bytes": len(c.String("body"))})
			}}, schema.Meta{Danger: schema.Mutating, Flags: map[string]schema.FlagMeta{"body": {MaxBytes: 255}}}),
		urfave.Annotate(&cli.Command{Name: "read",
			Action: func(ctx context.Context, _ *cli.Command) error {
				out := envelope.From(ctx)
				out.Truncated(envelope.Truncation{Field: "data.body", OriginalBytes: 8192, ReturnedBytes: 255})
				return out.Result(map[string]string{"body": strings.Repeat("b", 255)})
			}}, schema.Meta{Danger: schema.Safe}),
	}}
}

// TestFieldTruncation: a 500-byte value for a field declared max_bytes 255
// exits 2 with a structured validation error naming the flag, and nothing
// is written; a value a backend cut sets meta.truncated and a
// FIELD_TRUNCATED warning with field, returned_bytes and original_bytes,
// in an envelope that parses (REQ-F-064). Duet's warnings are strings
// (DESIGN.md's wire format), so the numbers are key=value in the text.
func TestFieldTruncation(t *testing.T) {
	dir := t.TempDir()
	runApp := func(args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), truncationApp(dir), args, run{}.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}

	t.Run("a value over max_bytes is refused before the command runs", func(t *testing.T) {
		w := wantError(t, runApp("write", "--body", strings.Repeat("x", 500)), 2, "FIELD_TOO_LARGE")
		if w.Error.Phase != envelope.Validation || w.Error.Field != "body" {
			t.Errorf("error phase %q field %q, want validation and body", w.Error.Phase, w.Error.Field)
		}
		if _, err := os.Stat(filepath.Join(dir, "body")); !os.IsNotExist(err) {
			t.Errorf("the command wrote the value all the same (stat: %v)", err)
		}
		wantOK(t, runApp("write", "--body", strings.Repeat("x", 255)))
		if raw, _ := os.ReadFile(filepath.Join(dir, "body")); len(raw) != 255 {
			t.Errorf("a value of 255 bytes was written as %d", len(raw))
		}
	})

	t.Run("a value a backend cut is flagged", func(t *testing.T) {
		w := wantOK(t, runApp("read"))
		if w.Meta["truncated"] != true {
			t.Errorf("meta.truncated = %v, want true", w.Meta["truncated"])
		}
		want := []string{"WARNING [FIELD_TRUNCATED]: data.body is cut short (field=data.body returned_bytes=255 original_bytes=8192)"}
		got := make([]string, len(w.Warnings))
		for i, s := range w.Warnings {
			got[i], _, _ = strings.Cut(s.String(), ". Next:")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		// The numbers are the warning's context too, for an agent to read
		// without parsing the message (WarningDetail.context).
		if len(w.Warnings) == 1 {
			wantContext := map[string]any{"field": "data.body", "returned_bytes": 255.0, "original_bytes": 8192.0}
			if diff := cmp.Diff(wantContext, w.Warnings[0].Context); diff != "" {
				t.Errorf("warning context (-want +got):\n%s", diff)
			}
		}
	})
}
