package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/schema"
)

// TestJobWait (REQ-F-082): `job wait` answers as the job's command did once
// the job has ended — its data, warnings and exit code — and, while it
// runs, INCOMPLETE (14) once the call's budget is spent, with the job's
// furthest progress and the commands that continue and cancel it; a job
// whose process died is JOB_LOST.
func TestJobWait(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	zero, five := 0, 5
	store := jobFixture(t, dir, []jobstore.Job{
		{ID: "later-complete", Status: jobstore.Complete, Finished: &now, ExitCode: &zero},
		{ID: "later-failed", Status: jobstore.Failed, Finished: &now, ExitCode: &five},
		{ID: "later-running", Status: jobstore.Running, PID: os.Getpid()},
		{ID: "later-lost", Status: jobstore.Running, PID: 1},
	})
	files := map[string]string{
		store.OutPath("later-complete"): `{"ok":true,"data":{"n":3},"error":null,"warnings":[{"code":"SLOW","message":"it took long."}],"meta":{"exit_code":0}}`,
		store.OutPath("later-failed"):   `{"ok":false,"data":null,"error":{"code":"SPACE_NOT_FOUND","message":"no space s9","retryable":false},"warnings":[],"meta":{"exit_code":5}}`,
		// Progress events as the job's process writes them on its stderr;
		// the furthest one counts, so done never goes back.
		store.ErrPath("later-running"): `{"type":"progress","message":"a","done":2,"total":10}` + "\n" +
			"noise\n" + `{"type":"progress","message":"b","done":7,"total":10}` + "\n" + `{"type":"progress","message":"c","done":5,"total":10}` + "\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("complete", func(t *testing.T) {
		w := wantOK(t, workRun(t, newWorkHarness(), dir, nil, "job", "wait", "later-complete"))
		if string(w.Data) != `{"n":3}` || !w.warned("SLOW") {
			t.Errorf("data %s, warnings %v: want the job's", w.Data, w.Warnings)
		}
	})
	t.Run("failed", func(t *testing.T) {
		w := wantError(t, workRun(t, newWorkHarness(), dir, nil, "job", "wait", "later-failed"), 5, "SPACE_NOT_FOUND")
		if w.Error.Message != "no space s9" {
			t.Errorf("message %q, want the job's", w.Error.Message)
		}
	})
	t.Run("running", func(t *testing.T) {
		start := time.Now()
		r := workRun(t, newWorkHarness(), dir, nil, "job", "wait", "later-running", "--budget", "300ms")
		w := wantError(t, r, 14, "INCOMPLETE")
		if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
			t.Errorf("answered after %s, before its budget of 300ms ran out", elapsed)
		}
		var d adapters.Incomplete
		if err := json.Unmarshal(w.Data, &d); err != nil {
			t.Fatal(err)
		}
		want := adapters.Incomplete{State: "running", JobID: "later-running", Progress: &adapters.Progress{Done: 7, Total: 10, Message: "b"},
			ContinueCommand: "work job wait later-running", CancelCommand: "work job cancel later-running"}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
		if !w.Error.Retryable || w.Meta["budget_ms"] != float64(300) {
			t.Errorf("retryable %v, meta.budget_ms %v; want true and 300", w.Error.Retryable, w.Meta["budget_ms"])
		}
	})
	t.Run("the budget from the environment", func(t *testing.T) {
		r := workRun(t, newWorkHarness(), dir, []urfave.Option{adapters.WithEnv([]string{"TMPDIR=" + filepath.Join(dir, "tmp"),
			"WORK_STATE_DIR=" + filepath.Join(dir, "state"), adapters.BudgetEnv + "=50"})}, "job", "wait", "later-running")
		if w := wantError(t, r, 14, "INCOMPLETE"); w.Meta["budget_ms"] != float64(50) {
			t.Errorf("meta.budget_ms %v, want 50 from %s", w.Meta["budget_ms"], adapters.BudgetEnv)
		}
	})
	t.Run("lost", func(t *testing.T) {
		wantError(t, workRun(t, newWorkHarness(), dir, nil, "job", "wait", "later-lost"), 1, "JOB_LOST")
	})
	t.Run("a budget that is no duration", func(t *testing.T) {
		wantError(t, workRun(t, newWorkHarness(), dir, nil, "job", "wait", "later-running", "--budget", "soon"), 2, "INVALID_FLAG_VALUE")
	})
}

