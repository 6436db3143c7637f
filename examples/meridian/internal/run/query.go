package run

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
)

// Summary is one run in `run list`.
type Summary struct {
	ID           string   `json:"id"`
	Status       string   `json:"status"`
	Model        string   `json:"model,omitempty"`
	Agent        string   `json:"agent,omitempty"`
	Harness      string   `json:"harness,omitempty"`
	StartedAt    string   `json:"started_at,omitempty"`
	DurationSecs *float64 `json:"duration_secs,omitempty"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	InputTokens  *int64   `json:"input_tokens,omitempty"`
	OutputTokens *int64   `json:"output_tokens,omitempty"`
}

// Filter selects runs; an empty field matches all.
type Filter struct{ Status, Model, Agent, Chat string }

func (f Filter) match(r *state.Run) bool { return f.matches(r.Status, r.Model, r.Agent, r.SessionID) }

func (f Filter) matches(status, model, agent, chat string) bool {
	return (f.Status == "" || status == f.Status) && (f.Model == "" || model == f.Model) &&
		(f.Agent == "" || agent == f.Agent) && (f.Chat == "" || chat == f.Chat)
}

// Listing is what List finds: runs of a space, newest first.
type Listing struct {
	Runs []Summary
	// Total is how many runs match, when Counted; a page read from the end
	// of the log only says whether More runs match after it.
	Total   int
	Counted bool
	More    bool
}

// List returns the space's runs that match f, newest first: all of them,
// or when paged the page w names, read from the end of the log only as far
// as the page and one more match — so the default page of a space of
// 100,000 runs reads its last events, and says it has more without
// counting them.
func (r *Runner) List(ctx context.Context, spaceID string, f Filter, w envelope.Window, paged bool) (Listing, error) {
	f.Model = r.modelID(f.Model)
	if paged && w.Limit > 0 {
		sp, err := space.Resolve(r.Project, spaceID)
		if err != nil {
			return Listing{}, err
		}
		recent, complete, skipped, err := r.runs(sp).Recent(w.Offset+w.Limit+1, f.match)
		if err != nil {
			return Listing{}, err
		}
		warnDamaged(ctx, sp.ID, skipped)
		l := Listing{Runs: []Summary{}, Total: len(recent), Counted: complete, More: len(recent) > w.Offset+w.Limit}
		for _, run := range recent[min(w.Offset, len(recent)):min(w.Offset+w.Limit, len(recent))] {
			l.Runs = append(l.Runs, summary(run))
		}
		return l, nil
	}
	_, all, err := r.load(ctx, spaceID)
	if err != nil {
		return Listing{}, err
	}
	l := Listing{Runs: []Summary{}, Counted: true}
	for i := len(all) - 1; i >= 0; i-- {
		run := all[i]
		if !f.match(run) {
			continue
		}
		if !paged || l.Total >= w.Offset {
			l.Runs = append(l.Runs, summary(run))
		}
		l.Total++
	}
	return l, nil
}

func summary(run *state.Run) Summary {
	return Summary{ID: run.ID, Status: run.Status, Model: run.Model, Agent: run.Agent, Harness: run.Harness,
		StartedAt: run.StartedAt, DurationSecs: run.DurationSecs, CostUSD: run.TotalCostUSD,
		InputTokens: run.InputTokens, OutputTokens: run.OutputTokens}
}

// modelID is the catalog's id of the model a filter names by id or alias:
// runs record the id (opus runs are claude-opus-4-6's). A name the catalog
// does not know filters as it is — a run may have used a model since
// removed from it.
func (r *Runner) modelID(name string) string {
	if name == "" {
		return ""
	}
	models, err := catalog.LoadModels(r.Project.State.Dir)
	if err != nil {
		return name
	}
	if m, warning, err := models.Resolve(name); err == nil && warning == "" {
		return m.ID
	}
	return name
}

// load reads the space named by --space or MERIDIAN_SPACE_ID, and its runs.
func (r *Runner) load(ctx context.Context, spaceID string) (state.Space, []*state.Run, error) {
	sp, err := space.Resolve(r.Project, spaceID)
	if err != nil {
		return sp, nil, err
	}
	all, skipped, err := r.runs(sp).List()
	if err != nil {
		return sp, nil, err
	}
	warnDamaged(ctx, sp.ID, skipped)
	return sp, all, nil
}

// warnDamaged says that lines of the space's log were skipped.
func warnDamaged(ctx context.Context, spaceID string, skipped int) {
	if skipped > 0 {
		warn(ctx, "RUNS_LOG_DAMAGED", fmt.Sprintf("%d line(s) of %s/runs.jsonl could not be read and were skipped", skipped, spaceID),
			"a crash can leave a torn last line, which is harmless; 'meridian doctor' finalizes runs it left unfinished")
	}
}

// Detail is `run show`: everything runs.jsonl records of a run (but its
// prompt, which is the run's input.md), where its files are, and its report.
type Detail struct {
	state.Run
	Space           string        `json:"space"`
	Report          string        `json:"report"`
	ReportTruncated bool          `json:"report_truncated,omitempty"`
	Dir             envelope.Path `json:"dir"`       // absolute, wherever the command ran
	Artifacts       []string      `json:"artifacts"` // files of Dir, relative to it
	// Changes is what the run changed in the project's tree, once it ended.
	Changes *Changes `json:"changes,omitempty"`
	// Result is the run as Agent Mesh's runners answer, once it ended.
	Result *Normalized `json:"result,omitempty"`
}

// maxReport is the most of a report `run show` carries; the whole of it is
// in the run's output/report.md.
const maxReport = 64 << 10

// Show returns one run of the space, read from the end of its log back to
// the run's start: a recent run is found in the last events.
func (r *Runner) Show(ctx context.Context, spaceID, id string) (Detail, error) {
	if !runID.MatchString(id) {
		return Detail{}, invalidRunID(id)
	}
	sp, err := space.Resolve(r.Project, spaceID)
	if err != nil {
		return Detail{}, err
	}
	run, ok, skipped, err := r.runs(sp).Find(id)
	if err != nil {
		return Detail{}, err
	}
	warnDamaged(ctx, sp.ID, skipped)
	if !ok {
		return Detail{}, runNotFound(sp.ID, id)
	}
	return r.detail(sp.ID, *run), nil
}

var runID = regexp.MustCompile(`^r[1-9][0-9]*$`)

// ValidID reports whether id has a run id's form: r1, r2, ...
func ValidID(id string) bool { return runID.MatchString(id) }

// find returns the run with id, checking the id's form first so that a
// hallucinated "<run-id>" or "../x" is told apart from a run that is not there.
func find(spaceID string, all []*state.Run, id string) (state.Run, error) {
	if !runID.MatchString(id) {
		return state.Run{}, invalidRunID(id)
	}
	i := slices.IndexFunc(all, func(r *state.Run) bool { return r.ID == id })
	if i < 0 {
		return state.Run{}, runNotFound(spaceID, id)
	}
	return *all[i], nil
}

func (r *Runner) detail(spaceID string, run state.Run) Detail {
	dir := state.Runs{Dir: r.Project.State.SpaceDir(spaceID)}.ArtifactDir(run.ID)
	run.Prompt = "" // in input.md, which Artifacts lists
	d := Detail{Run: run, Space: spaceID, Dir: envelope.Path(dir), Artifacts: []string{}}
	if f, err := os.Open(filepath.Join(dir, outputDir, reportFile)); err == nil {
		buf := make([]byte, maxReport+1)
		n, _ := f.Read(buf)
		f.Close()
		d.Report, d.ReportTruncated = string(buf[:min(n, maxReport)]), n > maxReport
	}
	d.Changes = readChanges(dir)
	if run.Status != state.Running && run.Status != "" {
		d.Result = normalize(run, r.Project.Root, d.Changes)
	}
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			d.Artifacts = append(d.Artifacts, rel)
		}
		return nil
	})
	return d
}

// Totals sums runs. Durations, costs and tokens a run did not report are
// left out, not counted as zero.
type Totals struct {
	Runs         int            `json:"runs"`
	ByStatus     map[string]int `json:"by_status"`
	DurationSecs float64        `json:"duration_secs"`
	CostUSD      float64        `json:"cost_usd"`
	InputTokens  int64          `json:"input_tokens"`
	OutputTokens int64          `json:"output_tokens"`
	CachedTokens int64          `json:"cached_tokens"`
}

func (t *Totals) add(g state.Group) {
	if t.ByStatus == nil {
		t.ByStatus = map[string]int{}
	}
	t.Runs += g.Runs
	t.ByStatus[g.Status] += g.Runs
	t.DurationSecs += g.DurationSecs
	t.CostUSD += g.TotalCostUSD
	t.InputTokens += g.InputTokens
	t.OutputTokens += g.OutputTokens
	t.CachedTokens += g.CachedTokens
}

// round ends the sums where the harnesses' figures end — costs in
// millionths of a dollar, durations in milliseconds — rather than in the
// binary fractions floating-point sums leave (0.5840000000000001).
func (t *Totals) round() {
	t.CostUSD = math.Round(t.CostUSD*1e6) / 1e6
	t.DurationSecs = math.Round(t.DurationSecs*1e3) / 1e3
}

// Stats is `run stats`: the runs of a space summed, and summed per model.
type Stats struct {
	Totals
	Models map[string]*Totals `json:"models"`
}

// Stats sums the runs of the space that match f. It reads the space's
// tally (state.Runs.Tally): the runs summed by status, model, agent and
// chat, which f selects among whole. The tally's cache is used unless
// --no-cache or --cache-ttl says otherwise, and meta.cache_used says when
// it was.
func (r *Runner) Stats(ctx context.Context, spaceID string, f Filter) (Stats, error) {
	sp, err := space.Resolve(r.Project, spaceID)
	if err != nil {
		return Stats{}, err
	}
	runs := r.runs(sp)
	out := envelope.From(ctx)
	groups, skipped, cached, err := runs.Tally(out.CacheFresh(runs.TallyPath()))
	if err != nil {
		return Stats{}, err
	}
	if cached {
		out.UsedCache()
	}
	warnDamaged(ctx, sp.ID, skipped)
	f.Model = r.modelID(f.Model)
	st := Stats{Totals: Totals{ByStatus: map[string]int{}}, Models: map[string]*Totals{}}
	for _, g := range groups {
		if !f.matches(g.Status, g.Model, g.Agent, g.SessionID) {
			continue
		}
		m := st.Models[g.Model]
		if m == nil {
			m = &Totals{}
			st.Models[g.Model] = m
		}
		st.add(g)
		m.add(g)
	}
	st.round()
	for _, m := range st.Models {
		m.round()
	}
	return st, nil
}

// Waited is what `run wait` answers.
type Waited struct {
	Runs      []Detail `json:"runs"`
	Succeeded int      `json:"succeeded"`
	Failed    int      `json:"failed"`
	Cancelled int      `json:"cancelled"`
	Running   int      `json:"running"` // orphaned: the supervisor died before finalizing
	AnyFailed bool     `json:"any_failed"`
}

// Wait blocks until the runs named (or else every running run of the space)
// have ended, and returns them. It sleeps on each run's liveness lock, so it
// wakes when the run's supervisor exits — no polling. Without a deadline on
// ctx (--timeout) it waits at most the configured [timeouts] wait.
func (r *Runner) Wait(ctx context.Context, spaceID string, ids []string) (Waited, error) {
	sp, all, err := r.load(ctx, spaceID)
	if err != nil {
		return Waited{}, err
	}
	var targets []state.Run
	if len(ids) == 0 {
		for _, run := range all {
			if run.Status == state.Running {
				targets = append(targets, *run)
			}
		}
	}
	var problems []envelope.FieldError
	for _, id := range ids {
		run, err := find(sp.ID, all, id)
		if err != nil {
			e := envelope.As(err)
			problems = append(problems, envelope.FieldError{Code: e.Code, Field: "run-id", Message: e.Message})
			continue
		}
		targets = append(targets, run)
	}
	if len(problems) > 0 {
		return Waited{}, waitProblems(problems)
	}
	if _, ok := ctx.Deadline(); !ok && r.Config.Timeouts.Wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Config.Timeouts.Wait)
		defer cancel()
	}
	runs := r.runs(sp)
	if err := awaitAll(ctx, runs, targets); err != nil {
		return Waited{}, err
	}
	return r.waited(ctx, sp.ID, runs, targets)
}

// waitProblems reports ids that name no run: a malformed id is invalid input
// (exit 2), a well-formed one that is not there is not found (exit 5).
func waitProblems(problems []envelope.FieldError) error {
	for _, p := range problems {
		if p.Code == "INVALID_RUN_ID" {
			return envelope.Invalid(problems)
		}
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Message
	}
	e := envelope.Errorf(exitcode.NotFound, "RUN_NOT_FOUND", "%s", strings.Join(msgs, "; ")).
		WithSuggestion("run 'meridian run list' to see the space's runs").
		WithFix("name existing runs", "")
	e.Errors = problems
	return e
}

func awaitAll(ctx context.Context, runs state.Runs, targets []state.Run) error {
	errs := make(chan error, len(targets))
	for _, t := range targets {
		go func() {
			if t.Status != state.Running {
				errs <- nil
				return
			}
			errs <- state.AwaitRelease(ctx, runs.LockPath(t.ID))
		}()
	}
	var first error
	for range targets {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first == nil {
		return nil
	}
	if ctx.Err() != nil {
		var pending []string
		for _, t := range targets {
			if alive, _ := runs.Alive(t.ID); alive {
				pending = append(pending, t.ID)
			}
		}
		return envelope.Errorf(exitcode.Timeout, "WAIT_TIMEOUT", "Gave up waiting for %s: %w", strings.Join(pending, ", "), ctx.Err()).
			WithSuggestion("the runs go on; wait again with a longer --timeout").
			WithRetry(0, envelope.RetryImmediate)
	}
	return first
}

// waited reads the targets back once their supervisors are gone.
func (r *Runner) waited(ctx context.Context, spaceID string, runs state.Runs, targets []state.Run) (Waited, error) {
	all, _, err := runs.List()
	if err != nil {
		return Waited{}, err
	}
	w := Waited{Runs: []Detail{}}
	for _, t := range targets {
		run, err := find(spaceID, all, t.ID)
		if err != nil {
			return Waited{}, err
		}
		switch run.Status {
		case state.Succeeded:
			w.Succeeded++
		case state.Failed:
			w.Failed++
		case state.Cancelled:
			w.Cancelled++
		default:
			w.Running++
			warn(ctx, "RUN_ORPHANED", fmt.Sprintf("The supervisor of run %s ended without recording how the run ended", run.ID),
				"run 'meridian doctor' to finalize it as orphaned")
		}
		w.Runs = append(w.Runs, r.detail(spaceID, run))
	}
	w.AnyFailed = w.Failed+w.Cancelled+w.Running > 0
	return w, nil
}

// waitOne waits for one run the caller just started and returns it.
func (r *Runner) waitOne(ctx context.Context, sp state.Space, id string) (Detail, error) {
	runs := r.runs(sp)
	if err := awaitAll(ctx, runs, []state.Run{{ID: id, Status: state.Running}}); err != nil {
		return Detail{}, err
	}
	w, err := r.waited(ctx, sp.ID, runs, []state.Run{{ID: id}})
	if err != nil {
		return Detail{}, err
	}
	return w.Runs[0], nil
}

func invalidRunID(id string) error {
	return envelope.Validationf("INVALID_RUN_ID", "%q is not a run id (r1, r2, ...)", id).WithField("run-id")
}

func runNotFound(spaceID, id string) error {
	return envelope.Errorf(exitcode.NotFound, "RUN_NOT_FOUND", "Run %s does not exist in space %s", id, spaceID).
		WithSuggestion("run 'meridian run list' to see the space's runs").
		WithFix("name an existing run", "")
}
