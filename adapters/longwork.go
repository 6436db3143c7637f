package adapters

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/internal/sessiondir"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// Long work: commands that run for long (heartbeats), in steps (step
// report, --resume-from, --rollback-on-failure), with resources to release
// (cleanup hooks, the session's temp directory) and work that outlives the
// invocation (async jobs).

// defaultHeartbeat is how often a long-running command sends an agent a
// heartbeat when --heartbeat-ms is not given.
const defaultHeartbeat = 10 * time.Second

// rollbackWait bounds a rollback; cleanup hooks get the grace period.
const rollbackWait = 30 * time.Second

// workState is the invocation's long-work state.
type workState struct {
	returned atomic.Bool     // the command's action has returned (or panicked)
	job      *jobstore.Job   // the job this process does: an async command's detached run
	jobs     *jobstore.Store // where that job is recorded
	// A resumable command's (Interruption.Resume): the id its checkpoint
	// is kept under, the command line that continues it, and the stop
	// asked of it, which it takes at its next checkpoint.
	checkpoint string
	resumeArgs []string
	input      envelope.InputDigest // its stdin payload, when it reads one
	stop       atomic.Bool
	budgetEnd  *time.Timer // asks for the stop when the call's budget runs out
	after      sync.Once   // afterRun
}

// workFlags appends the built-in flags a command gets from its long-work
// declarations.
func workFlags(flags []schema.Flag, c *schema.Command) []schema.Flag {
	if c.Meta.LongRunning && c.Meta.Protocol == "" { // a server's stdout is its protocol's
		flags = append(flags,
			schema.Flag{Name: flagname.HeartbeatMS, Control: true, Type: schema.Integer, Default: int(defaultHeartbeat / time.Millisecond),
				Usage: "for an agent, a JSON heartbeat this often, in ms: a line of the jsonl stream on stdout, else on stderr; 0 for none"},
			schema.Flag{Name: flagname.HeartbeatInterval, Control: true, Type: schema.Number, Default: 0,
				Usage: "write '[<elapsed>s] <status>' on stderr this often, in seconds; 0 for never"})
	}
	if c.Meta.Interruption != nil {
		flags = append(flags, budgetFlag())
	}
	if len(c.Meta.Steps) > 0 {
		flags = append(flags, schema.Flag{Name: flagname.ResumeFrom, Type: schema.String, Enum: slices.Clone(c.Meta.Steps),
			Usage: "start at this step, skipping those before it: the resume_from of a failed run"})
		if c.Meta.Rollback {
			flags = append(flags, schema.Flag{Name: flagname.RollbackOnFailure, Type: schema.Boolean, Default: false,
				Usage: "when a step fails, undo what the steps did before answering"})
		}
	}
	return flags
}

// checkWork checks a command's long-work declarations when the app is
// wrapped.
func checkWork(c *schema.Command) error {
	var errs []error
	m := c.Meta
	for i, s := range m.Steps {
		switch {
		case s == "":
			errs = append(errs, fmt.Errorf("Meta.Steps[%d] is empty: every step has a name", i))
		case slices.Contains(m.Steps[:i], s):
			errs = append(errs, fmt.Errorf("Meta.Steps names %q twice", s))
		}
	}
	if m.Rollback && len(m.Steps) == 0 {
		errs = append(errs, errors.New("Meta.Rollback is declared without Meta.Steps: undo is registered by the steps (Output.Undo)"))
	}
	if m.Async {
		switch {
		case !c.Runnable:
			errs = append(errs, errors.New("Meta.Async is declared on a command that does not run"))
		case m.Interactive || m.List || m.Protocol != "":
			errs = append(errs, errors.New("an async command runs detached: it cannot be interactive, a list or a protocol server"))
		}
	}
	if c.Streams() && c.Danger() == schema.Destructive { // REQ-C-002, REQ-O-004
		errs = append(errs, errors.New("a streaming command cannot be destructive: a stream cannot preview each change, nor ask before each"))
	}
	if i := m.Interruption; i != nil { // REQ-C-033
		switch {
		case !c.Runnable:
			errs = append(errs, errors.New("Meta.Interruption is declared on a command that does not run"))
		case !i.Detach && !i.Resume:
			errs = append(errs, errors.New("Meta.Interruption declares neither Detach nor Resume"))
		case m.Async || m.StreamingDefault || m.Streaming || m.Protocol != "" || m.Interactive:
			errs = append(errs, errors.New("Meta.Interruption cannot go with an async, streaming, interactive or protocol command: its answer is one envelope, now or from the job"))
		case i.IdleTimeout < 0 || i.MaxLifetime < 0:
			errs = append(errs, errors.New("Meta.Interruption's IdleTimeout and MaxLifetime cannot be negative"))
		}
	}
	return errors.Join(errs...)
}

