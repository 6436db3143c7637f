package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/schema"
)

// Async commands (schema.Meta.Async) answer at once with a job descriptor;
// the work goes on in a detached process — the same binary, started again
// with the same command line — that records its answer where `job status`
// reads it. The detached process holds the job's lock from before it
// starts until it exits, so a job recorded as running whose lock is free
// has lost its process.

// jobCommand is the name of the built-in command group that follows jobs
// (its status command takes --wait).
const (
	jobCommand = "job"
)

func jobNode() *schema.Command {
	id := []schema.Arg{{Name: "id", Required: true, Type: schema.String, ID: true, Pattern: `^[a-z0-9][a-z0-9-]{0,80}$`, Usage: "the job_id an async command answered with"}}
	leaf := func(name, usage string, danger schema.Danger) *schema.Command {
		return &schema.Command{Name: name, Usage: usage, Runnable: true, Builtin: true, Args: id, Meta: schema.Meta{Danger: danger}}
	}
	status := leaf("status", "Show a job's state, and its answer once it has ended", schema.Safe)
	status.Flags = []schema.Flag{{Name: flagname.Wait, Type: schema.Boolean, Default: false, Builtin: true, Usage: "wait until the job has ended, within --timeout"}}
	status.Meta.ExitCodes = exitcode.Table{
		exitcode.Success:      {Description: "The job is complete; data.result holds its answer's data."},
		exitcode.Timeout:      {Description: "The job ran out of its time limit; data.error holds its error."},
		exitcode.Incomplete:   {Name: "INCOMPLETE", Description: "The job is still running; ask again after retry_after_ms.", Retryable: true, SideEffects: exitcode.None},
		exitcode.Precondition: {Description: "The job failed or was cancelled; data.error holds its error."},
		exitcode.NotFound:     {Description: "No job has that id."},
	}
	wait := leaf("wait", "Wait for a job within the call's budget: its command's answer once it has ended, else INCOMPLETE again", schema.Safe)
	wait.Flags = []schema.Flag{budgetFlag()}
	wait.Meta.ExitCodes = exitcode.Table{
		exitcode.Incomplete: {Name: "INCOMPLETE", Description: "The call's budget ran out and the job runs on; run the same command again.", Retryable: true, SideEffects: exitcode.None},
		exitcode.NotFound:   {Description: "No job has that id."},
	}
	wait.Meta.Examples = []schema.Example{{Description: "the answer of work that outlived its call", Command: "job wait <id>"}}
	status.Meta.Examples = []schema.Example{{Description: "wait for a job's answer", Command: "job status <id> --wait --timeout 10m"}}
	cancel := leaf("cancel", "Cancel a running job (SIGTERM to its process) and show its state", schema.Mutating)
	cancel.Meta.ExitCodes = exitcode.Table{exitcode.NotFound: {Description: "No job has that id."}}
	list := &schema.Command{Name: "list", Usage: "List the tool's jobs, the newest first", Runnable: true, Builtin: true, NoArgs: true,
		Meta: schema.Meta{Danger: schema.Safe, List: true, NoArgs: true}}
	return &schema.Command{
		Name:     jobCommand,
		Usage:    "Follow and cancel the jobs of async commands",
		Builtin:  true,
		Meta:     schema.Meta{Danger: schema.Safe},
		Commands: []*schema.Command{cancel, list, status, wait},
	}
}

// JobDescriptor is what an async command answers with, and the core of
// what `job status` answers: the CLI Agent Spec's job descriptor.
type JobDescriptor struct {
	JobID          string `json:"job_id"`
	Status         string `json:"status"` // running, complete, failed or cancelled
	Terminal       bool   `json:"terminal"`
	StatusCommand  string `json:"status_command"`
	CancelCommand  string `json:"cancel_command"`
	PollIntervalMS int64  `json:"poll_interval_ms"`
	TimeoutMS      int64  `json:"timeout_ms"`
}

// jobView is a job as `job status` and `job list` show it.
type jobView struct {
	JobDescriptor
	Command  string          `json:"command"`
	Created  time.Time       `json:"created"`
	Finished *time.Time      `json:"finished,omitempty"`
	ExitCode *int            `json:"exit_code,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"` // the data of the job's answer
	Effect   envelope.Effect `json:"effect,omitempty"` // what the job's command reported it did
	// While it runs, the incomplete-work answer's members (REQ-F-082).
	State           string          `json:"state,omitempty"`
	Progress        *Progress       `json:"progress,omitempty"`
	ContinueCommand string          `json:"continue_command,omitempty"`
	Error           json.RawMessage `json:"error,omitempty"` // the error of the job's answer
	Lost            bool            `json:"lost,omitempty"`  // its process ended without recording an answer
}

