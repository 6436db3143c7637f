package envelope_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/duet-cli/duet/envelope"
)

type tallyState struct {
	Done int `json:"done"`
}

// warned is the codes of the warnings the Output answers with.
func warned(t *testing.T, out *envelope.Output, stdout interface{ Bytes() []byte }) []string {
	t.Helper()
	out.Finish(fixedMeta(), nil)
	var codes []string
	for _, w := range decodeOne(t, stdout.Bytes()).Warnings {
		codes = append(codes, w.Code)
	}
	return codes
}

// TestCheckpoint (REQ-C-035): a state checkpointed is restored under the
// same fingerprint; under another it is discarded, with
// CHECKPOINT_DISCARDED, as is one that cannot be read; a stop asked for is
// taken inside Checkpoint, after the state is saved; a dry run keeps
// nothing; a command that does not resume is told so.
func TestCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoints", "tally-1.json")
	stop := false
	resumable := func(s envelope.Settings) (*envelope.Output, interface{ Bytes() []byte }) {
		s.Mode = agentMode(envelope.JSON)
		out, stdout, _ := newOutput(s)
		out.SetCheckpointing(envelope.Checkpointing{Path: path, Stop: func() bool { return stop }})
		return out, stdout
	}

	out, _ := resumable(envelope.Settings{})
	var st tallyState
	if found, err := out.Restore("f1", &st); found || err != nil {
		t.Fatalf("Restore with nothing saved: %v, %v; want false, nil", found, err)
	}
	out.Progress("line", 3, 6)
	if err := out.Checkpoint(tallyState{Done: 3}); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	stop = true
	if err := out.Checkpoint(tallyState{Done: 4}); !errors.Is(err, envelope.ErrPaused) {
		t.Fatalf("Checkpoint with a stop asked for: %v, want ErrPaused", err)
	}
	stop = false

	out, stdout := resumable(envelope.Settings{})
	if found, err := out.Restore("f1", &st); !found || err != nil || st.Done != 4 {
		t.Fatalf("Restore under the same fingerprint: %v, %v, %+v; want the state saved when the stop was asked for", found, err, st)
	}
	if codes := warned(t, out, stdout); len(codes) != 0 {
		t.Errorf("warnings %v, want none", codes)
	}

	out, stdout = resumable(envelope.Settings{})
	st = tallyState{}
	if found, err := out.Restore("f2", &st); found || err != nil || st.Done != 0 {
		t.Fatalf("Restore under another fingerprint: %v, %v, %+v; want none", found, err, st)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the discarded checkpoint is still there: %v", err)
	}
	if codes := warned(t, out, stdout); len(codes) != 1 || codes[0] != envelope.CheckpointDiscarded {
		t.Errorf("warnings %v, want %s", codes, envelope.CheckpointDiscarded)
	}

	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stdout = resumable(envelope.Settings{})
	if found, err := out.Restore("f1", &st); found || err != nil {
		t.Fatalf("Restore of a torn file: %v, %v; want none", found, err)
	}
	if codes := warned(t, out, stdout); len(codes) != 1 || codes[0] != envelope.CheckpointDiscarded {
		t.Errorf("warnings %v, want %s", codes, envelope.CheckpointDiscarded)
	}

	out, _ = resumable(envelope.Settings{DryRun: true})
	stop = true
	if err := out.Checkpoint(tallyState{Done: 1}); err != nil {
		t.Errorf("Checkpoint in a dry run: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run saved a checkpoint: %v", err)
	}

	plain, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	if _, err := plain.Restore("f1", &st); !errors.Is(err, envelope.ErrNotResumable) {
		t.Errorf("Restore of a command that does not resume: %v, want ErrNotResumable", err)
	}
	if err := plain.Checkpoint(st); !errors.Is(err, envelope.ErrNotResumable) {
		t.Errorf("Checkpoint of a command that does not resume: %v, want ErrNotResumable", err)
	}
}

// TestProgressLiveness (REQ-C-034, REQ-F-081): a report that repeats the
// one before is no sign of life; the longest silence counts the stretch
// before the first report and since the latest.
func TestProgressLiveness(t *testing.T) {
	out, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Hush: true})
	start := time.Now().Add(-20 * time.Second)
	if got := out.LongestSilence(start, start.Add(15*time.Second)); got != 15*time.Second {
		t.Errorf("silence with no report: %s, want 15s", got)
	}
	if !out.LastProgress().IsZero() {
		t.Errorf("LastProgress with no report: %v, want zero", out.LastProgress())
	}
	out.Progress("a", 1, 3)
	first := out.LastProgress()
	out.Progress("a", 1, 3) // the same again: no progress
	if out.LastProgress() != first {
		t.Errorf("a repeated report moved LastProgress")
	}
	if got := out.LongestSilence(start, time.Now()); got < 20*time.Second {
		t.Errorf("silence %s, want the 20s before the first report", got)
	}
	out.Progress("a", 2, 3)
	if p, ok := out.LatestProgress(); !ok || p.Done != 2 || p.Total != 3 {
		t.Errorf("LatestProgress: %+v, %v; want done 2 of 3", p, ok)
	}
	now := time.Now()
	if got := out.LongestSilence(now.Add(-time.Millisecond), now.Add(time.Hour)); got < time.Hour-time.Second {
		t.Errorf("silence %s, want the hour since the latest report", got)
	}
}
