//go:build linux

package e2e

import (
	"encoding/json"
	"testing"
	"time"
)

// TestRunWaitWithinBudget (CLI Agent Spec §79: REQ-F-080, F-081, F-082):
// run wait declares that its work detaches. With a budget shorter than the
// run, the call answers INCOMPLETE (14) within the budget, the work goes on
// as a job, the identical call attaches to that job rather than start
// another, and its continue_command, run until it answers, gives what the
// wait gives with no budget.
func TestRunWaitWithinBudget(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	var started struct{ ID, Space string }
	sb.ok(t, sb.env, &started, "run", "spawn", "-p", "[fake:sleep=3s] a slow one")
	budget := sb.with("AGENT_CALL_BUDGET_MS=500")
	type incomplete struct {
		State           string `json:"state"`
		JobID           string `json:"job_id"`
		ContinueCommand string `json:"continue_command"`
		CancelCommand   string `json:"cancel_command"`
	}
	call := func() (incomplete, time.Duration) {
		t.Helper()
		start := time.Now()
		e, r := sb.agent(t, budget, "run", "wait", started.ID, "--space", started.Space)
		took := time.Since(start)
		if r.code != 14 || e.Error == nil || e.Error.Code != "INCOMPLETE" || e.Meta["budget_ms"] != float64(500) {
			t.Fatalf("run wait within 500ms: exit %d, error %+v, meta.budget_ms %v; want 14 INCOMPLETE, 500\n%s", r.code, e.Error, e.Meta["budget_ms"], r.stdout)
		}
		var d incomplete
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		return d, took
	}
	first, took := call()
	if took > 2*time.Second {
		t.Errorf("the call held its caller %s, past its budget of 500ms", took)
	}
	want := incomplete{State: "running", JobID: first.JobID, ContinueCommand: "meridian job wait " + first.JobID, CancelCommand: "meridian job cancel " + first.JobID}
	if first != want || first.JobID == "" {
		t.Errorf("data %+v, want %+v", first, want)
	}
	if again, _ := call(); again.JobID != first.JobID {
		t.Errorf("the identical call started job %s beside %s, instead of attaching to it", again.JobID, first.JobID)
	}

	var waited struct {
		Runs []struct{ ID, Status string }
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		e, r := sb.agent(t, budget, "job", "wait", first.JobID)
		if r.code == 0 {
			json.Unmarshal(e.Data, &waited)
			break
		}
		if r.code != 14 || time.Now().After(deadline) {
			t.Fatalf("job wait %s: exit %d\n%s", first.JobID, r.code, r.stdout)
		}
	}
	if len(waited.Runs) != 1 || waited.Runs[0].ID != started.ID || waited.Runs[0].Status != "succeeded" {
		t.Errorf("the job's answer %+v, want %s succeeded", waited, started.ID)
	}
	var direct struct {
		Runs []struct{ ID, Status string }
	}
	sb.ok(t, sb.env, &direct, "run", "wait", started.ID, "--space", started.Space, "--budget", "0")
	if len(direct.Runs) != 1 || direct.Runs[0] != waited.Runs[0] {
		t.Errorf("run wait --budget 0 %+v, the job's answer %+v: want the same", direct, waited)
	}
}
