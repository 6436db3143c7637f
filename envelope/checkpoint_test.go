package envelope_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestProgressIn: a unit travels with the report — in the agent's event,
// in the latest progress an INCOMPLETE answer carries, and after the count
// a person reads — and Progress is ProgressIn without one.
func TestProgressIn(t *testing.T) {
	out, _, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.ProgressIn("bytes", "reading", 120, 980)
	out.Progress("reading", 2, 3)
	got := progressEvents(t, stderr)
	want := []envelope.ProgressEvent{
		{Type: "progress", Message: "reading", Done: 120, Total: 980, Unit: "bytes"},
		{Type: "progress", Message: "reading", Done: 2, Total: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress events (-want +got):\n%s", diff)
	}
	out.ProgressIn("rows", "loading", 4000, 25000)
	if p, _ := out.LatestProgress(); p.Unit != "rows" {
		t.Errorf("LatestProgress unit %q, want rows", p.Unit)
	}
	human, _, text := newOutput(envelope.Settings{Mode: humanMode()})
	human.ProgressIn("bytes", "reading", 120, 980)
	if got := text.String(); got != "reading (120/980 bytes)\n" {
		t.Errorf("a person reads %q, want %q", got, "reading (120/980 bytes)\n")
	}
}

// prefixInput is a stdin payload of which the work has read the first
// read bytes.
type prefixInput struct {
	data string
	read int
	err  error // Prefix's
}

func (p *prefixInput) Consumed() (int64, string) { return int64(p.read), "sha:" + p.data[:p.read] }

func (p *prefixInput) Prefix(n int64) (string, error) {
	return "sha:" + p.data[:min(int(n), len(p.data))], p.err
}

// TestCheckpointInput (REQ-C-035): a checkpoint records the stdin its
// state was read from; a restore whose stdin begins with those bytes
// resumes, one whose stdin does not discards it with CHECKPOINT_DISCARDED,
// and one that cannot read stdin fails.
func TestCheckpointInput(t *testing.T) {
	for _, tt := range []struct {
		name      string
		now       *prefixInput
		found     bool
		discarded bool
		err       bool
	}{
		{"the same bytes", &prefixInput{data: "abcdef"}, true, false, false},
		{"the same bytes first, others after", &prefixInput{data: "abcxyz"}, true, false, false},
		{"other bytes", &prefixInput{data: "abXdef"}, false, true, false},
		{"fewer bytes", &prefixInput{data: "ab"}, false, true, false},
		{"stdin unreadable", &prefixInput{data: "abcdef", err: errors.New("read failed")}, false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "linesum-1.json")
			saver, _, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			saver.SetCheckpointing(envelope.Checkpointing{Path: path, Input: &prefixInput{data: "abcdef", read: 3}})
			if _, err := saver.Restore("", &tallyState{}); err != nil {
				t.Fatal(err)
			}
			if err := saver.Checkpoint(tallyState{Done: 1}); err != nil {
				t.Fatal(err)
			}
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			out.SetCheckpointing(envelope.Checkpointing{Path: path, Input: tt.now})
			var st tallyState
			found, err := out.Restore("", &st)
			if found != tt.found || (err != nil) != tt.err {
				t.Fatalf("Restore: %v, %v; want %v, error %v", found, err, tt.found, tt.err)
			}
			if found && st.Done != 1 {
				t.Errorf("restored %+v, want done 1", st)
			}
			if codes := warned(t, out, stdout); slices.Contains(codes, envelope.CheckpointDiscarded) != tt.discarded {
				t.Errorf("warnings %v, CHECKPOINT_DISCARDED want %v", codes, tt.discarded)
			}
		})
	}
}
