//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
)

// TestSpawnWaitShow is an agent's whole day: a spawn with no space creates
// one and says so; wait returns the run's report; show, list and stats read
// it back; the files are where the spec puts them.
func TestSpawnWaitShow(t *testing.T) {
	sb := newSandbox(t)
	var d run.Detail
	e := sb.ok(t, sb.env, &d, "run", "spawn", "-p", "Say hello", "-m", "sonnet")
	if len(e.Warnings) != 1 || e.Warnings[0].Code != "SPACE_AUTO_CREATED" || !strings.Contains(e.Warnings[0].Message, "MERIDIAN_SPACE_ID=s1") {
		t.Errorf("warnings %q: want SPACE_AUTO_CREATED naming MERIDIAN_SPACE_ID=s1", e.Warnings)
	}
	if d.ID != "r1" || d.Space != "s1" || d.Status != "running" || d.Model != "claude-sonnet-4-6" || d.Harness != "claude" {
		t.Errorf("spawn answered %+v", d)
	}

	var w run.Waited
	sb.ok(t, sb.inSpace("s1"), &w, "run", "wait", "r1")
	if len(w.Runs) != 1 || w.Succeeded != 1 || w.AnyFailed {
		t.Fatalf("wait = %+v", w)
	}
	got := w.Runs[0]
	if got.Status != "succeeded" || !strings.Contains(got.Report, "Say hello") || got.HarnessSessionID == "" ||
		got.TotalCostUSD == nil || got.InputTokens == nil || got.OutputTokens == nil || got.ExitCode == nil || *got.ExitCode != 0 {
		t.Errorf("waited run = %+v", got)
	}
	for _, f := range []string{"input.md", "launch.json", "output/stdout.jsonl", "output/stderr.log", "output/report.md", "run.lock"} {
		if !slices.Contains(got.Artifacts, f) {
			t.Errorf("artifacts %q lack %s", got.Artifacts, f)
		}
	}

	// The harness got the composed prompt on stdin, the space in its environment.
	recs := harnesstest.Records(t, sb.record)
	if len(recs) != 1 {
		t.Fatalf("%d harness calls, want 1", len(recs))
	}
	input, _ := os.ReadFile(filepath.Join(sb.spaceDir("s1"), "runs", "r1", "input.md"))
	if recs[0].Stdin != string(input) || !strings.Contains(recs[0].Stdin, "Say hello") {
		t.Errorf("harness stdin %q, input.md %q", recs[0].Stdin, input)
	}
	if recs[0].Env["MERIDIAN_SPACE_ID"] != "s1" || recs[0].Env["MERIDIAN_SPACE_FS"] != filepath.Join(sb.spaceDir("s1"), "fs") {
		t.Errorf("harness env %v", recs[0].Env)
	}

	// runs.jsonl: start, the session id as soon as seen, finalize.
	evs := sb.events(t, "s1")
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, ev["event"].(string))
		if ev["v"] != 1.0 || ev["id"] != "r1" {
			t.Errorf("event %v", ev)
		}
	}
	if diff := cmp.Diff([]string{"start", "update", "finalize"}, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if evs[1]["harness_session_id"] != got.HarnessSessionID {
		t.Errorf("update event %v, want the session %s", evs[1], got.HarnessSessionID)
	}

	var shown run.Detail
	sb.ok(t, sb.inSpace("s1"), &shown, "run", "show", "r1")
	if diff := cmp.Diff(got, shown); diff != "" {
		t.Errorf("show differs from wait (-wait +show):\n%s", diff)
	}
	var list []run.Summary
	e = sb.ok(t, sb.inSpace("s1"), &list, "run", "list")
	if len(list) != 1 || list[0].ID != "r1" || list[0].Status != "succeeded" || list[0].CostUSD == nil {
		t.Errorf("list = %+v", list)
	}
	if e.Meta["pagination"] == nil {
		t.Errorf("list has no meta.pagination: %v", e.Meta)
	}
	var st run.Stats
	sb.ok(t, sb.inSpace("s1"), &st, "run", "stats")
	if st.Runs != 1 || st.ByStatus["succeeded"] != 1 || st.Models["claude-sonnet-4-6"] == nil || st.CostUSD <= 0 || st.InputTokens <= 0 {
		t.Errorf("stats = %+v", st)
	}
}

