package envelope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/jsonw"
	"github.com/duet-cli/duet/internal/sessiondir"
)

// Long work: what a command that runs for long, in steps, or with resources
// to release tells the lifecycle through its Output — the steps it runs and
// how to undo them, its cleanup hooks, its temporary files, and its status
// for heartbeats.

// work is the Output's long-work state, guarded by Output.mu.
type work struct {
	runs      []stepRun
	stepErr   error // the failure of a step: later steps do not run
	undos     []func(context.Context) error
	cleanups  []func(context.Context) error
	status    string // the latest progress message or step started, for heartbeats
	tempDir   string // the session's temp directory, once made
	undoHooks int    // undo hooks ever registered, rolled back or not (Changes)
}

type stepRun struct {
	name  string
	state stepState
}

type stepState int

const (
	stepRunning stepState = iota
	stepDone
	stepFailed
	stepSkipped
)

// RollbackStatus says what --rollback-on-failure did.
type RollbackStatus string

// The outcomes of a rollback.
const (
	RollbackCompleted    RollbackStatus = "completed"
	RollbackFailed       RollbackStatus = "failed"
	RollbackNotAttempted RollbackStatus = "not_attempted"
)

// StepReport is a multi-step command's account of its steps, in
// meta.steps — and, when the command failed, as data too.
type StepReport struct {
	Partial        bool     `json:"partial,omitempty"` // it failed after completing a step: state changed in part
	CompletedSteps []string `json:"completed_steps"`
	FailedStep     *string  `json:"failed_step"`   // null when no step failed
	SkippedSteps   []string `json:"skipped_steps"` // before --resume-from, or not reached
	// ResumeFrom is the step to pass to --resume-from to try again from
	// where it failed.
	ResumeFrom     string         `json:"resume_from,omitempty"`
	RollbackStatus RollbackStatus `json:"rollback_status,omitempty"`
	RollbackError  string         `json:"rollback_error,omitempty"`
}

// Step runs one of the command's declared steps (schema.Meta.Steps), and
// returns what run returned. The lifecycle reports which steps completed,
// which failed and which were skipped; a failure after a completed step is
// a PARTIAL_FAILURE (exit 3) whose answer says where to resume.
//
// Under --resume-from, a step declared before the one named is not run: it
// is reported skipped and Step returns nil. Once a step has failed, later
// steps do not run either: Step returns that failure again. A step the
// command does not declare is not run, and is reported as the tool's bug.
func (o *Output) Step(ctx context.Context, name string, run func(context.Context) error) error {
	o.mu.Lock()
	switch {
	case o.closed:
		o.mu.Unlock()
		return ErrClosed
	case o.work.stepErr != nil:
		o.mu.Unlock()
		return o.work.stepErr
	case len(o.s.Steps) > 0 && !slices.Contains(o.s.Steps, name):
		o.mu.Unlock()
		return Errorf(exitcode.GeneralError, "UNDECLARED_STEP", "step %q is not one of the command's declared steps (%s)", name, strings.Join(o.s.Steps, ", ")).
			WithPhase(Execution).
			WithSuggestion("this is a bug in the tool: declare every step in Meta.Steps, in the order they run")
	case o.resumesAfter(name):
		o.work.runs = append(o.work.runs, stepRun{name, stepSkipped})
		o.stepEvent(name, "skipped")
		o.mu.Unlock()
		return nil
	}
	i := len(o.work.runs)
	o.work.runs = append(o.work.runs, stepRun{name, stepRunning})
	o.work.status = name
	o.stepEvent(name, "started")
	o.mu.Unlock()

	err := run(ctx)

	o.mu.Lock()
	defer o.mu.Unlock()
	o.work.runs[i].state = stepDone
	status := "completed"
	if err != nil {
		o.work.runs[i].state = stepFailed
		o.work.stepErr = err
		status = "failed"
	}
	o.stepEvent(name, status)
	return err
}

// StepEvent is what an agent reads on stderr as each step starts and ends,
// beside the progress events.
type StepEvent struct {
	Type   string `json:"type"` // always "step"
	Step   string `json:"step"`
	Status string `json:"status"` // started, completed, failed or skipped
}

// stepEvent writes a StepEvent for an agent, unless under --quiet or once
// the invocation has answered. o.mu is held.
func (o *Output) stepEvent(name, status string) {
	if !o.s.Mode.Agent || o.s.Quiet || o.closed {
		return
	}
	o.progress.clearLocked()
	b := jsonw.String([]byte(`{"type":"step","step":`), name)
	b = jsonw.String(append(b, `,"status":`...), status)
	o.s.Stderr.Write(append(b, "}\n"...))
}

// resumesAfter reports whether --resume-from names a step declared after name.
func (o *Output) resumesAfter(name string) bool {
	if o.s.ResumeFrom == "" {
		return false
	}
	at := slices.Index(o.s.Steps, o.s.ResumeFrom)
	i := slices.Index(o.s.Steps, name)
	return at >= 0 && i >= 0 && i < at
}

