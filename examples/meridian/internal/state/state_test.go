package state_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

var now = time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC)

func TestCreateSpace(t *testing.T) {
	root := state.Root{Dir: filepath.Join(t.TempDir(), ".meridian")}
	ctx := context.Background()
	s1, err := root.CreateSpace(ctx, "feature-auth", now)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := root.CreateSpace(ctx, "", now)
	if err != nil {
		t.Fatal(err)
	}
	if s1.ID != "s1" || s2.ID != "s2" {
		t.Errorf("ids %s, %s; want s1, s2", s1.ID, s2.ID)
	}
	raw, err := os.ReadFile(filepath.Join(root.SpaceDir("s1"), "space.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema_version":1,"id":"s1","name":"feature-auth","status":"active","started_at":"2026-02-28T10:00:00Z","finished_at":null}` + "\n"
	if diff := cmp.Diff(want, string(raw)); diff != "" {
		t.Errorf("space.json (-want +got):\n%s", diff)
	}
	if fi, err := os.Stat(filepath.Join(root.SpaceDir("s2"), "fs")); err != nil || !fi.IsDir() {
		t.Errorf("s2/fs: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root.Dir, ".gitignore")); string(got) != state.Gitignore {
		t.Errorf(".gitignore = %q", got)
	}
	// Holes are not reused: the next id is one more than the highest.
	if err := os.RemoveAll(root.SpaceDir("s1")); err != nil {
		t.Fatal(err)
	}
	if s3, err := root.CreateSpace(ctx, "", now); err != nil || s3.ID != "s3" {
		t.Errorf("after removing s1: %v, %v; want s3", s3.ID, err)
	}

	closed, err := root.UpdateSpace(ctx, "s2", func(sp *state.Space) error {
		sp.Status = state.Closed
		f := state.Timestamp(now.Add(time.Hour))
		sp.FinishedAt = &f
		return nil
	})
	if err != nil || closed.Status != state.Closed {
		t.Fatalf("close s2: %+v, %v", closed, err)
	}
	if got, err := root.Space("s2"); err != nil || got.Status != state.Closed || *got.FinishedAt != "2026-02-28T11:00:00Z" {
		t.Errorf("s2 after close: %+v, %v", got, err)
	}
}

func TestSpaceErrors(t *testing.T) {
	root := state.Root{Dir: filepath.Join(t.TempDir(), ".meridian")}
	ctx := context.Background()
	if _, err := root.CreateSpace(ctx, "", now); err != nil {
		t.Fatal(err)
	}
	if _, err := root.CreateSpace(ctx, "", now); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../x", "s0", "s01", "/etc", ""} {
		if _, err := root.Space(id); err == nil {
			t.Errorf("Space(%q) accepted it", id)
		}
	}
	if _, err := root.Space("s9"); !errors.Is(err, state.ErrNoSpace) {
		t.Errorf("Space(s9) = %v, want ErrNoSpace", err)
	}
	path := filepath.Join(root.SpaceDir("s1"), "space.json")
	corrupt := []byte(`{"schema_version":1,"id":"s1","status":`)
	if err := os.WriteFile(path, corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *state.CorruptError
	if _, err := root.Space("s1"); !errors.As(err, &ce) || ce.Path != path {
		t.Errorf("Space(s1) = %v, want a CorruptError naming %s", err, path)
	}
	if _, err := root.UpdateSpace(ctx, "s1", func(*state.Space) error { return nil }); !errors.As(err, &ce) {
		t.Errorf("UpdateSpace(s1) = %v, want the CorruptError", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(corrupt) {
		t.Errorf("corrupt space.json rewritten: %q", got)
	}
	spaces, problems, err := root.Spaces()
	if err != nil || len(spaces) != 1 || spaces[0].ID != "s2" || len(problems) != 1 {
		t.Errorf("Spaces() = %v, %v, %v; want s2 and one problem", spaces, problems, err)
	}
}

func TestRuns(t *testing.T) {
	root := state.Root{Dir: filepath.Join(t.TempDir(), ".meridian")}
	ctx := context.Background()
	sp, err := root.CreateSpace(ctx, "", now)
	if err != nil {
		t.Fatal(err)
	}
	runs := state.Runs{Dir: root.SpaceDir(sp.ID)}
	id, hold, err := runs.Start(ctx, state.Run{SessionID: "c0", Model: "gpt-5.3-codex", Agent: "coder", Harness: "codex", StartedAt: state.Timestamp(now), Prompt: "hi"})
	if err != nil || id != "r1" {
		t.Fatalf("Start = %q, %v", id, err)
	}
	if alive, err := runs.Alive(id); err != nil || !alive {
		t.Errorf("Alive(r1) while its lock is held = %v, %v", alive, err)
	}
	hold.Release()
	if alive, err := runs.Alive(id); err != nil || alive {
		t.Errorf("Alive(r1) after release = %v, %v", alive, err)
	}
	if fi, err := os.Stat(runs.ArtifactDir(id)); err != nil || !fi.IsDir() {
		t.Errorf("runs/r1: %v", err)
	}
	if err := runs.Update(ctx, state.Run{ID: id, HarnessSessionID: "thread-1"}); err != nil {
		t.Fatal(err)
	}
	code, dur, cost := 0, 128.0, 0.042
	in, out := int64(4200), int64(1800)
	if err := runs.Finalize(ctx, state.Run{ID: id, Status: state.Succeeded, ExitCode: &code, DurationSecs: &dur,
		TotalCostUSD: &cost, InputTokens: &in, OutputTokens: &out, FinishedAt: state.Timestamp(now.Add(128 * time.Second))}); err != nil {
		t.Fatal(err)
	}
	if _, h, err := runs.Start(ctx, state.Run{SessionID: "c0", Model: "m", Harness: "claude", StartedAt: state.Timestamp(now)}); err != nil {
		t.Fatal(err)
	} else {
		h.Release()
	}
	raw, _ := os.ReadFile(filepath.Join(runs.Dir, "runs.jsonl"))
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	wantLines := []string{
		`{"v":1,"event":"start","id":"r1","session_id":"c0","model":"gpt-5.3-codex","agent":"coder","harness":"codex","status":"running","started_at":"2026-02-28T10:00:00Z","prompt":"hi"}`,
		`{"v":1,"event":"update","id":"r1","harness_session_id":"thread-1"}`,
		`{"v":1,"event":"finalize","id":"r1","status":"succeeded","exit_code":0,"duration_secs":128,"total_cost_usd":0.042,"input_tokens":4200,"output_tokens":1800,"finished_at":"2026-02-28T10:02:08Z"}`,
		`{"v":1,"event":"start","id":"r2","session_id":"c0","model":"m","harness":"claude","status":"running","started_at":"2026-02-28T10:00:00Z"}`,
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("runs.jsonl (-want +got):\n%s", diff)
	}

	// A crash mid-append leaves a partial last line: readers skip it, and
	// the next append moves it to runs.jsonl.torn and starts where it began.
	f, _ := os.OpenFile(filepath.Join(runs.Dir, "runs.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"event":"finalize","id":"r2","sta`)
	f.Close()
	list, skipped, err := runs.List()
	if err != nil || skipped != 1 || len(list) != 2 {
		t.Fatalf("List = %d runs, %d skipped, %v; want 2, 1", len(list), skipped, err)
	}
	if r := list[0]; r.Status != state.Succeeded || r.HarnessSessionID != "thread-1" || *r.TotalCostUSD != 0.042 {
		t.Errorf("r1 = %+v", r)
	}
	if r := list[1]; r.Status != state.Running {
		t.Errorf("r2 = %+v, want running", r)
	}
	if id, h, err := runs.Start(ctx, state.Run{Model: "m"}); err != nil || id != "r3" {
		t.Errorf("Start after a torn line = %q, %v; want r3", id, err)
	} else {
		h.Release()
	}
	if list, skipped, _ := runs.List(); len(list) != 3 || skipped != 0 {
		t.Errorf("after the next start: %d runs, %d skipped; want 3, 0", len(list), skipped)
	}
	if aside, err := os.ReadFile(filepath.Join(runs.Dir, "runs.jsonl.torn")); string(aside) != `{"v":1,"event":"finalize","id":"r2","sta`+"\n" {
		t.Errorf("runs.jsonl.torn = %q, %v; want the torn line", aside, err)
	}
}

// TestTornStart: a start event torn by a crash never recorded its run, so
// its id is allocated again; the artifact directory the dead writer made is
// taken over when it holds only the run's lock, and moved aside when it
// holds more.
func TestTornStart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		left  []string // files in runs/r2/ before the next start
		aside bool
	}{
		{"nothing", nil, false},
		{"its lock", []string{"run.lock"}, false},
		{"artifacts", []string{"run.lock", "input.md"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := state.Runs{Dir: t.TempDir()}
			ctx := context.Background()
			_, h, err := runs.Start(ctx, state.Run{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			h.Release()
			f, _ := os.OpenFile(filepath.Join(runs.Dir, "runs.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"v":1,"event":"start","id":"r2","mod`)
			f.Close()
			if len(tc.left) > 0 {
				os.MkdirAll(runs.ArtifactDir("r2"), 0o755)
				for _, name := range tc.left {
					os.WriteFile(filepath.Join(runs.ArtifactDir("r2"), name), []byte("old"), 0o644)
				}
			}
			id, h, err := runs.Start(ctx, state.Run{Model: "m"})
			if err != nil || id != "r2" {
				t.Fatalf("Start after a torn start = %q, %v; want r2", id, err)
			}
			h.Release()
			entries, _ := os.ReadDir(runs.ArtifactDir("r2"))
			if len(entries) != 1 || entries[0].Name() != "run.lock" {
				t.Errorf("runs/r2 holds %v; want its lock alone", entries)
			}
			_, err = os.Stat(filepath.Join(runs.Dir, "runs", "r2.orphan", "input.md"))
			if aside := err == nil; aside != tc.aside {
				t.Errorf("moved aside = %v, want %v", aside, tc.aside)
			}
			list, skipped, err := runs.List()
			if err != nil || len(list) != 2 || skipped != 0 {
				t.Errorf("List = %d runs, %d skipped, %v; want 2, 0", len(list), skipped, err)
			}
		})
	}
}

// TestConcurrentRuns runs 32 processes (this test binary, re-executed) that
// each start and finalize a run in one space at once: 32 distinct ids and 64
// well-formed events.
func TestConcurrentRuns(t *testing.T) {
	root := state.Root{Dir: filepath.Join(t.TempDir(), ".meridian")}
	sp, err := root.CreateSpace(context.Background(), "", now)
	if err != nil {
		t.Fatal(err)
	}
	dir := root.SpaceDir(sp.ID)
	const n = 32
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestHelperRun$")
		cmds[i].Env = append(os.Environ(), "STATE_HELPER_DIR="+dir, "STATE_HELPER_N="+strconv.Itoa(i))
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 2*n {
		t.Fatalf("%d lines, want %d", len(lines), 2*n)
	}
	ids := map[string]int{}
	for _, l := range lines {
		var ev state.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("malformed line %q: %v", l, err)
		}
		ids[ev.ID]++
	}
	if len(ids) != n {
		t.Errorf("%d distinct ids, want %d", len(ids), n)
	}
	for id, count := range ids {
		if count != 2 {
			t.Errorf("%s has %d events, want 2", id, count)
		}
	}
}

// TestHelperRun is one process of TestConcurrentRuns; run alone it does
// nothing.
func TestHelperRun(t *testing.T) {
	dir := os.Getenv("STATE_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper of TestConcurrentRuns")
	}
	runs := state.Runs{Dir: dir}
	ctx := context.Background()
	id, hold, err := runs.Start(ctx, state.Run{Model: "m" + os.Getenv("STATE_HELPER_N")})
	if err == nil {
		defer hold.Release()
		code := 0
		err = runs.Finalize(ctx, state.Run{ID: id, Status: state.Succeeded, ExitCode: &code})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