// TestSpaceRequired: only run spawn creates a space; every other run
// command needs one and says how to get it.
func TestSpaceRequired(t *testing.T) {
	sb := newSandbox(t)
	for _, args := range [][]string{{"run", "list"}, {"run", "stats"}, {"run", "wait"}, {"run", "show", "r1"}, {"run", "continue", "r1", "-p", "x"}} {
		e := sb.fails(t, sb.env, "SPACE_REQUIRED", 4, args...)
		if !strings.Contains(e.Suggestion, "meridian run spawn") {
			t.Errorf("%q: suggestion %q does not name run spawn", args, e.Suggestion)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.dir, ".meridian", ".spaces")); err == nil {
		t.Error("a command other than run spawn created a space")
	}
	sb.fails(t, sb.inSpace("s7"), "SPACE_NOT_FOUND", 5, "run", "list")
	sb.invalid(t, sb.inSpace("../x"), "run", "list") // refused before any lookup
}

// TestHarnesses spawns and continues a run on each harness: the fake, which
// parses its argv like the real CLI, sees exactly what harness.Build makes;
// the parsers read its real event shapes; continuation passes the harness's
// own resume flag with the recorded session id, and is locked to the harness.
func TestHarnesses(t *testing.T) {
	models := map[string]string{"claude": "claude-opus-4-6", "codex": "gpt-5.3-codex", "opencode": "opencode-anthropic/claude-sonnet-4-5", "gemini": "gemini-2.5-pro"}
	other := map[string]string{"claude": "gpt-5.3-codex", "codex": "opus", "opencode": "opus", "gemini": "opus"}
	for _, h := range harness.All() {
		t.Run(h.Name(), func(t *testing.T) {
			sb := newSandbox(t)
			var first run.Detail
			sb.ok(t, sb.env, &first, "run", "spawn", "-p", "Write the plan", "-m", models[h.Name()], "--wait")
			if first.Status != "succeeded" || first.Harness != h.Name() || first.HarnessSessionID == "" || first.Report == "" {
				t.Fatalf("first run = %+v", first)
			}
			var second run.Detail
			sb.ok(t, sb.inSpace("s1"), &second, "run", "continue", "r1", "-p", "Now do it", "--wait")
			if second.Status != "succeeded" || second.Continues != "r1" || second.HarnessSessionID != first.HarnessSessionID {
				t.Errorf("continued run = %+v, want it to continue %s", second, first.HarnessSessionID)
			}
			recs := harnesstest.Records(t, sb.record)
			if len(recs) != 2 {
				t.Fatalf("%d harness calls, want 2", len(recs))
			}
			defer func() { // the spawns below must not disturb the records read above
				if n := len(harnesstest.Records(t, sb.record)); n != 3 {
					t.Errorf("%d harness calls, want 3", n)
				}
			}()
			for i, req := range []harness.Request{
				{Model: models[h.Name()], Prompt: recs[0].Stdin},
				{Model: models[h.Name()], Prompt: recs[1].Stdin, ResumeID: first.HarnessSessionID},
			} {
				dir := filepath.Join(sb.spaceDir("s1"), "runs", fmt.Sprintf("r%d", i+1))
				if h.Supports(harness.FieldReportPath) {
					req.ReportPath = filepath.Join(dir, "output", "report.md")
				}
				want, _ := h.Build(h.Name(), req)
				got := append([]string{h.Name()}, recs[i].Argv[1:]...)
				if diff := cmp.Diff(want.Args, got); diff != "" {
					t.Errorf("run %d argv (-built +seen by the harness):\n%s", i+1, diff)
				}
			}
			// A flag the harness lacks is ignored with a warning, not silently.
			e0 := sb.ok(t, sb.inSpace("s1"), nil, "run", "spawn", "-p", "x", "-m", models[h.Name()], "--append-system-prompt", "Be terse.", "--wait")
			if got, want := hasWarning(e0.Warnings, "UNSUPPORTED_FLAG"), !h.Supports(harness.FieldAppendSystemPrompt); got != want {
				t.Errorf("--append-system-prompt on %s: UNSUPPORTED_FLAG %v, want %v (warnings %q)", h.Name(), got, want, e0.Warnings)
			}
			e := sb.fails(t, sb.inSpace("s1"), "HARNESS_MISMATCH", 2, "run", "continue", "r1", "-p", "x", "-m", other[h.Name()])
			if !strings.Contains(e.Message, h.Display()) {
				t.Errorf("HARNESS_MISMATCH message %q does not name %s", e.Message, h.Display())
			}
		})
	}
}

