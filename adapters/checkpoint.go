package adapters

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jobstore"
)

// A command that declares Interruption.Resume (CLI Agent Spec REQ-C-035)
// saves its state with envelope.Output.Checkpoint and reads it back with
// Restore. Its checkpoint is keyed as jobs are (callKey: the command, its
// command line less what shapes only the answer, the working directory, the
// tool's version), so the identical call finds it without being told: after
// a kill, or after a call whose budget ran out, which stops the work at its
// next checkpoint and answers INCOMPLETE (14) with state "paused" and the
// command line that continues it. A signal, too, stops the work at a
// checkpoint rather than cancelling it between a write and the checkpoint
// that records it; the grace period bounds the wait. The checkpoint is
// removed when the work completes, or when `job cancel` cancels it.

// checkpointDir is where the tool's checkpoints are kept, in its state
// directory.
const checkpointDir = "checkpoints"

// checkpointing gives a resumable command's Output the file its
// checkpoint is kept in. The job of a detached call keeps it under the key
// of the call that started it, which its own command line (with --timeout
// and --yes added) would not give.
func (inv *invocation) checkpointing(args []string) *envelope.Error {
	node := inv.call.node
	if !inv.resumable() {
		return nil
	}
	dir, err := inv.stateDir()
	if err != nil {
		return noStateDir(inv.root.Name, err)
	}
	inv.work.resumeArgs = inv.continuation(args)
	key := inv.callKey(inv.work.resumeArgs)
	if j := inv.work.job; j != nil {
		key = j.Key
	}
	id := jobstore.KeyedID(node.DotPath(), key)
	inv.work.checkpoint = id
	inv.out.SetCheckpointing(envelope.Checkpointing{Path: filepath.Join(dir, checkpointDir, id+".json"), Stop: inv.work.stop.Load, Input: inv.work.input})
	return nil
}

// continuation is the command line that continues the call's work: the
// call's own; a writing command's with an --idempotency-key when it had
// none (REQ-F-082), so that the continuation is the same run, never a
// second one. The key is drawn from the command line, so the identical
// call, keyless again, finds the same checkpoint.
func (inv *invocation) continuation(args []string) []string {
	c := inv.call
	if _, given := c.opt(flagname.IdempotencyKey); given || c.node.Flag(flagname.IdempotencyKey) == nil {
		return args
	}
	line := slices.Clone(args)
	at := slices.Index(line, "--")
	if at < 0 {
		at = len(line)
	}
	return slices.Insert(line, at, "--"+flagname.IdempotencyKey, "resume-"+inv.callKey(args))
}

// stopAtCheckpoint asks a resumable command to stop at its next checkpoint,
// and reports whether it is one: a signal then waits for the checkpoint,
// within the grace period, instead of cancelling the work.
func (inv *invocation) stopAtCheckpoint() bool {
	if inv.work.checkpoint == "" || !inv.ran.Load() {
		return false
	}
	inv.work.stop.Store(true)
	return true
}

// paused answers for work that stopped at a checkpoint because it was asked
// to: INCOMPLETE (14), state "paused", when the call's budget ran out; the
// signal's answer when a signal came. nil when the work ended otherwise.
func (inv *invocation) paused(err error, sig os.Signal) *envelope.Error {
	if inv.work.checkpoint == "" || !errors.Is(err, envelope.ErrPaused) {
		return nil
	}
	if sig != nil {
		return cancelled(sig).WithSuggestion(fmt.Sprintf("the work stopped at a checkpoint: run '%s' to continue it", inv.continueLine()))
	}
	d := Incomplete{
		State:           "paused",
		JobID:           inv.work.checkpoint,
		ContinueCommand: inv.continueLine(),
		CancelCommand:   inv.root.Name + " " + jobCommand + " cancel " + inv.work.checkpoint,
	}
	how := "the work stopped at a checkpoint, and its state is saved"
	if p, ok := inv.out.LatestProgress(); ok {
		d.Progress = &Progress{Done: p.Done, Total: p.Total, Unit: p.Unit, Message: p.Message}
		if p.Total > 0 {
			how = fmt.Sprintf("the work stopped at a checkpoint with %d of %d done, and its state is saved", p.Done, p.Total)
		}
	}
	inv.out.Result(d)
	budget := time.Duration(0)
	if ms := inv.meta.BudgetMS; ms != nil {
		budget = time.Duration(*ms) * time.Millisecond
	}
	e := envelope.Errorf(exitcode.Incomplete, "INCOMPLETE", "the call's budget of %s ran out; %s", budget, how).
		WithSuggestion(fmt.Sprintf("run '%s' to continue it, or '%s' to discard it", d.ContinueCommand, d.CancelCommand)).
		WithResult()
	if e.Retryable = inv.call.node.ExitCodes()[exitcode.Incomplete].Retryable; !e.Retryable {
		e.WithoutRetry()
	}
	return e
}

// continueLine is the command line that continues the call's work.
func (inv *invocation) continueLine() string {
	return inv.root.Name + " " + commandLine(inv.work.resumeArgs)
}

