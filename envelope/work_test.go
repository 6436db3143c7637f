package envelope_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// TestBatch: a batch answers a summary and one result per item; an item's
// error is a standard error; a partial success is exit 3, not 0.
func TestBatch(t *testing.T) {
	notFound := envelope.Errorf(exitcode.NotFound, "TODO_NOT_FOUND", "no to-do t9")
	tests := []struct {
		name    string
		items   func(b *envelope.Batch)
		exit    exitcode.Code // 0: success
		code    string
		summary envelope.BatchSummary
		partial bool
		effect  any
	}{
		{"all ok", func(b *envelope.Batch) {
			b.OK("t1", envelope.Noop, nil)
			b.OK("t2", envelope.Updated, map[string]string{"id": "t2"})
		}, 0, "", envelope.BatchSummary{Total: 2, Succeeded: 2}, false, "updated"},
		{"partial", func(b *envelope.Batch) {
			b.OK("t1", envelope.Updated, nil)
			b.Fail("t9", notFound)
		}, exitcode.PartialFailure, "PARTIAL_FAILURE", envelope.BatchSummary{Total: 2, Succeeded: 1, Failed: 1}, true, "updated"},
		{"all fail alike", func(b *envelope.Batch) {
			b.Fail("t8", notFound)
			b.Fail("t9", notFound)
		}, exitcode.NotFound, "BATCH_FAILED", envelope.BatchSummary{Total: 2, Failed: 2}, false, nil},
		{"all fail differently", func(b *envelope.Batch) {
			b.Fail("t8", notFound)
			b.Fail("t9", errors.New("disk full"))
		}, exitcode.GeneralError, "BATCH_FAILED", envelope.BatchSummary{Total: 2, Failed: 2}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			b := out.Batch()
			tt.items(b)
			err := b.Finish()
			var fail *envelope.Error
			if err != nil {
				fail = envelope.As(err)
			}
			switch {
			case tt.exit == 0 && fail != nil:
				t.Fatalf("Finish = %v, want nil", fail)
			case tt.exit != 0 && (fail == nil || fail.Exit != tt.exit || fail.Code != tt.code):
				t.Fatalf("Finish = %+v, want %s exit %d", fail, tt.code, tt.exit)
			}
			out.Finish(fixedMeta(), fail)
			w := decodeOne(t, stdout.Bytes())
			var data struct {
				Partial bool                  `json:"partial"`
				Summary envelope.BatchSummary `json:"summary"`
				Results []struct {
					ID    string          `json:"id"`
					OK    *bool           `json:"ok"`
					Error *envelope.Error `json:"error"`
				} `json:"results"`
			}
			if err := json.Unmarshal(w.Data, &data); err != nil {
				t.Fatalf("data: %v: %s", err, w.Data)
			}
			if diff := cmp.Diff(tt.summary, data.Summary); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if data.Partial != tt.partial {
				t.Errorf("partial = %v", data.Partial)
			}
			if len(data.Results) != tt.summary.Total {
				t.Fatalf("%d results", len(data.Results))
			}
			for _, r := range data.Results {
				switch {
				case r.OK == nil:
					t.Errorf("result %s has no ok", r.ID)
				case !*r.OK && (r.Error == nil || r.Error.Code == "" || r.Error.Message == ""):
					t.Errorf("failed result %s without a standard error: %+v", r.ID, r.Error)
				case *r.OK && r.Error != nil:
					t.Errorf("result %s is ok with an error", r.ID)
				}
			}
			if !strings.Contains(stdout.String(), `"retryable":false`) && tt.summary.Failed > 0 {
				t.Errorf("item errors lack retryable: %s", stdout)
			}
			if got := w.Meta["effect"]; got != tt.effect {
				t.Errorf("effect = %v, want %v", got, tt.effect)
			}
		})
	}
}

