//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// ===========================================================================
// Work that outlives the caller's budget (CLI Agent Spec §79). crunch
// declares Interruption{Detach, IdleTimeout: 1.5s}: past its budget it goes
// on as a job. tally (safe) and journal (mutating: it appends each line of
// its file to --to) declare Interruption{Resume}: they checkpoint after each
// line, and the identical call continues from the last checkpoint. Their
// --hold-at/--gate make them wait, after a given line, for a file the test
// creates once it has seen them hold, so no assertion depends on timing.

// lines is the input file of tally and journal.
const lines = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n"

// untilExists waits, within a minute, for path to exist.
func untilExists(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !exists(path); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within a minute", path)
		}
	}
}

// touch creates an empty file.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkpoints are the checkpoint files the sandbox's tool keeps.
func (sb *sandbox) checkpoints(t *testing.T) []string {
	t.Helper()
	names, _ := filepath.Glob(sb.path("home", ".local", "state", "e2eapp", "checkpoints", "*.json"))
	return names
}

// savedDone is the done of the one checkpoint the tool keeps.
func (sb *sandbox) savedDone(t *testing.T) float64 {
	t.Helper()
	names := sb.checkpoints(t)
	if len(names) != 1 {
		t.Fatalf("checkpoints %v, want one", names)
	}
	var saved map[string]any
	if err := json.Unmarshal([]byte(readFile(t, names[0])), &saved); err != nil {
		t.Fatal(err)
	}
	return get(saved, "state.done").(float64)
}

// progressField is one field of each progress event on a run's stderr,
// its zero value where an event has none.
func progressField[T any](stderr, field string) []T {
	var out []T
	for _, line := range strings.Split(stderr, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil && ev["type"] == "progress" {
			v, _ := ev[field].(T)
			out = append(out, v)
		}
	}
	return out
}

// progressDone are the done of the progress events on a run's stderr.
func progressDone(stderr string) []float64 { return progressField[float64](stderr, "done") }

// continueUntilDone runs data.continue_command verbatim (its words, none
// quoted) until it exits other than 14, and returns that last envelope and
// the progress.done of every INCOMPLETE answer, the first's included.
func (sb *sandbox) continueUntilDone(t *testing.T, first map[string]any, code int) (map[string]any, []float64) {
	t.Helper()
	env := first
	var done []float64
	for range 50 {
		if get(env, "meta.exit_code") != 14.0 {
			return env, done
		}
		d, _ := get(env, "data.progress.done").(float64)
		done = append(done, d)
		line, _ := get(env, "data.continue_command").(string)
		words := strings.Fields(line)
		if len(words) < 2 || words[0] != "e2eapp" {
			t.Fatalf("continue_command %q is not an e2eapp command line", line)
		}
		r := sb.run(t, words[1:]...)
		if r.code != 14 {
			env = expect(t, line, r, code)
			return env, done
		}
		env = expect(t, line, r, 14)
	}
	t.Fatalf("still INCOMPLETE after 50 continuations")
	return nil, nil
}

// TestF081JobStalled (REQ-F-081, v1.15): a detached job that reports no
// progress for idle_timeout_ms ends as TIMEOUT (10) with error.code
// STALLED, which `job wait` answers as the command's own; a job that
// reports progress runs past its idle limit to its end. The rest of the
// row — own session, descriptors closed, the identical call attaching —
// is meridian's run wait's.
func TestF081JobStalled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		code int
		want map[string]any
	}{
		{"no progress after the first item", []string{"--stall-after", "1"}, 10,
			map[string]any{"error.code": "STALLED", "error.retryable": false, "data": nil}},
		{"progress every 100ms for 3s", []string{"--items", "30", "--every", "100ms"}, 0,
			map[string]any{"data.items": 30.0, "error": nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			started := expect(t, "crunch", sb.run(t, append([]string{"crunch", "--budget", "200ms"}, tt.args...)...), 14)
			want(t, "crunch", started, map[string]any{"data.state": "running", "error.code": "INCOMPLETE"})
			id, _ := get(started, "data.job_id").(string)
			done := expect(t, "job wait", sb.run(t, "job", "wait", id, "--budget", "0"), tt.code)
			want(t, "job wait", done, tt.want)
		})
	}
	want(t, "crunch --schema", newSandbox(t).schemaOf(t, "crunch"), map[string]any{"interruption.idle_timeout_ms": 1500.0, "interruption.detach": true})
}

