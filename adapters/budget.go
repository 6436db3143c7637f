package adapters

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jobstore"
)

// A command that declares interruption (schema.Meta.Interruption) is bounded
// per call by the sync call budget (CLI Agent Spec §79, REQ-F-080): an
// agent's harness kills a call that holds it too long, and the work with
// it. With Detach, the work runs in a detached job from the start — the
// async commands' machinery (jobs.go) — and the call waits for it only as
// long as the budget allows. Work that ends in time answers as it would
// have; work that does not answers INCOMPLETE (14) with the commands that
// continue and cancel it, and goes on. The identical call, while the job
// runs, attaches to it instead of starting it again.

// BudgetEnv is the variable a harness sets to the budget of each call, in
// milliseconds. It carries no tool prefix: the harness sets it once for
// every tool it runs.
const BudgetEnv = "AGENT_CALL_BUDGET_MS"

// defaultBudget is the budget when neither --budget nor BudgetEnv says.
const defaultBudget = 30 * time.Second

// callBudget is the budget of this call, and whether one applies: to a
// command that declares interruption, not in the job's own process; at a
// terminal only when --budget is given. A budget of 0 turns it off.
func (inv *invocation) callBudget() (time.Duration, bool) {
	if inv.call.node.Meta.Interruption == nil || inv.work.job != nil {
		return 0, false
	}
	d, from, bad := inv.budgetGiven()
	switch {
	case from == fromFlag:
		return d, true
	case !inv.mode.Agent:
		return 0, false // a person keeps the ordinary synchronous run
	case from == fromEnv && !bad:
		return d, true
	}
	return defaultBudget, true
}

// Where a call's budget comes from.
const (
	fromDefault = iota
	fromFlag    // --budget
	fromEnv     // AGENT_CALL_BUDGET_MS
)

// budgetGiven reads the budget the call names: --budget, else
// AGENT_CALL_BUDGET_MS; from says which. bad reports a value that is no
// budget, which checkBudget refuses in phase 1.
func (inv *invocation) budgetGiven() (d time.Duration, from int, bad bool) {
	if v, _ := inv.call.opt(flagname.Budget); v != "" {
		d, err := time.ParseDuration(v)
		return d, fromFlag, err != nil || d < 0
	}
	if v, ok := inv.cfg.lookupEnv(BudgetEnv); ok {
		ms, err := strconv.ParseInt(v, 10, 64)
		return time.Duration(ms) * time.Millisecond, fromEnv, err != nil || ms < 0
	}
	return 0, fromDefault, false
}

// checkBudget refuses a --budget that is no duration, or an
// AGENT_CALL_BUDGET_MS that is no number of milliseconds, in phase 1.
func (inv *invocation) checkBudget() {
	c := inv.call
	if c.node.Meta.Interruption == nil {
		return
	}
	switch _, from, bad := inv.budgetGiven(); {
	case !bad:
	case from == fromFlag:
		v, _ := c.opt(flagname.Budget)
		c.problem("INVALID_BUDGET", flagname.Budget, "--budget %q is not a duration such as 30s or 5m (0 turns the budget off)", v)
	case inv.mode.Agent:
		v, _ := inv.cfg.lookupEnv(BudgetEnv)
		c.problem("INVALID_BUDGET", flagname.Budget, "%s=%q is not a number of milliseconds", BudgetEnv, v)
	}
}

// detach runs the call within its budget: it starts the work as a job, or
// attaches to the job the identical call started, and waits for it at most
// budget.
func (inv *invocation) detach(ctx context.Context, args []string, budget time.Duration) int {
	store, e := inv.jobStore()
	if e != nil {
		return inv.finish(e)
	}
	key := inv.callKey(args)
	if inv.work.resumeArgs != nil {
		// A resumable command's job keeps its checkpoint under this key:
		// the checkpoint's, so that the same work run in a call (--budget
		// 0), or continued with the key a writer's continuation carries,
		// finds it.
		key = inv.callKey(inv.work.resumeArgs)
	}
	j, found, err := runningJob(store, key)
	if err != nil {
		return inv.finish(envelope.As(err))
	}
	if !found {
		if j, e = inv.launchJob(args, key); e != nil {
			return inv.finish(e)
		}
	}
	return inv.finish(inv.awaitJob(ctx, store, j, budget))
}

// awaitJob waits for the job within budget and answers as the job did, or
// INCOMPLETE while it runs on.
func (inv *invocation) awaitJob(ctx context.Context, store *jobstore.Store, j jobstore.Job, budget time.Duration) *envelope.Error {
	j, err := inv.waitJob(ctx, store, j.ID, budget)
	if err != nil {
		return envelope.As(err)
	}
	switch {
	case j.Lost:
		return envelope.Errorf(exitcode.GeneralError, "JOB_LOST", "job %s ended without recording an answer", j.ID).
			WithSuggestion("run the command again; its work starts anew").WithoutRetry()
	case j.Status.Terminal():
		return inv.replay(store, j)
	}
	return inv.incomplete(store, j, budget)
}