// TestAlreadyExists: the existing resource is the data of an ALREADY_EXISTS
// answer, exit 6.
func TestAlreadyExists(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	fail := out.AlreadyExists("t1", map[string]string{"id": "t1", "title": "ship"}, "a to-do with id %s exists", "t1")
	out.Finish(fixedMeta(), fail)
	w := decodeOne(t, stdout.Bytes())
	if w.OK || w.Error == nil || w.Error.Code != "ALREADY_EXISTS" || fail.Exit != exitcode.Conflict || w.Error.ConflictID != "t1" || w.Error.Retryable {
		t.Errorf("answer %s (exit %d)", stdout, fail.Exit)
	}
	if diff := cmp.Diff(`{"id":"t1","title":"ship"}`, string(w.Data)); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// TestStepReport: steps not reached and steps before --resume-from are
// skipped; a failed step stops the later ones; an agent reads an event as
// each step starts and ends; an undeclared step is refused.
func TestStepReport(t *testing.T) {
	ctx := context.Background()
	steps := []string{"a", "b", "c", "d"}
	out, _, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Steps: steps, ResumeFrom: "b"})
	var ran []string
	run := func(name string, err error) error {
		return out.Step(ctx, name, func(context.Context) error { ran = append(ran, name); return err })
	}
	boom := errors.New("boom")
	if err := run("a", nil); err != nil {
		t.Fatal(err)
	}
	if err := run("b", nil); err != nil {
		t.Fatal(err)
	}
	if err := run("c", boom); err != boom {
		t.Fatalf("c: %v", err)
	}
	if err := run("d", nil); err != boom {
		t.Errorf("d after a failure: %v, want the failure again", err)
	}
	if diff := cmp.Diff([]string{"b", "c"}, ran); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
	c := "c"
	want := &envelope.StepReport{Partial: true, CompletedSteps: []string{"b"}, FailedStep: &c, SkippedSteps: []string{"a", "d"}, ResumeFrom: "c"}
	if diff := cmp.Diff(want, out.StepReport()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	events := `{"type":"step","step":"a","status":"skipped"}
{"type":"step","step":"b","status":"started"}
{"type":"step","step":"b","status":"completed"}
{"type":"step","step":"c","status":"started"}
{"type":"step","step":"c","status":"failed"}
`
	if diff := cmp.Diff(events, stderr.String()); diff != "" {
		t.Errorf("step events (-want +got):\n%s", diff)
	}
	if err := out.Step(ctx, "zz", func(context.Context) error { return nil }); err != boom {
		t.Errorf("after a failure the failure is returned, got %v", err)
	}

	fresh, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Steps: steps})
	if e := envelope.As(fresh.Step(ctx, "zz", func(context.Context) error { return nil })); e == nil || e.Code != "UNDECLARED_STEP" {
		t.Errorf("undeclared step: %v", e)
	}
}

// TestCleanupHooks: hooks run the last first, once, a panic is a failure,
// and a second Cleanup does nothing more.
func TestCleanupHooks(t *testing.T) {
	out, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	var order []int
	for i := range 3 {
		out.OnCleanup(func(context.Context) error {
			order = append(order, i)
			if i == 1 {
				panic("hook 1")
			}
			return nil
		})
	}
	err := out.Cleanup(context.Background())
	if err == nil || !strings.Contains(err.Error(), "hook 1") {
		t.Errorf("Cleanup = %v, want the panic reported", err)
	}
	if err := out.Cleanup(context.Background()); err != nil {
		t.Errorf("second Cleanup = %v", err)
	}
	if diff := cmp.Diff([]int{2, 1, 0}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestOutputFile: a file kept for the caller is mode 0600 in a directory
// mode 0700, and its cleanup command, run by a shell, removes it.
func TestOutputFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "it's root")
	out, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), TempRoot: root, Session: "req-1"})
	f, cleanup, err := out.OutputFile("export.json")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for path, want := range map[string]os.FileMode{f.Name(): 0o600, filepath.Dir(f.Name()): 0o700, root: 0o700} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
		}
	}
	if cleanup.AutoCleanupAfterSeconds != int64(envelope.KeptFor/time.Second) {
		t.Errorf("auto_cleanup_after_seconds = %d", cleanup.AutoCleanupAfterSeconds)
	}
	if outp, err := exec.Command("/bin/sh", "-c", cleanup.Command).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", cleanup.Command, err, outp)
	}
	if _, err := os.Stat(filepath.Dir(f.Name())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after %s: %v", cleanup.Command, err)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, _, err := out.OutputFile(bad); err == nil {
			t.Errorf("OutputFile(%q) accepted", bad)
		}
	}
}

// TestHeartbeatWriters: a JSON heartbeat goes to stdout in a jsonl stream,
// else to stderr; a text heartbeat is plain, and silent under --quiet;
// nothing is written once the answer is.
func TestHeartbeatWriters(t *testing.T) {
	out, stdout, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL)})
	out.Progress("copying", 1, 2)
	stderr.Reset()
	out.Beat(1500 * time.Millisecond)
	if want := `{"status":"running","heartbeat":true,"elapsed_ms":1500,"step":"copying"}` + "\n"; stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("jsonl beat: stdout %q stderr %q, want stdout %q", stdout, stderr, want)
	}

	out, stdout, stderr = newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Beat(time.Second)
	out.BeatText(12340 * time.Millisecond)
	want := `{"status":"running","heartbeat":true,"elapsed_ms":1000}` + "\n" + "[12.3s] running\n"
	if stdout.Len() != 0 || stderr.String() != want {
		t.Errorf("json beats: stdout %q stderr %q, want stderr %q", stdout, stderr, want)
	}
	out.Finish(fixedMeta(), nil)
	stderr.Reset()
	out.Beat(time.Second)
	out.BeatText(time.Second)
	if stderr.Len() != 0 {
		t.Errorf("beats after the answer: %q", stderr)
	}

	out, _, stderr = newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Quiet: true})
	out.Progress("copying", 1, 2)
	out.BeatText(time.Second)
	if stderr.Len() != 0 {
		t.Errorf("text beat under --quiet: %q", stderr)
	}
}