// TestFailures: the harness fails, crashes mid-stream, hangs past its
// timeout (stopped with its whole process group), or floods its output;
// each run is finalized with what happened.
func TestFailures(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "warm up", "--wait")
	tests := []struct {
		mode, status, errPart string
		args                  []string
	}{
		{mode: "fail", status: "failed"},
		{mode: "crash", status: "failed"},
		{mode: "stderr", status: "failed"},
		{mode: "hang", status: "failed", errPart: "timeout", args: []string{"--run-timeout", "1s"}},
		// A limit under a millisecond is a limit, not the 0 that means none
		// (issue 34: the run hung on).
		{mode: "hang", status: "failed", errPart: "timeout", args: []string{"--run-timeout", "999us"}},
		{mode: "huge", status: "succeeded"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			var d run.Detail
			args := append([]string{"run", "spawn", "-p", "[fake:" + tc.mode + "] go", "--wait"}, tc.args...)
			// A run waited for that fails fails the call (RUN_FAILED, exit
			// 1), whose data is the run all the same.
			e, r := sb.agent(t, sb.inSpace("s1"), args...)
			if failed := tc.status == "failed"; failed == e.OK || failed && (r.code != 1 || e.Error == nil || e.Error.Code != "RUN_FAILED") {
				t.Errorf("spawn --wait of a run that %s: exit %d, error %+v", tc.status, r.code, e.Error)
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatalf("data %s: %v", e.Data, err)
			}
			if d.Status != tc.status || (tc.status == "failed" && d.Error == "") || !strings.Contains(d.Error, tc.errPart) {
				t.Errorf("run = status %s, error %q; want %s with %q", d.Status, d.Error, tc.status, tc.errPart)
			}
			if tc.mode == "hang" {
				recs := harnesstest.Records(t, sb.record)
				rec := recs[len(recs)-1]
				if rec.ChildPID == 0 {
					t.Fatal("the hanging harness recorded no child")
				}
				eventually(t, "the harness's child to be killed with its group", func() bool { return !alive(rec.ChildPID) })
			}
			if tc.mode == "huge" {
				info, err := os.Stat(filepath.Join(string(d.Dir), "output", "stdout.jsonl"))
				if err != nil || info.Size() < 10<<20 {
					t.Errorf("stdout.jsonl: %v, %d bytes; want the whole flood", err, info.Size())
				}
			}
		})
	}
}