func (inv *invocation) jobStore() (*jobstore.Store, *envelope.Error) {
	dir, err := inv.stateDir()
	if err != nil {
		return nil, noStateDir(inv.root.Name, err)
	}
	return &jobstore.Store{Dir: filepath.Join(dir, "jobs")}, nil
}

func (inv *invocation) descriptor(j jobstore.Job) JobDescriptor {
	return JobDescriptor{
		JobID:          j.ID,
		Status:         string(j.Status),
		Terminal:       j.Status.Terminal(),
		StatusCommand:  inv.root.Name + " " + jobCommand + " status " + j.ID,
		CancelCommand:  inv.root.Name + " " + jobCommand + " cancel " + j.ID,
		PollIntervalMS: j.PollMS,
		TimeoutMS:      j.TimeoutMS,
	}
}

// jobEnv names the environment variable that tells the detached process
// which job it does.
func (inv *invocation) jobEnv() string { return envelope.EnvName(inv.root.Name, "JOB_ID") }

// startJob starts an async command's job in a detached process and answers
// with its descriptor.
func (inv *invocation) startJob(args []string) int {
	j, e := inv.launchJob(args, "")
	if e != nil {
		return inv.finish(e)
	}
	d := inv.descriptor(j)
	inv.out.RenderText(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Started job %s.\nFollow it with: %s\nCancel it with: %s\n", d.JobID, d.StatusCommand, d.CancelCommand)
		return err
	})
	inv.out.Result(d)
	return inv.finish(nil)
}

// launchJob records a job of the invocation's command, under key, and
// starts the detached process that does it.
func (inv *invocation) launchJob(args []string, key string) (jobstore.Job, *envelope.Error) {
	store, e := inv.jobStore()
	if e != nil {
		return jobstore.Job{}, e
	}
	node := inv.call.node
	timeout := node.Timeout()
	if v, ok := inv.call.opt(flagname.Timeout); ok {
		timeout, _ = time.ParseDuration(v)
	}
	poll := 2 * time.Second
	if timeout > 0 {
		poll = min(max(timeout/20, 500*time.Millisecond), 5*time.Second)
	}
	j := jobstore.Job{
		ID:        jobstore.NewID(node.DotPath()),
		Command:   node.DotPath(),
		Status:    jobstore.Running,
		TimeoutMS: timeout.Milliseconds(),
		PollMS:    poll.Milliseconds(),
		Created:   time.Now().UTC(),
		Key:       key,
	}
	exe, err := os.Executable()
	if err == nil {
		err = spawnJob(store, &j, exe, inv.jobArgs(args, timeout), inv.jobEnviron(j.ID))
	}
	if err != nil {
		j.Status = jobstore.Failed
		store.Save(j)
		return j, envelope.Errorf(exitcode.GeneralError, "JOB_NOT_STARTED", "the job could not be started: %v", err).
			WithSuggestion("run it again; if it fails again, report it")
	}
	return j, nil
}

// jobArgs is the detached process's command line: the invocation's, with
// the job's time limit, confirmed when the invocation was (it cannot ask),
// and without --output, since the job answers in JSON for `job status`.
func (inv *invocation) jobArgs(args []string, timeout time.Duration) []string {
	node := inv.call.node
	builtin := func(name string) bool { f := node.Flag(name); return f != nil && f.Builtin }
	var out []string
	end := len(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			end = i
			i = len(args)
			continue
		case a == "--"+flagname.Format && builtin(flagname.Format):
			i++ // and its value
			continue
		case strings.HasPrefix(a, "--"+flagname.Format+"=") && builtin(flagname.Format):
			continue
		}
		out = append(out, a)
	}
	if builtin(flagname.Timeout) {
		out = append(out, "--"+flagname.Timeout+"="+timeout.String())
	}
	if node.NeedsConfirmation() && node.Flag(flagname.Yes) != nil {
		out = append(out, "--"+flagname.Yes)
	}
	return append(out, args[end:]...)
}

// jobEnviron is the detached process's environment: the invocation's, with
// the job's id, and JSON output.
func (inv *invocation) jobEnviron(id string) []string {
	output := envelope.EnvName(inv.root.Name, "FORMAT")
	var env []string
	for _, kv := range inv.cfg.environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != output && k != inv.jobEnv() {
			env = append(env, kv)
		}
	}
	// Its progress goes to its stderr, the job's file, where a call that
	// waits for it reads how far it has come.
	return append(env, output+"=json", inv.jobEnv()+"="+id, envelope.ProgressEnv+"=1")
}