// TestC034ProgressReported (REQ-C-034, v1.15): a command that declares
// interruption and goes more than 10 s without a new progress report gets
// a PROGRESS_GAP warning on its answer — the lifecycle holds it to the
// 10 s; one that reports steadily for as long gets none; and the progress
// an INCOMPLETE answer carries never goes back, though the command's
// reports did.
func TestC034ProgressReported(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"silent for 10.5s", []string{"--items", "1", "--every", "10500ms"}, []string{"PROGRESS_GAP"}},
		{"a report every 100ms for 10.5s", []string{"--items", "105", "--every", "100ms"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := expect(t, "crunch", newSandbox(t).run(t, append([]string{"crunch", "--budget", "0"}, tt.args...)...), 0)
			if diff := cmp.Diff(tt.want, warningCodes(env)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("done never decreases", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		gate := sb.path("gate")
		if err := os.Mkdir(gate, 0o700); err != nil {
			t.Fatal(err)
		}
		// 5 of 5 reported, then 3 of 5; the job holds after both.
		started := expect(t, "crunch", sb.run(t, "crunch", "--items", "5", "--every", "10ms", "--back", "--hold", gate, "--budget", "100ms"), 14)
		id, _ := get(started, "data.job_id").(string)
		untilExists(t, filepath.Join(gate, "reported"))
		env := expect(t, "job wait", sb.run(t, "job", "wait", id, "--budget", "100ms"), 14)
		want(t, "job wait", env, map[string]any{"data.progress.done": 5.0, "data.progress.total": 5.0, "data.progress.unit": "items"})
		touch(t, filepath.Join(gate, "release"))
		want(t, "job wait", expect(t, "job wait", sb.run(t, "job", "wait", id, "--budget", "0"), 0), map[string]any{"data.items": 5.0})
	})
}

// TestC035Checkpoints (REQ-C-035, v1.15): every criterion on tally and
// journal, which checkpoint after each line. A run killed with SIGKILL
// midway is resumed by the identical invocation from its last checkpoint
// (its first progress not below it) and ends as an uninterrupted run does;
// the resumed writer appends no line twice; a changed input discards the
// checkpoint with CHECKPOINT_DISCARDED and starts over; SIGTERM between a
// write and its checkpoint stops the work at that checkpoint, which records
// the write; the call's budget stops it at the first checkpoint after it
// ran out (F-080, F-082: INCOMPLETE paused); a completed run leaves no
// checkpoint, so the identical call starts fresh; `job cancel` discards one.
func TestC035Checkpoints(t *testing.T) {
	t.Parallel()
	uninterrupted := map[string]any{"data.lines": 6.0, "data.chars": float64(len(strings.ReplaceAll(lines, "\n", "")))}
	progress := []string{"DUET_PROGRESS=1"}

	t.Run("kill -9, then the identical invocation", func(t *testing.T) {
		t.Parallel()
		sb, gate := checkpointSandbox(t)
		args := []string{"journal", "in.txt", "--to", "out.txt", "--hold-at", "3", "--gate", gate, "--budget", "0"}
		cmd := sb.command(sb.dir, progress, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		untilExists(t, filepath.Join(gate, "held"))
		cmd.Process.Kill()
		cmd.Wait()
		saved := sb.savedDone(t)
		r := sb.runEnv(t, progress, args...)
		want(t, "the identical invocation", expect(t, "the identical invocation", r, 0), uninterrupted)
		if done := progressDone(r.stderr); len(done) == 0 || done[0] < saved {
			t.Errorf("progress done %v: the first is below the checkpoint's %v", done, saved)
		}
		if got := readFile(t, sb.path("out.txt")); got != lines {
			t.Errorf("out.txt:\n%s\nwant each line once:\n%s", got, lines)
		}
	})
	t.Run("a changed input", func(t *testing.T) {
		t.Parallel()
		sb, _ := checkpointSandbox(t)
		first := expect(t, "tally", sb.run(t, "tally", "in.txt", "--every", "100ms", "--budget", "250ms"), 14)
		want(t, "tally", first, map[string]any{"data.state": "paused"})
		if err := os.WriteFile(sb.path("in.txt"), []byte(lines+"eta\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := sb.runEnv(t, progress, "tally", "in.txt", "--every", "100ms", "--budget", "0")
		env := expect(t, "tally, the input changed", r, 0)
		want(t, "tally, the input changed", env, map[string]any{"data.lines": 7.0, "data.chars": float64(len(strings.ReplaceAll(lines, "\n", "")) + 3)})
		if !slices.Contains(warningCodes(env), "CHECKPOINT_DISCARDED") {
			t.Errorf("warnings %v, want CHECKPOINT_DISCARDED", warningCodes(env))
		}
		if done := progressDone(r.stderr); len(done) == 0 || done[0] != 0 {
			t.Errorf("progress done %v: want a run from the start", done)
		}
	})
	t.Run("SIGTERM between a write and its checkpoint", func(t *testing.T) {
		t.Parallel()
		sb, gate := checkpointSandbox(t)
		args := []string{"journal", "in.txt", "--to", "out.txt", "--hold-at", "2", "--hold-where", "write", "--gate", gate, "--budget", "0"}
		cmd := sb.command(sb.dir, nil, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		untilExists(t, filepath.Join(gate, "held"))
		cmd.Process.Signal(syscall.SIGTERM)
		// Held past its write, and signalled: let it go on to the checkpoint.
		touch(t, filepath.Join(gate, "go"))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			r := result{stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err)}
			want(t, "journal, SIGTERM", expect(t, "journal, SIGTERM", r, 143), map[string]any{"error.code": "CANCELLED"})
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatal("journal did not end within a minute of SIGTERM")
		}
		// The stop is taken at the checkpoint after the held write (or, if
		// the signal arrived after it, at the next): every line written is
		// one the checkpoint records.
		if got, saved := readFile(t, sb.path("out.txt")), sb.savedDone(t); saved < 2 || got != strings.Join(strings.SplitAfter(lines, "\n")[:int(saved)], "") {
			t.Errorf("out.txt %q, checkpoint done %v: want the lines written to be those the checkpoint records, two at least", got, saved)
		}
		want(t, "the identical invocation", expect(t, "the identical invocation", sb.run(t, args...), 0), uninterrupted)
		if got := readFile(t, sb.path("out.txt")); got != lines {
			t.Errorf("out.txt:\n%s\nwant each line once:\n%s", got, lines)
		}
	})
	for _, tt := range []struct {
		command   string
		args      []string
		retryable bool
		key       bool // continue_command carries --idempotency-key
	}{
		{"tally", []string{"tally", "in.txt", "--every", "100ms", "--budget", "250ms"}, true, false},
		{"journal", []string{"journal", "in.txt", "--to", "out.txt", "--every", "100ms", "--budget", "250ms"}, false, true},
	} {
		t.Run("the budget runs out: "+tt.command, func(t *testing.T) {
			t.Parallel()
			sb, _ := checkpointSandbox(t)
			first := expect(t, tt.command, sb.run(t, tt.args...), 14)
			line, _ := get(first, "data.continue_command").(string)
			want(t, tt.command, first, map[string]any{"data.state": "paused", "error.code": "INCOMPLETE", "error.retryable": tt.retryable,
				"meta.budget_ms": 250.0, "data.cancel_command": "e2eapp job cancel " + get(first, "data.job_id").(string)})
			original := "e2eapp " + strings.Join(tt.args, " ")
			if tt.key {
				if !strings.HasPrefix(line, original+" --idempotency-key ") {
					t.Errorf("continue_command %q: want the original invocation with --idempotency-key", line)
				}
			} else if line != original {
				t.Errorf("continue_command %q, want the original invocation %q", line, original)
			}
			if saved := sb.savedDone(t); saved < 1 || saved != get(first, "data.progress.done") {
				t.Errorf("checkpoint done %v, progress %v: want the work stopped at a checkpoint", saved, get(first, "data.progress.done"))
			}
			last, done := sb.continueUntilDone(t, first, 0)
			want(t, "the last continuation", last, uninterrupted)
			if !slices.IsSorted(done) {
				t.Errorf("progress done %v went back", done)
			}
			if tt.key {
				if got := readFile(t, sb.path("out.txt")); got != lines {
					t.Errorf("out.txt:\n%s\nwant each line once:\n%s", got, lines)
				}
			}
			// Complete: no checkpoint left; the identical call starts fresh.
			if names := sb.checkpoints(t); len(names) != 0 {
				t.Errorf("checkpoints %v left behind", names)
			}
			r := sb.runEnv(t, progress, append(slices.Clone(tt.args[:len(tt.args)-2]), "--budget", "0")...)
			want(t, "the same with --budget 0", expect(t, "the same with --budget 0", r, 0), uninterrupted)
			if done := progressDone(r.stderr); len(done) == 0 || done[0] != 0 {
				t.Errorf("progress done %v: want a fresh start", done)
			}
		})
	}
	t.Run("job cancel discards the checkpoint", func(t *testing.T) {
		t.Parallel()
		sb, _ := checkpointSandbox(t)
		first := expect(t, "tally", sb.run(t, "tally", "in.txt", "--every", "100ms", "--budget", "250ms"), 14)
		line, _ := get(first, "data.cancel_command").(string)
		env := expect(t, line, sb.run(t, strings.Fields(line)[1:]...), 0)
		want(t, line, env, map[string]any{"data.status": "cancelled", "meta.effect": "deleted"})
		if names := sb.checkpoints(t); len(names) != 0 {
			t.Errorf("checkpoints %v left after the cancel", names)
		}
	})
}

// TestF080BudgetResolves (REQ-F-080, v1.15): --budget takes precedence over
// AGENT_CALL_BUDGET_MS, which applies without it; with neither, an agent's
// budget is 30000 ms; --budget 0 waits for the work; work done within the
// budget answers as usual; meta.budget_ms says which, on tally (a
// resumable command). At a terminal only --budget applies.
func TestF080BudgetResolves(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		code int
		ms   float64
	}{
		{"--budget 0 over the variable", []string{"AGENT_CALL_BUDGET_MS=100"}, []string{"--budget", "0"}, 0, 0},
		{"--budget 5s over the variable", []string{"AGENT_CALL_BUDGET_MS=100"}, []string{"--budget", "5s"}, 0, 5000},
		{"the variable", []string{"AGENT_CALL_BUDGET_MS=150"}, nil, 14, 150},
		{"neither", nil, nil, 0, 30000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			if err := os.WriteFile(sb.path("in.txt"), []byte(lines), 0o600); err != nil {
				t.Fatal(err)
			}
			r := sb.runEnv(t, tt.env, append([]string{"tally", "in.txt", "--every", "50ms"}, tt.args...)...)
			want(t, "tally", expect(t, "tally", r, tt.code), map[string]any{"meta.budget_ms": tt.ms})
		})
	}
	// At a terminal a person keeps the ordinary run: the variable is not
	// theirs; --budget, given, applies.
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"at a terminal, the variable", nil, 0},
		{"at a terminal, --budget", []string{"--budget", "100ms"}, 14},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			if err := os.WriteFile(sb.path("in.txt"), []byte(lines), 0o600); err != nil {
				t.Fatal(err)
			}
			screen, code := sb.pty(t, []string{"AGENT_CALL_BUDGET_MS=100"}, append([]string{"tally", "in.txt", "--every", "50ms"}, tt.args...)...).Wait(t)
			if code != tt.code {
				t.Errorf("exit %d, want %d: %q", code, tt.code, screen)
			}
		})
	}
}