// TestInterruptedWait: Ctrl-C on `run spawn --wait` cancels the run with
// the CLI: one envelope, exit 130, the run finalized cancelled, its harness
// gone.
func TestInterruptedWait(t *testing.T) {
	sb := newSandbox(t)
	cmd := execMeridian(sb, sb.env, "run", "spawn", "-p", "[fake:hang] wait forever", "--wait")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the harness to start", func() bool { return len(harnesstest.Records(t, sb.record)) == 1 })
	cmd.Process.Signal(syscall.SIGINT)
	code := exitCode(cmd.Wait())
	var e envelope
	if err := json.Unmarshal([]byte(stdout.String()), &e); err != nil || code != 130 || e.Error == nil || e.Error.Code != "CANCELLED" {
		t.Fatalf("exit %d, stdout %q", code, stdout.String())
	}
	// The signal is named in error.context, and data says the run was cut
	// short (REQ-F-069, REQ-F-013).
	if e.Error.Context["signal"] != "SIGINT" || string(e.Data) != `{"partial":true}` || e.Meta["exit_code"] != 130.0 {
		t.Errorf("error.context %v, data %s, meta.exit_code %v; want signal SIGINT, {\"partial\":true} and 130", e.Error.Context, e.Data, e.Meta["exit_code"])
	}
	var d run.Detail
	eventually(t, "the run to be finalized", func() bool {
		sb.ok(t, sb.inSpace("s1"), &d, "run", "show", "r1")
		return d.Status != "running"
	})
	if d.Status != "cancelled" {
		t.Errorf("run = %+v, want cancelled", d)
	}
	rec := harnesstest.Records(t, sb.record)[0]
	eventually(t, "the harness to be gone", func() bool { return !alive(rec.PID) && !alive(rec.ChildPID) })
}

// TestConcurrentSpawns: 32 `run spawn` processes at once in one space get 32
// distinct ids; runs.jsonl holds 32 starts and 32 finalizes (and the session
// updates between), every line well formed.
func TestConcurrentSpawns(t *testing.T) {
	sb := newSandbox(t)
	var first run.Detail
	sb.ok(t, sb.env, &first, "run", "spawn", "-p", "create the space", "--wait")
	const n = 32
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var d run.Detail
			sb.ok(t, sb.inSpace("s1"), &d, "run", "spawn", "-p", "job "+strconv.Itoa(i))
			ids[i] = d.ID
		})
	}
	wg.Wait()
	slices.Sort(ids)
	if got := len(slices.Compact(slices.Clone(ids))); got != n {
		t.Fatalf("%d distinct ids among %q", got, ids)
	}
	var w run.Waited
	sb.ok(t, sb.inSpace("s1"), &w, append([]string{"run", "wait"}, ids...)...)
	if w.Succeeded != n {
		t.Errorf("wait: %d succeeded of %d", w.Succeeded, len(w.Runs))
		for _, r := range w.Runs {
			if r.Status != "succeeded" {
				out, _ := json.Marshal(r)
				t.Logf("%s", out) // why, should it happen again
			}
		}
	}
	// Paged newest first, page by page, to the end.
	var seen []string
	args := []string{"run", "list", "--limit", "10"}
	for {
		var page []run.Summary
		e := sb.ok(t, sb.inSpace("s1"), &page, args...)
		for _, s := range page {
			seen = append(seen, s.ID)
		}
		// A page is read from the end of the log only as far as it goes:
		// the total is known once the last page reaches the log's start.
		pg := e.Meta["pagination"].(map[string]any)
		if total := pg["total"]; pg["has_more"] == true && total != nil || pg["has_more"] != true && total != float64(n+1) {
			t.Fatalf("pagination %v, want total null with more to come, %d on the last page", pg, n+1)
		}
		if pg["has_more"] != true {
			break
		}
		args = []string{"run", "list", "--limit", "10", "--cursor", pg["next_cursor"].(string)}
	}
	if len(seen) != n+1 || seen[0] != fmt.Sprintf("r%d", n+1) || seen[n] != "r1" {
		t.Errorf("pages gave %q; want r%d down to r1", seen, n+1)
	}
	count := map[string]int{}
	for _, ev := range sb.events(t, "s1") {
		count[ev["event"].(string)]++
	}
	if count["start"] != n+1 || count["finalize"] != n+1 {
		t.Errorf("events %v; want %d starts and %d finalizes", count, n+1, n+1)
	}
}