// budgetFlag is --budget, of a command that declares interruption.
func budgetFlag() schema.Flag {
	return schema.Flag{Name: flagname.Budget, Type: schema.String, Format: "duration", Builtin: true,
		Usage: "answer within this long, with the result or INCOMPLETE and the job the work goes on in; 0 waits for the work (default: $" + BudgetEnv + " ms, else 30s for an agent)"}
}

// checkWorkFlags checks the values of the long-work flags.
func (c *call) checkWorkFlags() {
	if v, ok := c.opt(flagname.HeartbeatMS); ok {
		if n, err := strconv.Atoi(v); err == nil && n < 0 {
			c.problem(errcode.InvalidFlagValue, flagname.HeartbeatMS, "--heartbeat-ms must be 0 (none) or more, not %d", n)
		}
	}
	if v, ok := c.opt(flagname.MinAge); ok {
		if n, err := strconv.Atoi(v); err == nil && n < 0 {
			c.problem(errcode.InvalidFlagValue, flagname.MinAge, "--min-age must be 0 or more seconds, not %d", n)
		}
	}
	if v, ok := c.opt(flagname.HeartbeatInterval); ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil && (f < 0 || f > 1e6) {
			c.problem(errcode.InvalidFlagValue, flagname.HeartbeatInterval, "--heartbeat-interval must be 0 (never) or a number of seconds up to 1000000, not %s", v)
		}
	}
}

// WithCleanupCommand gives the app the built-in cleanup command, which
// removes the files Duet keeps for it: temp directories that killed runs
// left, files kept for callers, idempotency records, ended jobs. (What an
// ended run leaves is removed without it, when the tool next runs.)
func WithCleanupCommand() Option { return func(c *config) { c.cleanup = true } }

// workNodes are the built-in commands long work adds: cleanup when the app
// asked for it, job to an app with an async command.
func workNodes(root *schema.Command, cleanup bool) []*schema.Command {
	async := false
	root.Walk(func(c *schema.Command) {
		if c.Meta.Async || c.Meta.Interruption != nil {
			async = true
			// Its jobs are kept in the tool's state directory (C-011).
			jobs := schema.SideEffect{Path: "$XDG_STATE_HOME/" + root.Name + "/jobs", Kind: schema.TempFile, Builtin: true}
			if cleanup {
				jobs.ClearWith = root.Name + " " + cleanupCommand + " --scope jobs"
			}
			if !slices.ContainsFunc(c.Meta.SideEffects, func(e schema.SideEffect) bool { return e.Path == jobs.Path }) {
				c.Meta.SideEffects = append(slices.Clip(c.Meta.SideEffects), jobs)
			}
		}
	})
	var nodes []*schema.Command
	if cleanup && root.Sub(cleanupCommand) == nil {
		nodes = append(nodes, cleanupNode())
	}
	if async && root.Sub(jobCommand) == nil {
		nodes = append(nodes, jobNode())
	}
	return nodes
}

