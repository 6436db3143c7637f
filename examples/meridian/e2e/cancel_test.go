package e2e

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
)

// TestRunCancel: `run spawn` without --wait answers with the supervisor it
// left running (background_pid) and the command of the tool that stops it
// (cleanup_command); that command cancels the run, harness and all, and
// running it again changes nothing (C-010).
func TestRunCancel(t *testing.T) {
	sb := newSandbox(t)
	var started struct {
		run.Detail
		PID     int    `json:"background_pid"`
		Cleanup string `json:"cleanup_command"`
	}
	sb.ok(t, sb.env, &started, "run", "spawn", "-p", "[fake:hang] forever", "--run-timeout", "1m")
	if want := "meridian run cancel r1 --space s1"; started.Cleanup != want || started.PID <= 0 {
		t.Fatalf("background_pid %d, cleanup_command %q; want a pid and %q", started.PID, started.Cleanup, want)
	}
	if !alive(started.PID) {
		t.Fatalf("the supervisor %d is not running", started.PID)
	}
	eventually(t, "the harness to start", func() bool { return len(harnesstest.Records(t, sb.record)) == 1 })
	args := strings.Fields(strings.TrimPrefix(started.Cleanup, "meridian "))
	var d run.Detail
	e := sb.ok(t, sb.env, &d, args...)
	if d.Status != "cancelled" || e.Meta["effect"] != "updated" {
		t.Errorf("cancel: status %q, effect %v; want cancelled, updated", d.Status, e.Meta["effect"])
	}
	rec := harnesstest.Records(t, sb.record)[0]
	eventually(t, "the supervisor and the harness to be gone", func() bool {
		return !alive(started.PID) && !alive(rec.PID) && !alive(rec.ChildPID)
	})
	e = sb.ok(t, sb.env, &d, args...)
	if d.Status != "cancelled" || e.Meta["effect"] != "noop" {
		t.Errorf("cancel again: status %q, effect %v; want cancelled, noop", d.Status, e.Meta["effect"])
	}
	sb.fails(t, sb.env, "RUN_NOT_FOUND", 5, "run", "cancel", "r9", "--space", "s1")
}