// claimJob makes this process the one doing the job its environment names,
// if any: the job must be recorded as running, for this command and this
// process (the starting process recorded its id, then closed stdin).
func (inv *invocation) claimJob() *envelope.Error {
	id, ok := inv.cfg.lookupEnv(inv.jobEnv())
	if !ok {
		return nil
	}
	if inv.ownStreams() {
		os.Unsetenv(inv.jobEnv()) // not the job of what the command starts
	}
	store, e := inv.jobStore()
	if e != nil {
		return e
	}
	io.Copy(io.Discard, inv.cfg.stdin) // until the job is recorded
	j, err := store.Load(id)
	switch {
	case err != nil:
		return envelope.Errorf(exitcode.Precondition, "JOB_INVALID", "%s names job %q: %v", inv.jobEnv(), id, err)
	case j.Status != jobstore.Running || j.Command != inv.call.node.DotPath() || j.PID != os.Getpid():
		return envelope.Errorf(exitcode.Precondition, "JOB_INVALID", "%s names job %q, which is not this process's to run", inv.jobEnv(), id).
			WithSuggestion(fmt.Sprintf("unset %s", inv.jobEnv()))
	}
	keepJobLock()
	inv.work.job, inv.work.jobs = &j, store
	return nil
}

// finishJob records how the job this process did ended. The job's lock is
// released when the process exits, after this.
func (inv *invocation) finishJob(code int) {
	j := inv.work.job
	if j == nil {
		return
	}
	switch exitcode.Code(code) {
	case exitcode.Success:
		j.Status = jobstore.Complete
	case exitcode.Interrupted, exitcode.Terminated:
		j.Status = jobstore.Cancelled
	default:
		j.Status = jobstore.Failed
	}
	now := time.Now().UTC()
	j.Finished, j.ExitCode = &now, &code
	if err := inv.work.jobs.Save(*j); err != nil {
		fmt.Fprintf(inv.cfg.stderr, "job %s: recording its end: %v\n", j.ID, err)
	}
}

// jobAction runs one of the job commands.
func (inv *invocation) jobAction(ctx context.Context) error {
	store, e := inv.jobStore()
	if e != nil {
		return e
	}
	if inv.call.node.Name == "list" {
		jobs, err := store.List(time.Now())
		if err != nil {
			return err
		}
		views := []jobView{}
		for _, j := range jobs {
			views = append(views, inv.jobView(store, j))
		}
		return inv.out.Result(views)
	}
	id := inv.call.args[0]
	j, err := store.Current(id, time.Now())
	if errors.Is(err, jobstore.ErrNotFound) && inv.call.node.Name == "cancel" {
		if done, err := inv.cancelCheckpoint(id); done {
			return err
		}
	}
	if errors.Is(err, jobstore.ErrNotFound) {
		return envelope.Errorf(exitcode.NotFound, "JOB_NOT_FOUND", "no job %q", id).
			WithFix("", inv.root.Name+" "+jobCommand+" list")
	}
	if err != nil {
		return err
	}
	if inv.call.node.Name == "cancel" {
		inv.out.Effect(envelope.Noop)
		if !j.Status.Terminal() {
			inv.out.Effect(envelope.Updated)
			if j, err = inv.cancelJob(ctx, store, j); err != nil {
				return err
			}
		}
		return inv.out.Result(inv.jobView(store, j))
	}
	if inv.call.node.Name == "wait" {
		return inv.jobWait(ctx, store, j)
	}
	if inv.call.bool(flagname.Wait) && !j.Status.Terminal() {
		if j, err = inv.waitJob(ctx, store, id, 0); err != nil {
			return err
		}
	}
	return inv.answerJob(store, j)
}

// waitJob waits, within wait (0: as long as ctx allows), for the job's
// process to end, and returns the job's record then. A wait that runs out
// returns the job still running.
func (inv *invocation) waitJob(ctx context.Context, store *jobstore.Store, id string, wait time.Duration) (jobstore.Job, error) {
	if wait == 0 {
		wait = 24 * time.Hour // ctx's deadline, --timeout, bounds it
	}
	h, err := lock.Acquire(ctx, store.LockPath(id), wait)
	if err == nil {
		h.Release()
	} else if envelope.As(err).Code != lock.Code {
		return jobstore.Job{}, err // cancelled
	}
	return store.Current(id, time.Now())
}

