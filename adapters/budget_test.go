package adapters_test

import (
	"context"
	"encoding/json"
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
// when the app is wrapped; a command that declares Detach gets --budget and
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
		{"resume", schema.Meta{Danger: schema.Safe, Interruption: &schema.Interruption{Detach: true, Resume: true}}, "does not checkpoint"},
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