// Undo registers how to undo what the running step has done so far. Under
// --rollback-on-failure, when the command fails, the lifecycle calls every
// undo registered, the last first, before it answers. Register one as soon
// as there is something to undo: a step that fails half-way is undone too.
func (o *Output) Undo(fn func(ctx context.Context) error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.work.undos = append(o.work.undos, fn)
	o.work.undoHooks++
}

// OnCleanup registers fn to release what the command acquired: a lock, a
// connection, a child process. The lifecycle calls every hook once, the
// last registered first, when the command returns, times out or is
// cancelled by a signal, and before it answers; a hook that fails is
// reported with phase cleanup. A hook must be safe to call twice. Duet's
// own resources — the temp directory, locks taken with package lock —
// register theirs themselves.
func (o *Output) OnCleanup(fn func(ctx context.Context) error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.work.cleanups = append(o.work.cleanups, fn)
}

// Rollback calls the undo functions registered with [Output.Undo], the last
// first, each once, and returns their failures. The lifecycle calls it.
func (o *Output) Rollback(ctx context.Context) error {
	o.mu.Lock()
	undos := o.work.undos
	o.work.undos = nil
	o.mu.Unlock()
	return runHooks(ctx, undos, "undo")
}

// CleanupPending reports whether Cleanup has anything to do: a hook or the
// session temp directory.
func (o *Output) CleanupPending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.work.cleanups) > 0 || o.work.tempDir != ""
}

// Cleanup calls the hooks registered with [Output.OnCleanup], the last
// first, each once, then removes the session's temp directory, and returns
// what failed. The lifecycle calls it; calling it again does nothing more.
func (o *Output) Cleanup(ctx context.Context) error {
	o.mu.Lock()
	hooks, dir := o.work.cleanups, o.work.tempDir
	o.work.cleanups = nil
	o.mu.Unlock()
	err := runHooks(ctx, hooks, "cleanup")
	if dir != "" {
		if rerr := os.RemoveAll(dir); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove the session temp directory: %w", rerr))
		}
	}
	return err
}

// runHooks calls hooks, the last first; a panic is one more failure.
func runHooks(ctx context.Context, hooks []func(context.Context) error, what string) error {
	var errs []error
	for i := len(hooks) - 1; i >= 0; i-- {
		func() {
			defer func() {
				if r := recover(); r != nil {
					errs = append(errs, fmt.Errorf("%s hook panicked: %v", what, r))
				}
			}()
			if err := hooks[i](ctx); err != nil {
				errs = append(errs, err)
			}
		}()
	}
	return errors.Join(errs...)
}

// StepReport returns the account of the steps the command declared or ran,
// or nil when it has none. A step still running when it is asked for —
// the command was abandoned after a timeout or a signal — counts as
// failed.
func (o *Output) StepReport() *StepReport {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.s.Steps) == 0 && len(o.work.runs) == 0 {
		return nil
	}
	r := &StepReport{CompletedSteps: []string{}, SkippedSteps: []string{}}
	state := map[string]stepState{}
	for _, run := range o.work.runs {
		state[run.name] = run.state
		switch run.state {
		case stepDone:
			r.CompletedSteps = append(r.CompletedSteps, run.name)
		case stepRunning, stepFailed:
			if r.FailedStep == nil {
				name := run.name
				r.FailedStep, r.ResumeFrom = &name, name
			}
		}
	}
	order := o.s.Steps
	if len(order) == 0 {
		for _, run := range o.work.runs {
			order = append(order, run.name)
		}
	}
	for _, name := range order {
		if s, ran := state[name]; !ran || s == stepSkipped {
			r.SkippedSteps = append(r.SkippedSteps, name)
		}
	}
	r.Partial = r.FailedStep != nil && len(r.CompletedSteps) > 0
	return r
}

// TempDir returns the invocation's own temporary directory, made on first
// use with mode 0700 under the tool's private temp root; its name holds the
// process and request ids, so no two invocations share one. The lifecycle
// removes it when the invocation ends — normally, on a timeout or on
// SIGINT or SIGTERM — and reports it as meta.session_tmp_dir; one left by
// a killed process is removed the next time the tool runs.
func (o *Output) TempDir() (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.work.tempDir != "" {
		return o.work.tempDir, nil
	}
	dir, err := sessiondir.New(o.tempRoot(), o.s.Session)
	if err != nil {
		return "", err
	}
	o.work.tempDir = dir
	return dir, nil
}

// SessionTmpDir returns the temp directory [Output.TempDir] made, or "".
func (o *Output) SessionTmpDir() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.work.tempDir
}

// TempFile creates a new file in [Output.TempDir], mode 0600, named as
// os.CreateTemp names one from pattern. It goes when the directory goes.
func (o *Output) TempFile(pattern string) (*os.File, error) {
	dir, err := o.TempDir()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil { // explicit: no umask can widen it
		f.Close()
		return nil, err
	}
	return f, nil
}