// TestOrphanedRun: a supervisor killed with SIGKILL takes its harness with
// it (the kernel's parent-death signal) and leaves the run running; wait
// wakes at once and says so; doctor finalizes it as orphaned and stops the
// process the harness left in its group.
func TestOrphanedRun(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "[fake:hang] forever")
	eventually(t, "the harness to start", func() bool { return len(harnesstest.Records(t, sb.record)) == 1 })
	rec := harnesstest.Records(t, sb.record)[0]
	t.Cleanup(func() { syscall.Kill(rec.ChildPID, syscall.SIGKILL) })
	supervisor := parentOf(t, rec.PID)
	if err := syscall.Kill(supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the harness to die with its supervisor", func() bool { return !alive(rec.PID) })

	var w run.Waited
	e := sb.ok(t, sb.inSpace("s1"), &w, "run", "wait", "r1")
	if w.Running != 1 || !hasWarning(e.Warnings, "RUN_ORPHANED") {
		t.Errorf("wait = %+v, warnings %q", w, e.Warnings)
	}
	if !alive(rec.ChildPID) {
		t.Fatal("the harness's child died with the supervisor: nothing left for doctor to stop")
	}
	var rep struct {
		Repaired []struct{ Kind, Space, ID, Detail string }
	}
	sb.ok(t, sb.env, &rep, "doctor")
	if len(rep.Repaired) == 0 || rep.Repaired[0].Kind != "orphan_run" || rep.Repaired[0].ID != "r1" ||
		!strings.Contains(rep.Repaired[0].Detail, "stopped 1 process") {
		t.Errorf("doctor repaired %+v", rep.Repaired)
	}
	eventually(t, "the harness's leftover child to be stopped", func() bool { return !alive(rec.ChildPID) })
	var d run.Detail
	sb.ok(t, sb.inSpace("s1"), &d, "run", "show", "r1")
	if d.Status != "failed" || !strings.Contains(d.Error, "orphan_run") {
		t.Errorf("run after doctor = %+v", d)
	}
	sb.ok(t, sb.env, &rep, "doctor")
	if slices.ContainsFunc(rep.Repaired, func(r struct{ Kind, Space, ID, Detail string }) bool { return r.Kind == "orphan_run" }) {
		t.Errorf("a second doctor repaired again: %+v", rep.Repaired)
	}
}

