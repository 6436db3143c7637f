package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// newSpace is a Runner of a new project, and a space of it.
func newSpace(t *testing.T) (*Runner, state.Space) {
	t.Helper()
	p := project.Find(t.TempDir(), "", "", "")
	sp, err := p.State.CreateSpace(context.Background(), "test", time.Date(2026, 3, 17, 14, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Project: p}, sp
}

// TestList: List returns the runs it finds, newest first, and says how far
// it counted — a whole listing, a page read from the end of the log that
// knows only whether more match, and a page that reached the log's start.
func TestList(t *testing.T) {
	ctx := context.Background()
	r, sp := newSpace(t)
	runs := r.runs(sp)
	for _, model := range []string{"m1", "m2", "m1", "m2", "m1"} {
		id, hold, err := runs.Start(ctx, state.Run{Model: model, StartedAt: "2026-03-17T14:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
		exit := 0
		if err := runs.Finalize(ctx, state.Run{ID: id, Status: state.Succeeded, ExitCode: &exit}); err != nil {
			t.Fatal(err)
		}
		hold.Release()
	}
	ids := func(l Listing) []string {
		var out []string
		for _, s := range l.Runs {
			out = append(out, s.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		f       Filter
		w       envelope.Window
		paged   bool
		ids     []string
		total   int
		counted bool
		more    bool
	}{
		{"all", Filter{}, envelope.Window{}, false, []string{"r5", "r4", "r3", "r2", "r1"}, 5, true, false},
		{"filtered", Filter{Model: "m2"}, envelope.Window{}, false, []string{"r4", "r2"}, 2, true, false},
		{"the first page", Filter{}, envelope.Window{Limit: 2}, true, []string{"r5", "r4"}, 3, false, true},
		{"the last page", Filter{}, envelope.Window{Offset: 4, Limit: 2}, true, []string{"r1"}, 5, true, false},
		{"a page of the filtered", Filter{Model: "m1"}, envelope.Window{Offset: 1, Limit: 1}, true, []string{"r3"}, 3, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := r.List(ctx, sp.ID, tt.f, tt.w, tt.paged)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.ids, ids(l)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if l.Total != tt.total || l.Counted != tt.counted || l.More != tt.more {
				t.Errorf("total %d counted %v more %v; want %d %v %v", l.Total, l.Counted, l.More, tt.total, tt.counted, tt.more)
			}
		})
	}
}

// TestOutput: Output returns a run's output from a byte on, in whole lines
// while the run goes on (the line being written comes next time), in parts
// of max bytes, and the rest once the run has ended.
func TestOutput(t *testing.T) {
	ctx := context.Background()
	r, sp := newSpace(t)
	runs := r.runs(sp)
	id, hold, err := runs.Start(ctx, state.Run{Model: "m1", StartedAt: "2026-03-17T14:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	read := func(from int64, max int) Output {
		t.Helper()
		o, err := r.Output(ctx, sp.ID, id, from, max)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	part := func(text string, from, to int64, more, running bool) Output {
		return Output{Run: id, Text: text, From: from, To: to, More: more, Running: running}
	}
	if diff := cmp.Diff(part("", 0, 0, false, true), read(0, 100)); diff != "" {
		t.Errorf("before any output (-want +got):\n%s", diff)
	}
	out := filepath.Join(runs.ArtifactDir(id), "output", stdoutFile)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("one\ntwo\nthr"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		from int64
		max  int
		want Output
	}{
		{0, 100, part("one\ntwo\n", 0, 8, false, true)}, // "thr" is being written
		{0, 5, part("one\n", 0, 4, true, true)},         // cut at max, at a line's end
		{8, 2, part("th", 8, 10, true, true)},           // a line longer than max, in parts
		{8, 100, part("", 8, 8, false, true)},
	} {
		if diff := cmp.Diff(tt.want, read(tt.from, tt.max)); diff != "" {
			t.Errorf("from %d, max %d, running (-want +got):\n%s", tt.from, tt.max, diff)
		}
	}
	exit := 0
	if err := runs.Finalize(ctx, state.Run{ID: id, Status: state.Succeeded, ExitCode: &exit}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(part("thr", 8, 11, false, false), read(8, 100)); diff != "" {
		t.Errorf("once ended (-want +got):\n%s", diff)
	}
	if _, err := r.Output(ctx, sp.ID, "../r1", 0, 100); err == nil {
		t.Error("Output read a run named ../r1")
	}
}