// TestInterruptionDeclarations (REQ-C-033): what cannot hold is refused
// when the app is wrapped, Resume alone holds; a command that declares
// Detach gets --budget and
// an INCOMPLETE (14) entry, retryable when it changes nothing.
func TestInterruptionDeclarations(t *testing.T) {
	cmd := func(m schema.Meta) *cli.Command {
		c := &cli.Command{Name: "scan", Action: func(context.Context, *cli.Command) error { return nil }}
		return urfave.Annotate(c, m)
	}
	for _, tt := range []struct {
		name string
		meta schema.Meta
		want string
	}{
		{"neither", schema.Meta{Danger: schema.Safe, Interruption: &schema.Interruption{}}, "neither Detach nor Resume"},
		{"negative", schema.Meta{Danger: schema.Safe, Interruption: &schema.Interruption{Resume: true, IdleTimeout: -1}}, "cannot be negative"},
		{"async", schema.Meta{Danger: schema.Safe, Async: true, Interruption: &schema.Interruption{Detach: true}}, "cannot go with an async"},
		{"streaming", schema.Meta{Danger: schema.Safe, Streaming: true, Interruption: &schema.Interruption{Detach: true}}, "cannot go with an async"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{cmd(tt.meta)}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Wrap: %v, want an error saying %q", err, tt.want)
			}
		})
	}
	// Resume alone holds: the work checkpoints (REQ-C-035).
	if _, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{cmd(schema.Meta{Danger: schema.Mutating, Interruption: &schema.Interruption{Resume: true}})}}); err != nil {
		t.Errorf("Wrap of a command that resumes: %v", err)
	}
	app, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{cmd(schema.Meta{Danger: schema.Safe, Interruption: &schema.Interruption{Detach: true}})}})
	if err != nil {
		t.Fatal(err)
	}
	scan := app.Tree().Sub("scan")
	if f := scan.Flag("budget"); f == nil || !f.Builtin {
		t.Errorf("scan has no built-in --budget")
	}
	if e, ok := scan.ExitCodes()[14]; !ok || e.Name != "INCOMPLETE" || !e.Retryable {
		t.Errorf("exit code 14: %+v, %v; want a retryable INCOMPLETE", e, ok)
	}
	if app.Tree().Sub("job").Sub("wait") == nil {
		t.Errorf("no job wait command beside a command that detaches")
	}
	_ = envelope.ExitCode // the exit codes are the envelope's
}

// TestPausedAtCheckpoint (REQ-C-035, REQ-F-082): a call to a resumable
// command whose budget has run out stops at its first checkpoint and
// answers INCOMPLETE, paused, with the command line that continues it; the
// identical call continues from that checkpoint and, complete, removes it.
func TestPausedAtCheckpoint(t *testing.T) {
	dir := t.TempDir()
	var started []int
	count := urfave.Annotate(&cli.Command{Name: "count", Action: func(ctx context.Context, _ *cli.Command) error {
		out := envelope.From(ctx)
		var st struct{ Done int }
		if _, err := out.Restore("input-1", &st); err != nil {
			return err
		}
		started = append(started, st.Done)
		for ; st.Done < 3; st.Done++ {
			out.Progress("n", st.Done+1, 3)
			if err := out.Checkpoint(struct{ Done int }{st.Done + 1}); err != nil {
				return err
			}
		}
		return out.Result(map[string]int{"counted": st.Done})
	}}, schema.Meta{Danger: schema.Safe, Interruption: &schema.Interruption{Resume: true}})
	run := func(args ...string) result {
		var stdout bytes.Buffer
		code := urfave.Run(context.Background(), &cli.Command{Name: "app", Commands: []*cli.Command{count}}, args,
			adapters.WithStdio(strings.NewReader(""), &stdout, io.Discard),
			adapters.WithSpecStrict(),
			adapters.WithEnv([]string{"APP_STATE_DIR=" + dir}),
			adapters.WithTerminal(adapters.Piped))
		return result{code: code, stdout: stdout.String()}
	}
	w := wantError(t, run("count", "--budget", "1ns"), 14, "INCOMPLETE")
	var d adapters.Incomplete
	if err := json.Unmarshal(w.Data, &d); err != nil {
		t.Fatal(err)
	}
	want := adapters.Incomplete{State: "paused", JobID: d.JobID, Progress: &adapters.Progress{Done: 1, Total: 3, Message: "n"},
		ContinueCommand: "app count --budget 1ns", CancelCommand: "app job cancel " + d.JobID}
	if diff := cmp.Diff(want, d); diff != "" || !strings.HasPrefix(d.JobID, "count-") {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if w := wantOK(t, run("count", "--budget", "0")); string(w.Data) != `{"counted":3}` {
		t.Errorf("data %s, want counted 3", w.Data)
	}
	if diff := cmp.Diff([]int{0, 1}, started); diff != "" {
		t.Errorf("started at (-want +got):\n%s", diff)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "*")); len(names) != 0 {
		t.Errorf("checkpoints %v left after the work completed", names)
	}
}