// TestC033InterruptionDeclared (REQ-C-033, v1.15): Resume alone is a
// declaration Duet keeps — tally's and journal's --schema carry
// interruption {detach: false, resume: true}, an INCOMPLETE (14) entry,
// --budget, and on journal, which writes, --idempotency-key; an
// interruption with neither Detach nor Resume, or on a streaming command,
// keeps the binary from starting; a command that declares none has no
// --budget and ignores AGENT_CALL_BUDGET_MS.
func TestC033InterruptionDeclared(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for _, tt := range []struct {
		command   string
		retryable bool
		flags     []string
	}{
		{"tally", true, []string{"budget"}},
		{"journal", false, []string{"budget", "idempotency-key"}},
	} {
		doc := sb.schemaOf(t, tt.command)
		want(t, tt.command+" --schema", doc, map[string]any{"interruption.detach": false, "interruption.resume": true,
			"exit_codes.14.name": "INCOMPLETE", "exit_codes.14.retryable": tt.retryable})
		for _, f := range tt.flags {
			if !slices.Contains(flagNames(doc), f) {
				t.Errorf("%s --schema: no --%s among %v", tt.command, f, flagNames(doc))
			}
		}
	}
	if flags := flagNames(sb.schemaOf(t, "analyze")); slices.Contains(flags, "budget") {
		t.Errorf("analyze, which declares no interruption, has --budget")
	}
	env := expect(t, "analyze", sb.runEnv(t, []string{"AGENT_CALL_BUDGET_MS=1"}, "analyze", "--batches", "1"), 0)
	if get(env, "meta.budget_ms") != nil {
		t.Errorf("analyze answered meta.budget_ms %v: it declares no interruption", get(env, "meta.budget_ms"))
	}
	for _, tt := range []struct{ misdeclare, says string }{
		{"interruption-neither", "declares neither Detach nor Resume"},
		{"interruption-streaming", "cannot go with an async, streaming, interactive or protocol command"},
	} {
		r := sandboxFor(t, misdeclared).runEnv(t, []string{"E2EAPP_MISDECLARE=" + tt.misdeclare}, "status")
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `command "scan"`) || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want it not to start, saying %q", tt.misdeclare, r.code, r.stdout, r.stderr, tt.says)
		}
	}
}