// settleCheckpoint removes the checkpoint of work that completed, or that
// `job cancel` cancelled, so that the identical call starts fresh. Work
// that failed keeps it: the call run again goes on from there.
func (inv *invocation) settleCheckpoint(fail *envelope.Error) *envelope.Error {
	if inv.work.checkpoint == "" || !inv.ran.Load() || inv.out.DryRun() {
		return fail
	}
	cancelled := false
	if j := inv.work.job; j != nil {
		_, err := os.Stat(inv.work.jobs.CancelPath(j.ID))
		cancelled = err == nil
	}
	if fail != nil && !cancelled {
		return fail
	}
	if err := inv.out.DiscardCheckpoint(); err != nil {
		inv.out.Warn("CHECKPOINT_KEPT", "the work ended, but its checkpoint could not be removed: "+err.Error(), "the identical call resumes from it; remove it with 'job cancel "+inv.work.checkpoint+"'")
	}
	return fail
}

// cancelCheckpoint answers `job cancel <id>` for the checkpoint of paused
// work: it removes it, so that the identical call starts fresh. done
// reports that id names one.
func (inv *invocation) cancelCheckpoint(id string) (done bool, err error) {
	dir, serr := inv.stateDir()
	if serr != nil || !jobstore.ValidID(id) {
		return false, nil
	}
	err = os.Remove(filepath.Join(dir, checkpointDir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("checkpoint %s: %w", id, err)
	}
	inv.out.Effect(envelope.Deleted)
	return true, inv.out.Result(pausedView{JobID: id, Status: string(jobstore.Cancelled), Terminal: true})
}

// pausedView is what `job cancel` answers for the checkpoint it removed.
type pausedView struct {
	JobID    string `json:"job_id"`
	Status   string `json:"status"` // cancelled
	Terminal bool   `json:"terminal"`
}

// The stdin payload of a resumable command is part of what makes its call
// identical (REQ-C-035), but a line-mode payload is read as the command
// reads it, so its digest is not known when the call starts and cannot key
// the checkpoint as the command line does. Each checkpoint records instead
// the digest of the stdin the work had read when it was saved, and the
// resumed run's stdin must begin with the same bytes (envelope.InputDigest):
// the identical call resumes, and a call given other bytes discards the
// state with CHECKPOINT_DISCARDED and starts over. A payload read whole
// before the command runs is compared whole. The digest is FNV-128a, as
// the call's key is: it tells one run's input from another's, and costs
// no start-up (crypto/sha256 would start its self-checks in every run).

// resumable reports whether the command declares Interruption.Resume.
func (inv *invocation) resumable() bool {
	i := inv.call.node.Meta.Interruption
	return i != nil && i.Resume
}

// digestStdin gives a resumable command's stdin payload, data read whole
// or else the stream r, a digest for its checkpoints, and returns the
// stream to read.
func (inv *invocation) digestStdin(data []byte, r io.Reader) io.Reader {
	switch {
	case !inv.resumable():
	case r == nil:
		inv.work.input = newWholeInput(data)
	default:
		s := newStreamInput(r)
		inv.work.input, r = s, s
	}
	return r
}

// wholeInput is a payload read whole before the command ran.
type wholeInput struct{ digest string }

func newWholeInput(data []byte) *wholeInput {
	h := fnv.New128a()
	h.Write(data)
	return &wholeInput{digest: hex.EncodeToString(h.Sum(nil))}
}

// Consumed reports the whole payload: the state may depend on any of it.
func (w *wholeInput) Consumed() (int64, string) { return 0, w.digest }

func (w *wholeInput) Prefix(int64) (string, error) { return w.digest, nil }

// streamInput is a line-mode payload, hashed as the command reads it.
type streamInput struct {
	r     io.Reader
	ahead []byte // read by Prefix, not yet by the command

	mu sync.Mutex // guards what Checkpoint reads, from the command's goroutine or another
	n  int64
	h  hash.Hash
}

func newStreamInput(r io.Reader) *streamInput { return &streamInput{r: r, h: fnv.New128a()} }

func (s *streamInput) Read(p []byte) (int, error) {
	if len(s.ahead) > 0 {
		n := copy(p, s.ahead)
		s.ahead = s.ahead[n:]
		return n, nil
	}
	n, err := s.r.Read(p)
	s.count(p[:n])
	return n, err
}

func (s *streamInput) count(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h.Write(b)
	s.n += int64(len(b))
}

// Consumed reports the bytes taken from stdin so far, those a reader
// buffered beyond what the command used included.
func (s *streamInput) Consumed() (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, hex.EncodeToString(s.h.Sum(nil))
}

// Prefix reads the stream's first n bytes ahead of the command, which reads
// them next, and returns their digest: short of n, the stream is not the
// one the state was read from, and the digest says so.
func (s *streamInput) Prefix(n int64) (string, error) {
	ahead, err := io.ReadAll(io.LimitReader(s.r, n)) // grows as bytes arrive, whatever n the file says
	if err != nil {
		return "", err
	}
	s.ahead = ahead
	s.count(ahead)
	_, digest := s.Consumed()
	return digest, nil
}
