package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/duet-cli/duet/internal/atomicfile"
)

// Checkpoints: a command that declares Interruption.Resume (CLI Agent Spec
// REQ-C-035) saves its state at each safe point with [Output.Checkpoint],
// and reads it back before any work with [Output.Restore], so that the
// identical invocation continues where the last one saved, whether that one
// was stopped by its call's budget or killed outright. The lifecycle says
// where the state is kept — a file named for the invocation, as jobs are —
// and when a stop is asked for; the stop takes effect only inside
// Checkpoint, after the state is saved, so work is never cut between a
// write and the checkpoint that records it.

// ErrPaused is returned by [Output.Checkpoint] once the state is saved when
// the lifecycle asked the work to stop: the command returns it (wrapped or
// not), and the invocation answers that the work is paused and how to
// continue it.
var ErrPaused = errors.New("envelope: the work stopped at a checkpoint, to continue on the identical call")

// ErrNotResumable is returned by [Output.Restore] and [Output.Checkpoint] of
// a command that does not declare Interruption.Resume.
var ErrNotResumable = errors.New("envelope: the command does not declare Interruption.Resume")

// CheckpointDiscarded is the warning code of a saved state set aside because
// its fingerprint no longer matches the input.
const CheckpointDiscarded = "CHECKPOINT_DISCARDED"

// Checkpointing is where and how the lifecycle has an Output keep a
// resumable command's state (see [Output.SetCheckpointing]).
type Checkpointing struct {
	Path string      // the file that holds the state, replaced by rename
	Stop func() bool // reports whether the work is to stop at its next checkpoint
	// Input is the payload the command reads on stdin, when it reads one:
	// each checkpoint records how much of it the work had read and its
	// digest, and Restore discards a state read from other bytes.
	Input InputDigest
}

// InputDigest is a command's stdin payload, digested as it is read. A
// stream's digest is not known until the stream ends, so it cannot key a
// checkpoint: the checkpoint records the digest of what the work had read
// when it was saved, and the resumed run's stdin must begin with the same
// bytes.
type InputDigest interface {
	// Consumed returns how many bytes of the payload the work has read,
	// and the digest of the payload that the state may depend on.
	Consumed() (n int64, digest string)
	// Prefix returns the digest of the payload's first n bytes, read
	// ahead of the work (and kept for it) when the payload is a stream.
	// Called once, before the work reads.
	Prefix(n int64) (digest string, err error)
}

// checkpoint is the Output's checkpoint state, guarded by Output.mu.
type checkpoint struct {
	Checkpointing
	fingerprint string
}

// savedState is a checkpoint file.
type savedState struct {
	Fingerprint string         `json:"fingerprint"`
	Saved       time.Time      `json:"saved"`
	Progress    *ProgressEvent `json:"progress,omitempty"` // the latest report when it was saved
	// The stdin payload the state was read from: its first InputBytes
	// bytes have the digest InputDigest.
	InputBytes  int64           `json:"input_bytes,omitempty"`
	InputDigest string          `json:"input_digest,omitempty"`
	State       json.RawMessage `json:"state"`
}

// SetCheckpointing is the lifecycle's: it makes the command's state kept
// at c.Path.
func (o *Output) SetCheckpointing(c Checkpointing) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ckpt.Checkpointing = c
}

// Restore reads the state the identical invocation last saved into state,
// a pointer, and reports whether there was one. Call it once, before any
// work. fingerprint identifies the inputs the state depends on — a file's
// size and modification time, a query's parameters: a state saved under
// another fingerprint is deleted, with a CHECKPOINT_DISCARDED warning, and
// Restore reports none, so that the work starts over; so is a state read
// from another stdin payload than this call's (see [InputDigest]). Later
// checkpoints are saved under fingerprint.
func (o *Output) Restore(fingerprint string, state any) (bool, error) {
	found, why, err := o.restore(fingerprint, state)
	if why != "" {
		o.Warn(CheckpointDiscarded, "the saved state of an earlier run was discarded, and the work starts over: "+why, "")
	}
	return found, err
}

// restore is Restore but for the warning: why says why a saved state was
// discarded.
func (o *Output) restore(fingerprint string, state any) (found bool, why string, err error) {
	// Not under o.mu: reading stdin ahead may wait for its writer, and
	// progress and heartbeats must not wait with it.
	o.mu.Lock()
	c, dry := o.ckpt.Checkpointing, o.s.DryRun
	if c.Path != "" && !dry {
		o.ckpt.fingerprint = fingerprint
	}
	o.mu.Unlock()
	switch {
	case c.Path == "":
		return false, "", ErrNotResumable
	case dry:
		return false, "", nil // a dry run previews the whole work, and keeps nothing
	}
	raw, err := os.ReadFile(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("checkpoint: %w", err)
	}
	var saved savedState
	switch err := json.Unmarshal(raw, &saved); {
	case err != nil:
		why = "it could not be read: " + err.Error()
	case saved.Fingerprint != fingerprint:
		why = "the input it depends on has changed"
	case c.Input != nil:
		digest, err := c.Input.Prefix(saved.InputBytes)
		if err != nil {
			return false, "", fmt.Errorf("checkpoint: reading stdin: %w", err)
		}
		if digest != saved.InputDigest {
			why = "stdin is not the input it was read from"
			break
		}
		fallthrough
	default:
		if err := json.Unmarshal(saved.State, state); err != nil {
			why = "its state does not fit the command's: " + err.Error()
		}
	}
	if why == "" {
		return true, "", nil
	}
	if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, "", fmt.Errorf("checkpoint: discarding it: %w", err)
	}
	return false, why, nil
}

// Checkpoint saves state, JSON-serializable and holding everything needed
// to continue (the progress done included; for writing work, which units
// are committed), at a safe point: a boundary between chunks, rows or
// steps, at least every 10 seconds of work. It is written by rename, so a
// kill during the write leaves the one before intact. When the lifecycle
// has asked the work to stop — the call's budget ran out, or a signal came
// — it returns ErrPaused after saving: return it.
func (o *Output) Checkpoint(state any) error {
	raw, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("checkpoint: the state is not JSON: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c := &o.ckpt
	switch {
	case c.Path == "":
		return ErrNotResumable
	case o.s.DryRun:
		return nil
	}
	saved := savedState{Fingerprint: c.fingerprint, Saved: time.Now().UTC(), State: raw}
	if c.Input != nil {
		saved.InputBytes, saved.InputDigest = c.Input.Consumed()
	}
	if !o.progress.at.IsZero() {
		p := o.progress.latest
		p.Message = o.redact(p.Message)
		saved.Progress = &p
	}
	file, err := json.Marshal(saved)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := atomicfile.Write(c.Path, file, 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if c.Stop != nil && c.Stop() {
		return ErrPaused
	}
	return nil
}

// DiscardCheckpoint is the lifecycle's: it deletes the saved state, once
// the work is complete or cancelled, so that the identical invocation
// starts fresh.
func (o *Output) DiscardCheckpoint() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ckpt.Path == "" || o.s.DryRun {
		return nil
	}
	if err := os.Remove(o.ckpt.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// LatestProgress is the command's latest progress report, and whether it
// made one.
func (o *Output) LatestProgress() (ProgressEvent, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.progress.latest
	p.Message = o.redact(p.Message)
	return p, !o.progress.at.IsZero()
}