// TestF081DetachedJob (REQ-F-081, v1.15): past its budget, crunch's work
// goes on in a job of its own: the call returns while the job runs (its
// stdout and stderr pipes closed, else the run would wait for the job),
// the job's process leads a session of its own and is recorded in the
// per-user job directory, the identical invocation attaches to it (the
// same job_id), and once its process is killed, `job wait` answers
// JOB_LOST.
func TestF081DetachedJob(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	gate := sb.path("gate")
	if err := os.Mkdir(gate, 0o700); err != nil {
		t.Fatal(err)
	}
	args := []string{"crunch", "--items", "1", "--every", "1ms", "--hold", gate, "--budget", "100ms"}
	first := expect(t, "crunch", sb.run(t, args...), 14)
	id, _ := get(first, "data.job_id").(string)
	untilExists(t, filepath.Join(gate, "reported"))
	var job struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal([]byte(readFile(t, sb.path("home", ".local", "state", "e2eapp", "jobs", id+".json"))), &job); err != nil || job.PID == 0 {
		t.Fatalf("the job's record in the per-user job directory: %v, pid %d", err, job.PID)
	}
	if sid, err := unix.Getsid(job.PID); err != nil || sid != job.PID {
		t.Errorf("the job's process %d is in session %d (%v); want a session of its own", job.PID, sid, err)
	}
	again := expect(t, "the identical invocation", sb.run(t, args...), 14)
	want(t, "the identical invocation", again, map[string]any{"data.job_id": id, "data.state": "running"})
	if err := syscall.Kill(job.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Killed, its lock is free once the process is gone: wait for that.
	for deadline := time.Now().Add(time.Minute); syscall.Kill(job.PID, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the job's process %d did not end within a minute of SIGKILL", job.PID)
		}
	}
	want(t, "job wait", expect(t, "job wait", sb.run(t, "job", "wait", id, "--budget", "0"), 1), map[string]any{"error.code": "JOB_LOST"})
}