// workSettings fills the Output's long-work settings.
func (inv *invocation) workSettings(s *envelope.Settings) {
	if inv.unread {
		return // the plain path pays for nothing
	}
	c := inv.call
	s.Steps = c.node.Meta.Steps
	s.ResumeFrom, _ = c.opt(flagname.ResumeFrom)
	s.TempRoot = inv.tempRoot()
	// The session's temp directory is named for the request id, which meta
	// is given after the Output is made: draw it now, and give meta the same.
	id := inv.cfg.requestID()
	inv.cfg.requestID = func() string { return id }
	s.Session = id
}

// tempRoot is the tool's private temp root.
func (inv *invocation) tempRoot() string {
	tmp := inv.cfg.getenv("TMPDIR")
	if tmp == "" {
		tmp = os.TempDir()
	}
	return sessiondir.Root(tmp, inv.root.Name)
}

// stateDir is where the tool keeps its jobs and its features' records:
// $<TOOL>_STATE_DIR, else $XDG_STATE_HOME/<tool>, else
// ~/.local/state/<tool>.
func (inv *invocation) stateDir() (string, error) {
	getenv := inv.cfg.getenv
	if d := getenv(envelope.EnvName(inv.root.Name, "STATE_DIR")); d != "" {
		return filepath.Abs(d)
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Abs(filepath.Join(d, inv.root.Name))
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", err
		}
	}
	return filepath.Join(home, ".local", "state", inv.root.Name), nil
}

func noStateDir(tool string, err error) *envelope.Error {
	return envelope.Errorf(exitcode.Precondition, "NO_STATE_DIR", "no directory for the tool's state: %v", err).
		WithFix("set "+envelope.EnvName(tool, "STATE_DIR")+" to a directory for the tool's state", "")
}

// staleSession is how old a PID file must be before a later invocation may
// remove it (when nothing it lists runs): older than any write of a live
// session's file takes.
const staleSession = time.Minute

// beforeWork runs after confirmation, before the command: it prunes what
// killed invocations left in the temp root, claims the job this process is
// started for, begins the features (one may answer: a call repeated with
// its idempotency key) and starts the job of an async command. done
// reports that the invocation has answered, with code.
func (inv *invocation) beforeWork(ctx context.Context, args []string) (code int, done bool) {
	sessiondir.Prune(inv.tempRoot(), envelope.KeptFor, time.Now()) // best effort: a root in a bad state is reported where it is used
	proc.PruneSessions(inv.root.Name, tempDir(inv.cfg), staleSession, time.Now())
	if e := inv.claimJob(); e != nil {
		return inv.finish(e), true
	}
	if e := inv.checkpointing(args); e != nil {
		return inv.finish(e), true
	}
	if inv.work.job != nil || inv.out.DryRun() {
		return 0, false // a dry run changes nothing, so it is neither replayed nor recorded
	}
	if code, done := inv.beginFeatures(ctx); done {
		return code, true
	}
	if inv.call.node.Meta.Async {
		return inv.startJob(args), true
	}
	if budget, ok := inv.callBudget(); ok {
		// A job is this program started again: an app run in-process (a
		// test, an in-process MCP server) is not that program, and runs
		// the work in the call, with no budget in force but a checkpoint's.
		i := inv.call.node.Meta.Interruption
		detach := i.Detach && budget > 0 && inv.ownStreams()
		pause := !detach && i.Resume && budget > 0
		if detach || pause || budget == 0 {
			ms := budget.Milliseconds()
			inv.meta.BudgetMS = &ms
		}
		if detach {
			return inv.detach(ctx, args, budget), true
		}
		if pause {
			inv.work.budgetEnd = time.AfterFunc(budget-time.Since(inv.start), func() { inv.work.stop.Store(true) })
		}
	}
	return 0, false
}

