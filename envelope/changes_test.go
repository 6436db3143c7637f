package envelope_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
)

// TestChanges: what a command did through its Output that outlasts the
// invocation, for F-002's lifecycle check — and what is no change: noop,
// a dry run's effect, the session's temp files, a step that failed.
func TestChanges(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, out *envelope.Output)
		dry  bool
		want []string // prefixes of what Changes says, in order
	}{
		{"nothing", func(*testing.T, *envelope.Output) {}, false, nil},
		{"noop", func(_ *testing.T, out *envelope.Output) { out.Effect(envelope.Noop) }, false, nil},
		{"an effect", func(_ *testing.T, out *envelope.Output) { out.Effect(envelope.Deleted) }, false, []string{"reported the effect deleted"}},
		{"a dry run's effect", func(_ *testing.T, out *envelope.Output) { out.Effect(envelope.Deleted) }, true, nil},
		{"a kept file", func(t *testing.T, out *envelope.Output) {
			f, _, err := out.OutputFile("report.json")
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}, false, []string{"kept the file /"}},
		{"a temp file", func(t *testing.T, out *envelope.Output) {
			f, err := out.TempFile("x-*")
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}, false, nil},
		{"a completed step", func(_ *testing.T, out *envelope.Output) {
			out.Step(context.Background(), "copy", func(context.Context) error { return nil })
		}, false, []string{`completed the step "copy"`}},
		{"a failed step", func(_ *testing.T, out *envelope.Output) {
			out.Step(context.Background(), "copy", func(context.Context) error { return errors.New("disk full") })
		}, false, nil},
		{"an undo, rolled back", func(_ *testing.T, out *envelope.Output) {
			out.Undo(func(context.Context) error { return nil })
			out.Rollback(context.Background())
		}, false, []string{"registered 1 undo hook(s)"}},
		{"a background process", func(_ *testing.T, out *envelope.Output) { out.Background(4242, "tool stop") }, false, []string{"left a background process running"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), DryRun: tt.dry, TempRoot: filepath.Join(t.TempDir(), "root"), Session: "s1"})
			tt.do(t, out)
			defer out.Cleanup(context.Background())
			got := out.Changes()
			if len(got) != len(tt.want) {
				t.Fatalf("Changes() = %q, want %d like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("Changes()[%d] = %q, want it to start %q", i, got[i], w)
				}
			}
		})
	}
}

// TestWarnOnce: the same warning given twice — by a command's validation
// hook and again by the command — is reported once; a different message,
// or next step, is another warning.
func TestWarnOnce(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Warn("MODEL_NOT_IN_CATALOG", "model x is not in the catalog", "run models list")
	out.Warn("MODEL_NOT_IN_CATALOG", "model x is not in the catalog", "run models list")
	out.Warn("MODEL_NOT_IN_CATALOG", "model y is not in the catalog", "run models list")
	out.Warn("MODEL_NOT_IN_CATALOG", "model y is not in the catalog", "")
	out.Finish(fixedMeta(), nil)
	var got []string
	for _, w := range decodeOne(t, stdout.Bytes()).Warnings {
		got = append(got, w.Message)
	}
	want := []string{"model x is not in the catalog. Next: run models list", "model y is not in the catalog. Next: run models list", "model y is not in the catalog."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestVolatileWarning: with CheckVolatile, data that holds the time of the
// call is answered with one VOLATILE_DATA warning naming its fields
// (F-021); the data itself is as the command gave it. Without it, nothing.
func TestVolatileWarning(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		result any
		check  bool
		fields []any
	}{
		{"an RFC 3339 string", map[string]any{"id": "a", "fetched_at": now.Format(time.RFC3339Nano)}, true, []any{"data.fetched_at"}},
		{"a time.Time", map[string]any{"id": "a", "timestamp": now}, true, []any{"data.timestamp"}},
		{"seconds since 1970", map[string]any{"id": "a", "now": now.Unix()}, true, []any{"data.now"}},
		{"milliseconds since 1970", map[string]any{"id": "a", "as_of": now.UnixMilli()}, true, []any{"data.as_of"}},
		{"a date and time with a space", map[string]any{"generated_at": "2026-05-01 12:00:00"}, true, []any{"data.generated_at"}},
		{"two fields, in the names' order", map[string]any{"served_at": now, "generated_at": now}, true, []any{"data.generated_at", "data.served_at"}},
		{"items of a list", []map[string]any{{"id": "a", "retrieved_at": now}, {"id": "b", "retrieved_at": now}}, true, []any{"data[].retrieved_at"}},
		{"a time of the resource", map[string]any{"id": "a", "created_at": now, "updated": now}, true, nil},
		{"a volatile name without a time", map[string]any{"now": "later", "timestamp": 12}, true, nil},
		{"nested deeper", map[string]any{"run": map[string]any{"fetched_at": now}}, true, nil},
		{"not asked", map[string]any{"fetched_at": now}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), CheckVolatile: tt.check})
			out.Result(tt.result)
			out.Finish(fixedMeta(), nil)
			w := decodeOne(t, stdout.Bytes())
			var fields []any
			n := 0
			for _, warning := range w.Warnings {
				if warning.Code == envelope.VolatileData {
					n++
					fields, _ = warning.Context["fields"].([]any)
				}
			}
			if diff := cmp.Diff(tt.fields, fields); diff != "" || n > 1 {
				t.Errorf("%d VOLATILE_DATA warnings; fields (-want +got):\n%s", n, diff)
			}
		})
	}
}