// KeptFor is how long a file made with [Output.OutputFile] is kept.
const KeptFor = time.Hour

// FileCleanup tells the caller how to remove a file kept for it: put it in
// the answer's data, as "cleanup", beside the file's path.
type FileCleanup struct {
	Command                 string `json:"command"` // a shell command that removes the file, runnable as is
	AutoCleanupAfterSeconds int64  `json:"auto_cleanup_after_seconds"`
}

// OutputFile creates name (a plain file name), mode 0600, in a directory of
// its own, mode 0700, under the tool's private temp root, for the caller to
// read after the invocation ends. The FileCleanup says how to remove it; the
// tool removes it itself, when it next runs, once it is older than
// [KeptFor].
func (o *Output) OutputFile(name string) (*os.File, FileCleanup, error) {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || strings.ContainsRune(name, os.PathSeparator) {
		return nil, FileCleanup{}, fmt.Errorf("output file %q: want a plain file name", name)
	}
	o.mu.Lock()
	root, session := o.tempRoot(), o.s.Session
	o.mu.Unlock()
	dir, err := sessiondir.Keep(root, session)
	if err != nil {
		return nil, FileCleanup{}, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, FileCleanup{}, err
	}
	o.mu.Lock()
	o.kept = append(o.kept, f.Name()) // a file that outlasts the invocation (Changes)
	o.mu.Unlock()
	return f, FileCleanup{Command: "rm -rf -- " + quoted(dir), AutoCleanupAfterSeconds: int64(KeptFor / time.Second)}, nil
}

func (o *Output) tempRoot() string {
	if o.s.TempRoot != "" {
		return o.s.TempRoot
	}
	return sessiondir.Root(os.TempDir(), "duet")
}

// quoted is s in single quotes, for a command line shown to be run by sh.
func quoted(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Heartbeat is the line a long-running command's caller reads to know it
// is alive. The answer that ends the run has no heartbeat member.
type Heartbeat struct {
	Status    string `json:"status"` // always "running"
	Heartbeat bool   `json:"heartbeat"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Step      string `json:"step,omitempty"` // the step running, or the latest progress message
}

// Beat writes one JSON heartbeat: on stdout as a line of a jsonl stream,
// where an agent reads it between the items; otherwise on stderr, since
// stdout carries exactly one envelope. Nothing is written once the
// invocation has answered. The lifecycle calls it (--heartbeat-ms).
func (o *Output) Beat(elapsed time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	hb := Heartbeat{Status: "running", Heartbeat: true, ElapsedMS: elapsed.Milliseconds(), Step: o.work.status}
	b := append(jsonw.String([]byte(`{"status":`), hb.Status), `,"heartbeat":true,"elapsed_ms":`...)
	b = jsonw.Int(b, hb.ElapsedMS)
	if hb.Step != "" {
		b = jsonw.String(append(b, `,"step":`...), hb.Step)
	}
	b = append(b, "}\n"...)
	if o.s.Mode.Format == JSONL {
		o.writeStdout(b)
		return
	}
	o.progress.clearLocked()
	o.s.Stderr.Write(b)
}

// BeatText writes one plain-text heartbeat on stderr, "[12s] status": the
// time since the invocation started and the latest progress message or
// step. Nothing is written under --quiet. The lifecycle calls it
// (--heartbeat-interval).
func (o *Output) BeatText(elapsed time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.s.Quiet {
		return
	}
	status := o.work.status
	if status == "" {
		status = "running"
	}
	secs := strconv.FormatFloat(math.Round(elapsed.Seconds()*10)/10, 'f', -1, 64)
	o.progress.clearLocked()
	io.WriteString(o.s.Stderr, "["+secs+"s] "+sanitizeCell(status)+"\n")
}

// AlreadyExists answers a create whose resource exists already: the
// existing resource, as a get of it would answer, becomes the answer's
// data, and the error is ALREADY_EXISTS (exit 6 CONFLICT, not retryable)
// with conflict_id. An agent that retried a create reads the resource from
// data and goes on, with no second call.
func (o *Output) AlreadyExists(id string, existing any, format string, args ...any) *Error {
	o.Result(existing)
	e := Errorf(exitcode.Conflict, "ALREADY_EXISTS", format, args...).
		WithoutRetry().
		WithSuggestion("data holds the existing resource: use it, or create under another id").
		WithResult()
	e.ConflictID = id
	return e
}

// appendWork appends meta's long-work members.
func (m Meta) appendWork(b []byte) []byte {
	if m.Steps != nil {
		if raw, err := marshal(m.Steps); err == nil {
			b = append(append(b, `,"steps":`...), raw...)
		}
	}
	b = optBool(b, "idempotency_hit", m.IdempotencyHit)
	return optString(b, "session_tmp_dir", m.SessionTmpDir)
}