// parentOf reads a process's parent from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// TestTornLog: a crash mid-append leaves a partial last line; the readers
// skip it with a warning, and the next run moves it to runs.jsonl.torn and
// gets the id the torn start never recorded.
func TestTornLog(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "--wait")
	f, err := os.OpenFile(filepath.Join(sb.spaceDir("s1"), "runs.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"event":"start","id":"r2","mod`)
	f.Close()
	var list []run.Summary
	e := sb.ok(t, sb.inSpace("s1"), &list, "run", "list")
	if len(list) != 1 || !hasWarning(e.Warnings, "RUNS_LOG_DAMAGED") {
		t.Errorf("list = %+v, warnings %q", list, e.Warnings)
	}
	var d run.Detail
	sb.ok(t, sb.inSpace("s1"), &d, "run", "spawn", "-p", "two", "--wait")
	if d.ID != "r2" || d.Status != "succeeded" {
		t.Errorf("spawn after the torn line = %s %s; want r2 succeeded", d.ID, d.Status)
	}
	e = sb.ok(t, sb.inSpace("s1"), &list, "run", "list")
	if len(list) != 2 || len(e.Warnings) != 0 {
		t.Errorf("list after = %+v, warnings %q; want r2 and r1, no damage", list, e.Warnings)
	}
	if aside, err := os.ReadFile(filepath.Join(sb.spaceDir("s1"), "runs.jsonl.torn")); !strings.HasPrefix(string(aside), `{"v":1,"event":"start","id":"r2","mod`) {
		t.Errorf("runs.jsonl.torn = %q, %v", aside, err)
	}
}

// TestWaitReturns: `run wait` returns when the run ends, with its outcome,
// and at once for a run already over. What the wait costs in CPU — that it
// sleeps rather than polls — is BenchmarkWait's to measure (bench/meridian.sh).
func TestWaitReturns(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "[fake:sleep=2s] slowly")
	start := time.Now()
	var w run.Waited
	e, _ := sb.agent(t, sb.inSpace("s1"), "run", "wait", "r1")
	if err := json.Unmarshal(e.Data, &w); err != nil || w.Succeeded != 1 {
		t.Fatalf("wait = %s, %v", e.Data, err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("wait returned after %s, before the run ended", waited)
	}
	e2, _ := sb.agent(t, sb.inSpace("s1"), "run", "wait", "r1", "--timeout", "1s")
	if !e2.OK {
		t.Errorf("waiting for a finished run: %+v", e2.Error)
	}
}

// TestWaitTimeout: a wait that runs out of time says so with exit 10 and
// leaves the run going.
func TestWaitTimeout(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "[fake:hang] forever", "--run-timeout", "30s")
	e := sb.fails(t, sb.inSpace("s1"), "WAIT_TIMEOUT", 10, "run", "wait", "--timeout", "500ms")
	if !e.Retryable || !strings.Contains(e.Message, "r1") {
		t.Errorf("WAIT_TIMEOUT = %+v", e)
	}
	var d run.Detail
	sb.ok(t, sb.inSpace("s1"), &d, "run", "show", "r1")
	if d.Status != "running" {
		t.Errorf("the run after a timed-out wait is %s, want running", d.Status)
	}
	sb.fails(t, sb.inSpace("s1"), "RUN_STILL_RUNNING", 6, "run", "continue", "r1", "-p", "x")
	sb.fails(t, sb.inSpace("s1"), "RUN_NOT_FOUND", 5, "run", "wait", "r9")
	sb.invalid(t, sb.inSpace("s1"), "run", "show", "<run-id>")
}

func execMeridian(sb *sandbox, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, sb.dir
	return cmd
}

// TestOneTurnAtATime: a conversation takes one turn at a time. Six
// `run continue r1` at once start one turn; the others are refused with
// LOCK_HELD (exit 6), naming the turn under way and when to retry (issue
// 34: twelve started twelve concurrent turns of one conversation).
func TestOneTurnAtATime(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "start the conversation", "--wait") // r1, with a harness session
	var wg sync.WaitGroup
	outs, codes := make([][]byte, 6), make([]int, 6)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := execMeridian(sb, sb.inSpace("s1"), "run", "continue", "r1", "-p", "[fake:hang] a long turn", "--run-timeout", "1m")
			out, err := cmd.Output()
			outs[i], codes[i] = out, exitCode(err)
		}()
	}
	wg.Wait()
	results := make([]envelope, len(outs))
	for i, out := range outs {
		if err := json.Unmarshal(out, &results[i]); err != nil {
			t.Fatalf("run continue r1: not one envelope: %v\n%s", err, out)
		}
	}
	started, held := 0, 0
	for i, e := range results {
		switch {
		case codes[i] == 0:
			started++
		case codes[i] == 6 && e.Error != nil && e.Error.Code == "LOCK_HELD" && e.Error.Retryable:
			held++
		default:
			t.Errorf("run continue r1: exit %d, %+v", codes[i], e.Error)
		}
	}
	if started != 1 || held != 5 {
		t.Errorf("six turns at once: %d started, %d refused LOCK_HELD; want 1 and 5", started, held)
	}
	sb.ok(t, sb.inSpace("s1"), nil, "run", "cancel", "r2")
}
