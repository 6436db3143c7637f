package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/schema"
)

// stateApp has a mutating command (it takes --idempotency-key) and an
// async one (the app gets the job commands, and a jobs store).
func stateApp() *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "add", Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(map[string]string{"id": "t1"})
		}}, schema.Meta{Danger: schema.Mutating}),
		urfave.Annotate(&cli.Command{Name: "later", Action: func(context.Context, *cli.Command) error { return nil }},
			schema.Meta{Danger: schema.Safe, Async: true}),
	}}
}

// TestStatusListsDuetState: `status` lists what Duet itself keeps for the
// tool beside what the app declares (REQ-O-028): the audit log when it is
// on, the jobs store and the idempotency store — each under
// --show-state-files with its absolute path, size and a summary that says
// nothing secret, and under --show-side-effects with its type and size.
func TestStatusListsDuetState(t *testing.T) {
	home := t.TempDir()
	r := run{env: []string{"HOME=" + home, "APP_AUDIT_LOG=1"}, opts: []urfave.Option{adapters.WithFeatures(idempotency.New())}}
	runApp := func(args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), stateApp(), args, r.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	audit := filepath.Join(home, ".local", "state", "app", "audit.jsonl")
	jobs := filepath.Join(home, ".local", "state", "app", "jobs")
	keys := filepath.Join(home, ".local", "state", "app", "idempotency")

	wantOK(t, runApp("add", "--idempotency-key", "k1")) // a key recorded, an audit entry
	now := time.Now().UTC()
	zero := 0
	if err := (&jobstore.Store{Dir: jobs}).Save(jobstore.Job{ID: "later-1", Command: "later", Created: now, Status: jobstore.Complete, Finished: &now, ExitCode: &zero}); err != nil {
		t.Fatal(err)
	}

	type file struct {
		Path    string `json:"path"`
		Exists  bool   `json:"exists"`
		Size    *int64 `json:"size_bytes"`
		Summary any    `json:"summary"`
	}
	var got struct {
		StateFiles []file `json:"state_files"`
	}
	w := wantOK(t, runApp("status", "--show-state-files"))
	if err := json.Unmarshal(w.Data, &got); err != nil {
		t.Fatalf("data: %v: %s", err, w.Data)
	}
	byPath := map[string]file{}
	for _, f := range got.StateFiles {
		if !filepath.IsAbs(f.Path) {
			t.Errorf("state file path %q is not absolute", f.Path)
		}
		byPath[f.Path] = f
	}
	summaries := map[string]any{
		audit: map[string]any{"entries": 1.0},
		jobs:  map[string]any{"jobs": 1.0, "by_status": map[string]any{"complete": 1.0}},
		keys:  map[string]any{"keys": 1.0, "expired": 0.0, "in_use": 0.0},
	}
	for path, summary := range summaries {
		f, ok := byPath[path]
		switch {
		case !ok:
			t.Errorf("--show-state-files lacks %s: %s", path, w.Data)
		case !f.Exists || f.Size == nil || *f.Size <= 0:
			t.Errorf("%s: exists %v, size %v; want it there, with its size", path, f.Exists, f.Size)
		default:
			if diff := cmp.Diff(summary, f.Summary); diff != "" {
				t.Errorf("%s: summary (-want +got):\n%s", path, diff)
			}
		}
	}

	type effect struct {
		Path   string `json:"path"`
		Type   string `json:"type"`
		Exists bool   `json:"exists"`
		Size   *int64 `json:"size_bytes"`
	}
	var effects struct {
		SideEffects []effect `json:"side_effects"`
	}
	w = wantOK(t, runApp("status", "--show-side-effects"))
	if err := json.Unmarshal(w.Data, &effects); err != nil {
		t.Fatalf("data: %v: %s", err, w.Data)
	}
	types := map[string]string{}
	for _, e := range effects.SideEffects {
		if !filepath.IsAbs(e.Path) {
			t.Errorf("side effect path %q is not absolute", e.Path)
		}
		if e.Exists && (e.Size == nil || *e.Size <= 0) {
			t.Errorf("side effect %s exists with size %v", e.Path, e.Size)
		}
		types[e.Path] = e.Type
	}
	want := map[string]string{audit: "file", jobs: "directory", keys: "directory"}
	for path, typ := range want {
		if types[path] != typ {
			t.Errorf("--show-side-effects lists %s as %q, want %q: %s", path, types[path], typ, w.Data)
		}
	}
}
