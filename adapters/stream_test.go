package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/schema"
)

// streamApp has a command that streams by default (events), one that
// streams when asked (deployments) and one that does not stream (deploy).
func streamApp() *cli.Command {
	items := func(ctx context.Context, _ *cli.Command) error {
		out := envelope.From(ctx)
		for _, id := range []string{"e1", "e2", "e3"} {
			if err := out.Item(map[string]string{"id": id}); err != nil {
				return err
			}
		}
		return nil
	}
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "events", Action: items}, schema.Meta{Danger: schema.Safe, Streaming: true, StreamingDefault: true}),
		urfave.Annotate(&cli.Command{Name: "deployments", Action: items}, schema.Meta{Danger: schema.Safe, Streaming: true}),
		urfave.Annotate(&cli.Command{Name: "deploy", Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]string{"id": "d1"})
		}}, schema.Meta{Danger: schema.Safe}),
	}}
}

// summary is a successful stream's last line (CLI Agent Spec v1.16): no
// envelope, but "_summary": true, the count of items, the count of its
// numbered lines, the warnings and meta.
type summary struct {
	Summary    bool               `json:"_summary"`
	Total      int                `json:"total"`
	Count      int                `json:"_count"`
	DurationMS int64              `json:"duration_ms"`
	Warnings   []envelope.Warning `json:"warnings"`
	Meta       map[string]any     `json:"meta"`
}

// summaryOf decodes a stream's last line, which must be a summary line of
// exactly its six keys, in order, whose meta.exit_code is code.
func summaryOf(t *testing.T, line []byte, code int) summary {
	t.Helper()
	if diff := cmp.Diff([]string{"_summary", "total", "_count", "duration_ms", "warnings", "meta"}, jsontest.Keys(t, line)); diff != "" {
		t.Errorf("the summary line's keys (-want +got):\n%s\n%s", diff, line)
	}
	var s summary
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("decode the summary line: %v\n%s", err, line)
	}
	if !s.Summary || s.Warnings == nil {
		t.Errorf("_summary %v, warnings %v; want true and an array\n%s", s.Summary, s.Warnings, line)
	}
	wantExitCode(t, line, code)
	return s
}

// TestStreamFlags: --stream writes one JSON object a line, items first and
// last a summary line with meta.pagination; a command that does not declare
// streaming warns STREAMING_NOT_SUPPORTED; a streaming-default command
// streams unasked and answers one envelope under --no-stream; describe
// says supports_streaming and streaming_default (REQ-O-004). That lines
// reach the reader while the command runs is TestUnbufferedStdout's.
func TestStreamFlags(t *testing.T) {
	runApp := func(args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), streamApp(), args, run{}.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	// stream splits stdout into JSON objects, the items and the summary.
	stream := func(t *testing.T, r result) (ids []string, last summary) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for i, l := range lines[:len(lines)-1] {
			var it struct {
				Seq int    `json:"_seq"`
				ID  string `json:"id"`
			}
			if err := json.Unmarshal([]byte(l), &it); err != nil {
				t.Fatalf("line %q is not a JSON object: %v", l, err)
			}
			if it.Seq != i+1 {
				t.Errorf("line %q: _seq %d, want %d", l, it.Seq, i+1)
			}
			ids = append(ids, it.ID)
		}
		last = summaryOf(t, []byte(lines[len(lines)-1]), r.code)
		if last.Total != len(ids) || last.Count != len(ids) {
			t.Errorf("the summary's total %d and _count %d, want %d, the items", last.Total, last.Count, len(ids))
		}
		return ids, last
	}
	wantItems := []string{"e1", "e2", "e3"}
	wantPage := map[string]any{"total": 3.0, "returned": 3.0, "truncated": false, "has_more": false, "next_cursor": nil}

	for _, args := range [][]string{{"deployments", "--stream"}, {"events"}, {"events", "--stream"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ids, summary := stream(t, runApp(args...))
			if diff := cmp.Diff(wantItems, ids); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantPage, summary.Meta["pagination"]); diff != "" {
				t.Errorf("the summary's pagination (-want +got):\n%s", diff)
			}
			if len(summary.Warnings) != 0 {
				t.Errorf("the summary has warnings %q", summary.Warnings)
			}
		})
	}
	for _, args := range [][]string{{"events", "--no-stream"}, {"deployments"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			w := wantOK(t, runApp(args...))
			if diff := cmp.Diff(`[{"id":"e1"},{"id":"e2"},{"id":"e3"}]`, string(w.Data)); diff != "" {
				t.Errorf("one envelope's data (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("deploy --stream", func(t *testing.T) {
		_, summary := stream(t, runApp("deploy", "--stream"))
		if len(summary.Warnings) != 1 || summary.Warnings[0].Code != "STREAMING_NOT_SUPPORTED" {
			t.Errorf("warnings %q, want STREAMING_NOT_SUPPORTED", summary.Warnings)
		}
	})
	t.Run("describe", func(t *testing.T) {
		w := wantOK(t, runApp("describe", "--full"))
		var m struct {
			Commands map[string]map[string]any `json:"commands"`
		}
		if err := json.Unmarshal(w.Data, &m); err != nil {
			t.Fatal(err)
		}
		got := map[string][2]any{}
		for _, name := range []string{"events", "deployments", "deploy"} {
			got[name] = [2]any{m.Commands[name]["supports_streaming"], m.Commands[name]["streaming_default"]}
		}
		want := map[string][2]any{"events": {true, true}, "deployments": {true, nil}, "deploy": {nil, nil}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("supports_streaming, streaming_default (-want +got):\n%s", diff)
		}
	})
}