// TestC033MaxLifetime (REQ-C-033 with REQ-F-011, v1.15): grind declares
// Interruption{Detach, MaxLifetime: 2s}, which --schema publishes and which
// is its time limit when no --timeout is given: a call that waits for the
// work (--budget 0) and the job a budget hands it to both end TIMEOUT (10)
// once the work outlives it, where an explicit --timeout lets the same work
// finish.
func TestC033MaxLifetime(t *testing.T) {
	t.Parallel()
	want(t, "grind --schema", newSandbox(t).schemaOf(t, "grind"), map[string]any{"interruption.max_lifetime_ms": 2000.0, "interruption.detach": true})
	long := []string{"grind", "--items", "100", "--every", "100ms"} // 10 s of work
	t.Run("a call that waits for the work", func(t *testing.T) {
		t.Parallel()
		env := expect(t, "grind --budget 0", newSandbox(t).run(t, append(long, "--budget", "0")...), 10)
		want(t, "grind --budget 0", env, map[string]any{"error.code": "TIMEOUT", "meta.timeout_ms": 2000.0})
	})
	t.Run("the job the budget hands it to", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		started := expect(t, "grind --budget 200ms", sb.run(t, append(long, "--budget", "200ms")...), 14)
		want(t, "grind --budget 200ms", started, map[string]any{"data.state": "running"})
		id, _ := get(started, "data.job_id").(string)
		want(t, "job wait", expect(t, "job wait", sb.run(t, "job", "wait", id, "--budget", "0"), 10), map[string]any{"error.code": "TIMEOUT"})
	})
	t.Run("an explicit --timeout", func(t *testing.T) {
		t.Parallel()
		env := expect(t, "grind --timeout 30s", newSandbox(t).run(t, "grind", "--items", "30", "--every", "100ms", "--budget", "0", "--timeout", "30s"), 0)
		want(t, "grind --timeout 30s", env, map[string]any{"data.items": 30.0, "meta.timeout_ms": 30000.0})
	})
}