// cancelJob sends the job's process SIGTERM and waits for it to end.
func (inv *invocation) cancelJob(ctx context.Context, store *jobstore.Store, j jobstore.Job) (jobstore.Job, error) {
	if err := store.MarkCancel(j.ID); err != nil {
		return j, err
	}
	if err := terminate(j.PID); err != nil {
		return store.Current(j.ID, time.Now()) // it ended meanwhile
	}
	j2, err := inv.waitJob(ctx, store, j.ID, inv.cfg.grace+10*time.Second)
	if err == nil && !j2.Status.Terminal() {
		return j2, envelope.Errorf(exitcode.Unavailable, "JOB_STILL_RUNNING", "job %s was sent SIGTERM and has not ended yet", j.ID).
			WithRetry(time.Duration(j.PollMS)*time.Millisecond, envelope.RetryLinear).
			WithFix("", inv.descriptor(j).StatusCommand)
	}
	return j2, err
}

// answerJob answers `job status`: exit 0 when the job is complete, 14
// (INCOMPLETE) while it runs, 4 when it failed or was cancelled, the job's
// view as data always.
func (inv *invocation) answerJob(store *jobstore.Store, j jobstore.Job) error {
	v := inv.jobView(store, j)
	if j.Status == jobstore.Running {
		v.State, v.Progress = "running", jobProgress(store, j.ID)
		v.ContinueCommand = inv.root.Name + " " + jobCommand + " wait " + j.ID
	}
	inv.out.Result(v)
	switch {
	case j.Status == jobstore.Complete:
		return nil
	case j.Status == jobstore.Failed && j.ExitCode != nil && exitcode.Code(*j.ExitCode) == exitcode.Timeout:
		return envelope.Errorf(exitcode.Timeout, "JOB_TIMED_OUT", "job %s ran out of its time limit", j.ID).
			WithoutRetry().
			WithSuggestion("run the command again with a larger --timeout").
			WithResult()
	case j.Status == jobstore.Running:
		return envelope.Errorf(exitcode.Incomplete, "INCOMPLETE", "job %s is still running", j.ID).
			WithRetry(time.Duration(j.PollMS)*time.Millisecond, envelope.RetryLinear).
			WithSuggestion(fmt.Sprintf("ask again after retry_after_ms, or wait with '%s --wait'", v.StatusCommand)).
			WithResult()
	case j.Status == jobstore.Cancelled:
		return envelope.Errorf(exitcode.Precondition, "JOB_CANCELLED", "job %s was cancelled", j.ID).WithResult()
	}
	why := "its process ended without recording an answer"
	var failed struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &failed) == nil && failed.Message != "" {
		why = failed.Message
	}
	return envelope.Errorf(exitcode.Precondition, "JOB_FAILED", "job %s failed: %s", j.ID, why).
		WithSuggestion("data.error holds the job's error").
		WithResult()
}

// jobView reads the job's answer, once it has one, into its view.
func (inv *invocation) jobView(store *jobstore.Store, j jobstore.Job) jobView {
	v := jobView{JobDescriptor: inv.descriptor(j), Command: j.Command, Created: j.Created, Finished: j.Finished, ExitCode: j.ExitCode, Lost: j.Lost}
	if !j.Status.Terminal() {
		return v
	}
	if answer, err := readJobAnswer(store, j.ID); err == nil {
		v.Effect = answer.Meta.Effect
		if answer.has(answer.Data) {
			v.Result = answer.Data
		}
		if answer.has(answer.Error) {
			v.Error = answer.Error
		}
	}
	return v
}

// jobAnswer is what the job's process answered, as its command would have:
// the envelope it wrote to the job's output file.
type jobAnswer struct {
	Data     json.RawMessage    `json:"data"`
	Error    json.RawMessage    `json:"error"`
	Warnings []envelope.Warning `json:"warnings"`
	Meta     struct {
		ExitCode int             `json:"exit_code"`
		Effect   envelope.Effect `json:"effect"`
	} `json:"meta"`
}

func readJobAnswer(store *jobstore.Store, id string) (jobAnswer, error) {
	var a jobAnswer
	raw, err := os.ReadFile(store.OutPath(id))
	if err == nil {
		err = json.Unmarshal(raw, &a)
	}
	return a, err
}

// has reports whether a member of the answer holds a value.
func (jobAnswer) has(m json.RawMessage) bool { return len(m) > 0 && string(m) != "null" }