// heartbeats starts the heartbeats of a long-running command, and returns
// what stops them.
func (inv *invocation) heartbeats() (stop func()) {
	c := inv.call
	if !c.node.Meta.LongRunning || c.node.Meta.Protocol != "" || inv.out == nil {
		return func() {}
	}
	var every, text time.Duration
	if v, ok := c.opt(flagname.HeartbeatMS); ok {
		ms, _ := strconv.Atoi(v)
		every = time.Duration(ms) * time.Millisecond
	} else if inv.mode.Agent {
		every = defaultHeartbeat
	}
	if v, ok := c.opt(flagname.HeartbeatInterval); ok {
		s, _ := strconv.ParseFloat(v, 64)
		text = time.Duration(s * float64(time.Second))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	beat := func(d time.Duration, write func(time.Duration)) {
		if d <= 0 {
			return
		}
		wg.Go(func() {
			t := time.NewTicker(d)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					write(time.Since(inv.start))
				}
			}
		})
	}
	beat(every, inv.out.Beat)
	beat(text, inv.out.BeatText)
	return func() {
		close(done)
		wg.Wait()
	}
}

// stalledCode is the error code of a job the idle limit ended.
const stalledCode = "STALLED"

// watchIdle ends the background job of a command whose Interruption
// declares an IdleTimeout once it has reported no new progress for that
// long (REQ-F-081): its context is cancelled with a STALLED timeout as the
// cause, and the job answers it. Only a job is watched: a call holds its
// caller at most its budget, and a person watches a terminal. It returns
// what stops the watch.
func (inv *invocation) watchIdle(cancel context.CancelCauseFunc) (stop func()) {
	i := inv.call.node.Meta.Interruption
	if inv.work.job == nil || i == nil || i.IdleTimeout <= 0 || inv.out == nil {
		return func() {}
	}
	idle := i.IdleTimeout
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		// A timer set to when the limit would run out, moved on by each
		// report: no polling.
		t := time.NewTimer(idle)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				last := inv.out.LastProgress()
				if last.Before(inv.start) {
					last = inv.start
				}
				if quiet := now.Sub(last); quiet < idle {
					t.Reset(idle - quiet)
					continue
				}
				cancel(envelope.Errorf(exitcode.Timeout, stalledCode,
					"the work reported no progress for %s, its idle limit (idle_timeout_ms %d), and was stopped", idle, idle.Milliseconds()).
					WithSuggestion("find what the work waits on, then run the command again"))
				return
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// stoppedWork is the answer of work stopped before its end that the
// command's own error does not give: the idle watch stopped it (the
// command returned an error after its context was cancelled for it), or
// it stopped at a checkpoint when asked to. Work that finished all the
// same keeps its answer.
func (inv *invocation) stoppedWork(ctx context.Context, err error, sig os.Signal) *envelope.Error {
	var e *envelope.Error
	if err != nil && errors.As(context.Cause(ctx), &e) && e.Code == stalledCode {
		return e
	}
	return inv.paused(err, sig)
}

// progressEvery is how often work that may outlive its call reports
// progress at least (REQ-C-034): progress, not a timer, tells a caller
// working from hung.
const progressEvery = 10 * time.Second

// heldToProgress warns when a command that declares Interruption went
// longer than progressEvery without a new progress report: the tool's
// bug, which leaves the agent's INCOMPLETE answers without a progress that
// grows, and the idle limit without a sign of life.
func (inv *invocation) heldToProgress() {
	if inv.call.node.Meta.Interruption == nil || !inv.ran.Load() {
		return
	}
	if quiet := inv.out.LongestSilence(inv.start, time.Now()); quiet > progressEvery {
		inv.out.Warn("PROGRESS_GAP", fmt.Sprintf("the command went %s without reporting progress; work that can outlive its call reports it at least every %s, or its caller cannot tell working from hung",
			quiet.Round(100*time.Millisecond), progressEvery), "report this to the tool's authors")
	}
}

// endWork settles what long work leaves for the answer, before it is
// written: the step report (and a rollback), the features' end, the
// cleanup hooks, and the session's temp directory.
func (inv *invocation) endWork(fail *envelope.Error) *envelope.Error {
	out := inv.out
	if out == nil {
		return fail
	}
	fail = inv.settleSteps(fail)
	inv.heldToProgress()
	fail = inv.settleCheckpoint(fail)
	inv.endFeatures(fail)
	if err := inv.cleanup(); err != nil {
		if fail == nil {
			fail = envelope.Errorf(exitcode.GeneralError, "CLEANUP_FAILED", "the command finished, but releasing what it held failed: %v", err).
				WithPhase(envelope.Cleanup).
				WithSuggestion("the work is done; check what the message names before running it again").
				WithResult()
		} else {
			out.Warn("CLEANUP_FAILED", "releasing what the command held failed: "+err.Error(), "check what it names")
		}
	}
	inv.meta.SessionTmpDir = out.SessionTmpDir()
	return fail
}

// cleanup runs the command's cleanup hooks and removes its session's temp
// directory, within the grace period. A run that registered neither sets
// no timer: one starts the runtime's poller, and a thread, in every run.
func (inv *invocation) cleanup() error {
	if !inv.out.CleanupPending() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), inv.cfg.grace)
	defer cancel()
	return inv.out.Cleanup(ctx)
}