// progressUnits are the unit of the progress events on a run's stderr.
func progressUnits(stderr string) []string { return progressField[string](stderr, "unit") }

// TestC034ProgressUnit (REQ-C-034, REQ-F-082, v1.15): progress carries the
// unit its command counts in (Output.ProgressIn): linesum reports lines,
// and its paused INCOMPLETE answer's data.progress says so, as its progress
// events do; crunch reports items, which a running job's answer carries
// (TestC034ProgressReported); tally, which reports with Output.Progress,
// the API without a unit, answers a progress with none.
func TestC034ProgressUnit(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	r := sb.feed(t, lines, []string{"DUET_PROGRESS=1"}, "linesum", "--every", "100ms", "--budget", "250ms")
	env := expect(t, "linesum", r, 14)
	want(t, "linesum", env, map[string]any{"data.state": "paused", "data.progress.unit": "lines"})
	if done, _ := get(env, "data.progress.done").(float64); done < 1 {
		t.Errorf("linesum's paused progress.done %v, want a line counted at least", done)
	}
	if units := progressUnits(r.stderr); len(units) == 0 || slices.ContainsFunc(units, func(u string) bool { return u != "lines" }) {
		t.Errorf("linesum's progress events have units %v, want lines in each", units)
	}
	if err := os.WriteFile(sb.path("in.txt"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	env = expect(t, "tally", sb.run(t, "tally", "in.txt", "--every", "100ms", "--budget", "250ms"), 14)
	want(t, "tally", env, map[string]any{"data.state": "paused", "data.progress.unit": nil})
}

// TestC035StdinDigest (REQ-C-035, v1.15): linesum reads its lines from stdin
// as they come, so what makes its call identical includes the bytes of
// stdin it read: each checkpoint records their digest. The identical call,
// the same lines piped again, resumes from the checkpoint (its first
// progress not below it) and answers as an uninterrupted run; a call given
// other lines discards the checkpoint with CHECKPOINT_DISCARDED and counts
// from the start.
func TestC035StdinDigest(t *testing.T) {
	t.Parallel()
	other := "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	for _, tt := range []struct {
		name, stdin string
		discarded   bool
	}{
		{"the same stdin", lines, false},
		{"other lines on stdin", other, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			first := expect(t, "linesum", sb.feed(t, lines, nil, "linesum", "--every", "100ms", "--budget", "250ms"), 14)
			want(t, "linesum", first, map[string]any{"data.state": "paused", "data.continue_command": "e2eapp linesum --every 100ms --budget 250ms"})
			saved := sb.savedDone(t)
			r := sb.feed(t, tt.stdin, []string{"DUET_PROGRESS=1"}, "linesum", "--every", "100ms", "--budget", "0")
			env := expect(t, "linesum again", r, 0)
			want(t, "linesum again", env, map[string]any{
				"data.lines": float64(strings.Count(tt.stdin, "\n")),
				"data.chars": float64(len(strings.ReplaceAll(tt.stdin, "\n", ""))),
			})
			if got := slices.Contains(warningCodes(env), "CHECKPOINT_DISCARDED"); got != tt.discarded {
				t.Errorf("warnings %v: CHECKPOINT_DISCARDED %v, want %v", warningCodes(env), got, tt.discarded)
			}
			done := progressDone(r.stderr)
			switch {
			case len(done) == 0:
				t.Errorf("no progress reported")
			case tt.discarded && done[0] != 0:
				t.Errorf("progress done %v: want a run from the start", done)
			case !tt.discarded && done[0] < saved:
				t.Errorf("progress done %v: the first is below the checkpoint's %v", done, saved)
			}
			if names := sb.checkpoints(t); len(names) != 0 {
				t.Errorf("checkpoints %v left after a completed run", names)
			}
		})
	}
}