// replay answers with the answer the job recorded: its data, warnings,
// effect and error, under this call's meta.
func (inv *invocation) replay(store *jobstore.Store, j jobstore.Job) *envelope.Error {
	answer, err := readJobAnswer(store, j.ID)
	if err != nil {
		return envelope.Errorf(exitcode.GeneralError, "JOB_LOST", "job %s recorded no answer it can be read from: %v", j.ID, err).WithoutRetry()
	}
	for _, w := range answer.Warnings {
		inv.out.Warn(w.Code, w.Message, "")
	}
	if answer.Meta.Effect != "" {
		inv.out.Effect(answer.Meta.Effect)
	}
	if answer.has(answer.Data) {
		inv.out.Result(answer.Data)
	}
	if !answer.has(answer.Error) {
		return nil
	}
	e := new(envelope.Error)
	if err := json.Unmarshal(answer.Error, e); err != nil {
		return envelope.Errorf(exitcode.GeneralError, "JOB_LOST", "job %s recorded an error that cannot be read: %v", j.ID, err).WithoutRetry()
	}
	e.Exit = exitcode.Code(answer.Meta.ExitCode)
	if e.Signal() != "" {
		e.Interrupted(e.Signal())
	} else if answer.has(answer.Data) {
		e.WithResult()
	}
	return e
}

// Incomplete is the data of an INCOMPLETE (14) answer (REQ-F-082): the
// job the work goes on in, how far it has come, and the commands that
// continue and cancel it.
type Incomplete struct {
	State           string    `json:"state"` // running, or paused at a checkpoint
	JobID           string    `json:"job_id"`
	Progress        *Progress `json:"progress,omitempty"`
	ContinueCommand string    `json:"continue_command"`
	CancelCommand   string    `json:"cancel_command"`
}

// Progress is how far a job has come, from the progress it reported.
type Progress struct {
	Done    int    `json:"done"`
	Total   int    `json:"total,omitempty"`
	Unit    string `json:"unit,omitempty"` // what done and total count (Output.ProgressIn)
	Message string `json:"message,omitempty"`
}

func (inv *invocation) incomplete(store *jobstore.Store, j jobstore.Job, budget time.Duration) *envelope.Error {
	d := Incomplete{
		State:           "running",
		JobID:           j.ID,
		Progress:        jobProgress(store, j.ID),
		ContinueCommand: inv.root.Name + " " + jobCommand + " wait " + j.ID,
		CancelCommand:   inv.root.Name + " " + jobCommand + " cancel " + j.ID,
	}
	inv.out.Result(d)
	how := "the work continues in the background"
	if p := d.Progress; p != nil && p.Total > 0 {
		how = fmt.Sprintf("%d of %d done; the work continues in the background", p.Done, p.Total)
	}
	e := envelope.Errorf(exitcode.Incomplete, "INCOMPLETE", "the call's budget of %s ran out; %s", budget, how).
		WithSuggestion(fmt.Sprintf("run '%s' for its answer, or '%s' to stop it", d.ContinueCommand, d.CancelCommand)).
		WithResult()
	e.Retryable = inv.call.node.ExitCodes()[exitcode.Incomplete].Retryable
	if !e.Retryable {
		e.WithoutRetry()
	}
	return e
}

// jobProgress is the furthest progress the job reported: its process
// writes its progress events on its stderr, the job's .err file. done is
// the largest seen, so it never goes back between two answers.
func jobProgress(store *jobstore.Store, id string) *Progress {
	f, err := os.Open(store.ErrPath(id))
	if err != nil {
		return nil
	}
	defer f.Close()
	var p *Progress
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), `"type":"progress"`) {
			continue
		}
		var ev envelope.ProgressEvent
		if json.Unmarshal(line, &ev) != nil || ev.Type != "progress" {
			continue
		}
		if p == nil || ev.Done >= p.Done {
			p = &Progress{Done: ev.Done, Total: ev.Total, Unit: ev.Unit, Message: ev.Message}
		}
	}
	return p
}

// callKey names the work a call asks for — its command and command line,
// less what shapes only its answer, its working directory, and the tool's
// version — so that the identical call finds the job it started, or the
// checkpoint it left.
func (inv *invocation) callKey(args []string) string {
	h := fnv.New64a()
	wd, _ := os.Getwd()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", inv.call.node.DotPath(), wd, inv.root.Version)
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "--") && (name == flagname.Budget || name == flagname.Format) {
			if !hasValue {
				i++ // and its value
			}
			continue
		}
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// runningJob returns the running job the call with key started, if any.
func runningJob(store *jobstore.Store, key string) (jobstore.Job, bool, error) {
	jobs, err := store.List(time.Now())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return jobstore.Job{}, false, err
	}
	for _, j := range jobs {
		if j.Key == key && !j.Status.Terminal() {
			return j, true, nil
		}
	}
	return jobstore.Job{}, false, nil
}

// jobWait answers `job wait <id>`: the job's answer once it has ended,
// within the call's budget, or INCOMPLETE again.
func (inv *invocation) jobWait(ctx context.Context, store *jobstore.Store, j jobstore.Job) error {
	budget, from, bad := inv.budgetGiven()
	if from == fromDefault || bad {
		budget = defaultBudget
	}
	ms := budget.Milliseconds()
	inv.meta.BudgetMS = &ms
	if budget == 0 {
		budget = 24 * time.Hour // no budget: as long as --timeout allows
	}
	if e := inv.awaitJob(ctx, store, j, budget); e != nil {
		return e
	}
	return nil
}