// settleSteps reports a multi-step command's steps: in meta.steps always,
// and as data when it failed. A failure after a completed step is a
// PARTIAL_FAILURE (exit 3), unless it was a timeout or a signal; under
// --rollback-on-failure the steps are undone first.
func (inv *invocation) settleSteps(fail *envelope.Error) *envelope.Error {
	out := inv.out
	rep := out.StepReport()
	if rep == nil || !inv.ran.Load() {
		return fail
	}
	inv.meta.Steps = rep
	if fail == nil {
		return nil
	}
	switch {
	case inv.call.on(flagname.RollbackOnFailure) && !inv.work.returned.Load():
		rep.RollbackStatus = envelope.RollbackNotAttempted
		rep.RollbackError = "the command had not returned when its grace period ran out, so its steps could not be undone safely"
	case inv.call.on(flagname.RollbackOnFailure):
		ctx, cancel := context.WithTimeout(context.Background(), max(inv.cfg.grace, rollbackWait))
		err := out.Rollback(ctx)
		cancel()
		rep.RollbackStatus = envelope.RollbackCompleted
		if err != nil {
			rep.RollbackStatus, rep.RollbackError = envelope.RollbackFailed, err.Error()
		}
	case inv.call.node.Meta.Rollback:
		rep.RollbackStatus = envelope.RollbackNotAttempted
	}
	switch fail.Exit {
	case exitcode.Timeout, exitcode.Interrupted, exitcode.Terminated:
	default:
		if rep.Partial {
			fail.Exit = exitcode.PartialFailure
			fail.Message = fmt.Sprintf("step %q failed after %d completed: %s", *rep.FailedStep, len(rep.CompletedSteps), fail.Message)
			if fail.Suggestion == "" {
				fail.Suggestion = fmt.Sprintf("inspect the state, then run it again with --%s %s", flagname.ResumeFrom, rep.ResumeFrom)
			}
		}
	}
	if _, has := out.Recorded(); !has {
		out.Result(rep)
		fail = fail.WithResult()
	}
	return fail
}

// actionReturned records that the command's action has returned.
func (inv *invocation) actionReturned() { inv.work.returned.Store(true) }

// afterRun runs once the invocation has answered: the cleanup hooks of a
// command the app ran itself (the faithful path writes no envelope), and
// the record of the job this process did.
func (inv *invocation) afterRun(code int) int {
	inv.work.after.Do(func() {
		if inv.out != nil {
			inv.cleanup() // best effort: the answer is written
		}
		if inv.begun > 0 { // a run that ended before its answer settled (endWork)
			inv.endFeatures(envelope.Errorf(exitcode.GeneralError, "UNSETTLED", "the invocation ended before its answer settled"))
		}
		if t := inv.work.budgetEnd; t != nil {
			t.Stop()
		}
		inv.finishJob(code)
	})
	return code
}