// TestC035DetachedResumable (REQ-C-035 with REQ-F-081, v1.15): logbook
// declares Interruption{Detach, Resume}: past its budget its work goes on
// in a job, which checkpoints as journal does. `job cancel` of the running
// job sends it SIGTERM, which it takes at a checkpoint — held after a
// write, it is let go only once the cancel is asked — so that the lines it
// wrote are those its last progress counted; the job ends cancelled and its
// checkpoint is removed. A job killed with SIGKILL leaves its checkpoint,
// and the identical invocation's new job resumes from it, appending no line
// twice.
func TestC035DetachedResumable(t *testing.T) {
	t.Parallel()
	jobs := func(sb *sandbox, name string) string {
		return sb.path("home", ".local", "state", "e2eapp", "jobs", name)
	}

	t.Run("job cancel", func(t *testing.T) {
		t.Parallel()
		sb, gate := checkpointSandbox(t)
		started := expect(t, "logbook", sb.run(t, "logbook", "in.txt", "--to", "out.txt", "--every", "300ms",
			"--hold-at", "2", "--hold-where", "write", "--gate", gate, "--budget", "100ms"), 14)
		want(t, "logbook", started, map[string]any{"data.state": "running"})
		id, _ := get(started, "data.job_id").(string)
		untilExists(t, filepath.Join(gate, "held"))
		cancel := sb.command(sb.dir, nil, "job", "cancel", id)
		var stdout, stderr bytes.Buffer
		cancel.Stdout, cancel.Stderr = &stdout, &stderr
		if err := cancel.Start(); err != nil {
			t.Fatal(err)
		}
		untilExists(t, jobs(sb, id+".cancel")) // asked: SIGTERM follows
		touch(t, filepath.Join(gate, "go"))
		done := make(chan error, 1)
		go func() { done <- cancel.Wait() }()
		select {
		case err := <-done:
			r := result{stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err)}
			want(t, "job cancel", expect(t, "job cancel", r, 0), map[string]any{"data.status": "cancelled", "data.exit_code": 143.0})
		case <-time.After(time.Minute):
			cancel.Process.Kill()
			t.Fatal("job cancel did not end within a minute")
		}
		if names := sb.checkpoints(t); len(names) != 0 {
			t.Errorf("checkpoints %v left after the cancel", names)
		}
		reported := progressDone(readFile(t, jobs(sb, id+".err")))
		if len(reported) == 0 {
			t.Fatal("the job reported no progress")
		}
		last := int(reported[len(reported)-1])
		if got := readFile(t, sb.path("out.txt")); last < 2 || last >= 6 || got != strings.Join(strings.SplitAfter(lines, "\n")[:last], "") {
			t.Errorf("out.txt %q, last progress %d: want the work stopped at a checkpoint after the held write, before its end", got, last)
		}
	})
	t.Run("kill -9, then the identical invocation", func(t *testing.T) {
		t.Parallel()
		sb, gate := checkpointSandbox(t)
		args := []string{"logbook", "in.txt", "--to", "out.txt", "--hold-at", "3", "--gate", gate, "--budget", "100ms"}
		started := expect(t, "logbook", sb.run(t, args...), 14)
		id, _ := get(started, "data.job_id").(string)
		untilExists(t, filepath.Join(gate, "held"))
		var job struct {
			PID int `json:"pid"`
		}
		if err := json.Unmarshal([]byte(readFile(t, jobs(sb, id+".json"))), &job); err != nil || job.PID == 0 {
			t.Fatalf("the job's record: %v, pid %d", err, job.PID)
		}
		if err := syscall.Kill(job.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); syscall.Kill(job.PID, 0) == nil; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the job's process %d did not end within a minute of SIGKILL", job.PID)
			}
		}
		if saved := sb.savedDone(t); saved != 3 {
			t.Fatalf("checkpoint done %v, want 3", saved)
		}
		again := expect(t, "the identical invocation", sb.run(t, append(args[:len(args)-2], "--budget", "0")...), 0)
		want(t, "the identical invocation", again, map[string]any{"data.lines": 6.0, "data.chars": float64(len(strings.ReplaceAll(lines, "\n", "")))})
		if got := readFile(t, sb.path("out.txt")); got != lines {
			t.Errorf("out.txt:\n%s\nwant each line once:\n%s", got, lines)
		}
	})
}

// checkpointSandbox is a sandbox holding in.txt (lines) and an empty gate
// directory, where a test holds a resumable command between its writes.
func checkpointSandbox(t *testing.T) (*sandbox, string) {
	t.Helper()
	sb := newSandbox(t)
	if err := os.WriteFile(sb.path("in.txt"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := sb.path("gate")
	if err := os.Mkdir(gate, 0o700); err != nil {
		t.Fatal(err)
	}
	return sb, gate
}
