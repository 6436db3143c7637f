package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
)

// maxFile is the largest --file a prompt takes in.
const maxFile = 1 << 20

// SpawnRequest is what `run spawn` asks for.
type SpawnRequest struct {
	Space              string // --space or MERIDIAN_SPACE_ID; "" creates a space
	Prompt             string
	Model              string
	Agent              string
	Skills             []string
	Files              []string
	AppendSystemPrompt string
	Sandbox            string
	Timeout            time.Duration // 0: the configured [timeouts] run
	Wait               bool
}

// ContinueRequest is what `run continue` asks for.
type ContinueRequest struct {
	Space              string
	Run                string // "" continues the last run of the current chat
	Prompt             string
	Model              string // must be a model of the run's harness
	Files              []string
	AppendSystemPrompt string
	Fork               bool
	Timeout            time.Duration
	Wait               bool
}

// plan is a run ready to start: everything resolved and checked, nothing
// written yet.
type plan struct {
	space     *state.Space // nil: create one
	model     string
	harness   *harness.Harness
	exe       string
	agent     string
	skills    []string
	prompt    string
	request   harness.Request // all but ReportPath, known once the run has an id
	continues string
	timeout   time.Duration
}

// Spawn starts a new run: a new conversation with the harness of the model.
// Every input is checked before anything is written; only then is a space
// created when none is named (with a SPACE_AUTO_CREATED warning).
func (r *Runner) Spawn(ctx context.Context, req SpawnRequest) (Detail, error) {
	p, err := r.planSpawn(ctx, req)
	if err != nil {
		return Detail{}, planning(err)
	}
	return r.start(ctx, p, req.Wait)
}

// planning marks an error found while a run was planned as one of the
// validation phase: whatever its exit code, nothing was written.
func planning(err error) error {
	var e *envelope.Error
	if errors.As(err, &e) && e.Phase == "" {
		e.Phase = envelope.Validation
	}
	return err
}

// checkPrompt refuses a prompt with nothing to do.
func checkPrompt(prompt string) error {
	if strings.TrimSpace(prompt) == "" {
		return envelope.Validationf("EMPTY_PROMPT", "the prompt is empty").WithField("prompt").
			WithSuggestion("say what the agent should do with -p")
	}
	return nil
}

// CheckSpawn plans the run as Spawn does, and writes and starts nothing: run
// spawn's phase-1 checks (its Meta.Validate), which --validate-only runs
// too, so that both answer an input the run would refuse alike. A prompt not
// given at all (promptGiven false) is left to the flag's own required check.
func (r *Runner) CheckSpawn(ctx context.Context, req SpawnRequest, promptGiven bool) error {
	if promptGiven {
		if err := checkPrompt(req.Prompt); err != nil {
			return err
		}
	}
	_, err := r.planSpawnInput(ctx, req)
	return planning(err)
}

func (r *Runner) planSpawn(ctx context.Context, req SpawnRequest) (*plan, error) {
	if err := checkPrompt(req.Prompt); err != nil {
		return nil, err
	}
	return r.planSpawnInput(ctx, req)
}

// planSpawnInput plans a spawn whose prompt is checked.
func (r *Runner) planSpawnInput(ctx context.Context, req SpawnRequest) (*plan, error) {
	p := &plan{timeout: r.runTimeout(req.Timeout)}
	if req.Space != "" {
		sp, err := space.Get(r.Project, req.Space)
		if err != nil {
			return nil, err
		}
		p.space = &sp
	}
	dirs := r.Project.Catalog()
	var agent *catalog.Agent
	if name := cmp.Or(req.Agent, r.Config.Defaults.Agent); name != "" {
		a, err := dirs.Agent(name)
		if err != nil {
			return nil, CatalogError("agent", err)
		}
		agent, p.agent = &a, a.Name
	}
	model, h, err := r.resolveModel(ctx, req.Model, agent)
	if err != nil {
		return nil, err
	}
	p.model, p.harness = model, h
	skills, err := r.Skills(ctx, req.Skills, agent)
	if err != nil {
		return nil, err
	}
	for _, s := range skills {
		p.skills = append(p.skills, s.Name)
	}
	files, err := r.readFiles(ctx, req.Files)
	if err != nil {
		return nil, err
	}
	if p.exe, err = r.executable(h); err != nil {
		return nil, err
	}
	p.prompt = Compose(Parts{Skills: skills, Agent: agent, Files: files, Prompt: req.Prompt})
	sandbox := req.Sandbox
	if sandbox == "" && agent != nil {
		sandbox = agent.Sandbox
	}
	p.request = harness.Request{Model: model, Prompt: p.prompt, AppendSystemPrompt: req.AppendSystemPrompt, Sandbox: sandbox}
	return p, nil
}

// resolveModel picks the model — the flag, else the agent profile's, else
// the configured default, else the default harness's first — and its harness.
func (r *Runner) resolveModel(ctx context.Context, name string, agent *catalog.Agent) (string, *harness.Harness, error) {
	models, err := catalog.LoadModels(r.Project.State.Dir)
	if err != nil {
		return "", nil, project.FileError(err)
	}
	warnAll(ctx, "MODELS_FILE", models.Warnings(), "fix .meridian/models.toml")
	if name == "" && agent != nil {
		name = agent.Model
	}
	name = cmp.Or(name, r.Config.Defaults.Model)
	if name == "" {
		m, ok := models.DefaultModel(r.Config.Harness.Default)
		if !ok {
			return "", nil, envelope.Errorf(exitcode.Precondition, "NO_DEFAULT_MODEL", "the catalog has no model for the default harness %s", r.Config.Harness.Default).
				WithSuggestion("pass -m, or add a model of that harness to .meridian/models.toml")
		}
		name = m.ID
	}
	m, warning, err := models.Resolve(name)
	if err != nil {
		return "", nil, CatalogError("model", err)
	}
	if warning != "" {
		warn(ctx, "MODEL_NOT_IN_CATALOG", warning, "run 'meridian models list' to see the catalog")
	}
	h, ok := harness.Lookup(m.Harness)
	if !ok {
		return "", nil, fmt.Errorf("model %s: unknown harness %q", m.ID, m.Harness)
	}
	return m.ID, h, nil
}

// Skills are the ones asked for, then the agent profile's; an unknown skill
// asked for is an error, one the profile names a warning.
func (r *Runner) Skills(ctx context.Context, asked []string, agent *catalog.Agent) ([]catalog.Skill, error) {
	dirs := r.Project.Catalog()
	var out []catalog.Skill
	seen := map[string]bool{}
	for _, name := range asked {
		s, err := dirs.Skill(name)
		if err != nil {
			return nil, CatalogError("skill", err)
		}
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	if agent == nil {
		return out, nil
	}
	for _, name := range agent.Skills {
		s, err := dirs.Skill(name)
		if err != nil {
			warn(ctx, "SKILL_NOT_FOUND", fmt.Sprintf("agent profile %s names skill %q, which cannot be loaded: %v; skipped", agent.Name, name, err),
				"run 'meridian skills list', and fix the profile's skills")
			continue
		}
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// readFiles reads the --file references: text, at most maxFile bytes each.
func (r *Runner) readFiles(ctx context.Context, paths []string) ([]Reference, error) {
	var out []Reference
	var problems []envelope.FieldError
	// An agent's run reads the project's files only: a path that leads out
	// of it, by .. or by a link, is refused before anything is read. A
	// person who names a file at the terminal has said which file.
	confined := envelope.From(ctx).Mode().Agent
	for _, p := range paths {
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(r.Dir, p)
		}
		if confined && !r.inProject(full) {
			problems = append(problems, envelope.FieldError{Code: "PATH_OUTSIDE_PROJECT", Field: "file",
				Message: fmt.Sprintf("--file %s is outside the project %s: a run reads the project's files only; copy it in, or have a person pass it", p, r.Project.Root)})
			continue
		}
		info, err := os.Stat(full)
		switch {
		case err != nil:
			problems = append(problems, envelope.FieldError{Code: "FILE_NOT_FOUND", Field: "file", Message: fmt.Sprintf("--file %s: %v", p, unwrapPath(err))})
			continue
		case !info.Mode().IsRegular(): // a directory, a device, a FIFO: nothing to read whole, or never done reading
			problems = append(problems, envelope.FieldError{Code: "FILE_NOT_REGULAR", Field: "file", Message: fmt.Sprintf("--file %s is not a regular file (%s)", p, info.Mode().Type())})
			continue
		case info.Size() > maxFile:
			problems = append(problems, envelope.FieldError{Code: "FILE_TOO_LARGE", Field: "file", Message: fmt.Sprintf("--file %s is %d bytes; the limit is %d", p, info.Size(), maxFile)})
			continue
		}
		raw, err := os.ReadFile(full)
		if err != nil {
			problems = append(problems, envelope.FieldError{Code: "FILE_UNREADABLE", Field: "file", Message: fmt.Sprintf("--file %s: %v", p, unwrapPath(err))})
			continue
		}
		if !utf8.Valid(raw) {
			problems = append(problems, envelope.FieldError{Code: "FILE_NOT_TEXT", Field: "file", Message: fmt.Sprintf("--file %s is not UTF-8 text", p)})
			continue
		}
		out = append(out, Reference{Path: p, Content: string(raw)})
	}
	if len(problems) > 0 {
		return nil, envelope.Invalid(problems)
	}
	return out, nil
}

// inProject reports whether path lies inside the project, before and after
// its links are followed.
func (r *Runner) inProject(path string) bool {
	root := filepath.Clean(r.Project.Root)
	within := func(root, path string) bool {
		rel, err := filepath.Rel(root, path)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if !within(root, filepath.Clean(path)) {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return true // nothing there to lead out: reading it fails as a missing file
	}
	if realRoot, err := filepath.EvalSymlinks(root); err == nil {
		root = realRoot
	}
	return within(root, real)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// executable finds the harness's program: the configured command, looked up
// on PATH unless it is a path.
func (r *Runner) executable(h *harness.Harness) (string, error) {
	name, _ := r.Config.Harness.Command(h.Name())
	exe, err := harness.Find(name, r.Getenv("PATH"))
	if err == nil {
		return exe, nil
	}
	return "", envelope.Errorf(exitcode.Precondition, "HARNESS_NOT_INSTALLED", "%s is not installed: %q is not an executable on PATH", h.Display(), name).
		WithSuggestion(fmt.Sprintf("install it with '%s', or set the command in .meridian/config.toml: [harness] %s = \"/path/to/%s\"", h.Install(), h.Name(), h.Name())).
		WithFix("install "+h.Display(), "")
}

// ceilMS is d in whole milliseconds, rounded up: a limit under one (999µs)
// is a limit of one, never the 0 that means none.
func ceilMS(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

func (r *Runner) runTimeout(asked time.Duration) time.Duration {
	if asked > 0 {
		return asked
	}
	return r.Config.Timeouts.Run
}

// start records the run and starts its supervisor. From the start event on,
// every failure is recorded as the run's finalize, so no run is left running
// with nobody to finish it. It answers with the run as recorded — or, with
// wait, as it ended.
func (r *Runner) start(ctx context.Context, p *plan, wait bool) (Detail, error) {
	sp, err := space.ForRun(ctx, r.Project, p.space, r.now())
	if err != nil {
		return Detail{}, err
	}
	runs := r.runs(sp)
	resumeID := p.request.ResumeID
	if p.request.Fork {
		resumeID = "" // a fork gets a session id of its own
	}
	rec := state.Run{SessionID: r.Chat, Model: p.model, Agent: p.agent, Skills: p.skills, Harness: p.harness.Name(),
		HarnessSessionID: resumeID, Continues: p.continues, StartedAt: state.Timestamp(r.now()), Prompt: p.prompt}
	id, hold, err := runs.Start(ctx, rec)
	var busy *state.TurnUnderWayError
	if errors.As(err, &busy) {
		return Detail{}, envelope.Errorf(exitcode.Conflict, "LOCK_HELD", "Run %s is a turn of this conversation under way; a conversation takes one turn at a time", busy.Run).
			WithSuggestion(fmt.Sprintf("run 'meridian run wait %s --space %s', then continue", busy.Run, sp.ID)).
			WithRetry(5*time.Second, envelope.RetryLinear)
	}
	if err != nil {
		return Detail{}, fmt.Errorf("record the run: %w", err)
	}
	rec.ID, rec.Status = id, state.Running
	dir := runs.ArtifactDir(id)
	sup, err := r.launch(ctx, sp, dir, p, hold)
	// From here the supervisor alone holds the run's lock, if it started.
	hold.Release()
	if err != nil {
		finalize(runs, id, outcome{status: state.Failed, err: err.Error(), exit: -1})
		return Detail{}, fmt.Errorf("launch run %s: %w", id, err)
	}
	out := envelope.From(ctx)
	out.Effect(envelope.Created)
	if !wait {
		out.Background(sup.Process.Pid, CancelCommand(sp.ID, id))
		return r.detail(sp.ID, rec), nil
	}
	d, err := r.waitOne(ctx, sp, id)
	if err == nil {
		awaitExit(sup, r.Config.Timeouts.KillGrace)
		if d.Status != state.Succeeded {
			// The call asked for the run's outcome: a run that did not
			// succeed fails it, with the run as it ended.
			return d, ended(sp.ID, d)
		}
	}
	if err != nil && ctx.Err() != nil {
		// Interrupted or timed out while waiting: the run goes with us.
		sup.Process.Signal(syscall.SIGTERM)
		stopped, cancel := context.WithTimeout(context.Background(), time.Second)
		state.AwaitRelease(stopped, runs.LockPath(id))
		cancel()
	}
	return d, err
}

// ended is the failure of a run waited for that did not succeed; it keeps
// the answer, the run as it ended.
func ended(spaceID string, d Detail) error {
	code, what := "RUN_FAILED", "failed"
	if d.Status == state.Cancelled {
		code, what = "RUN_CANCELLED", "was cancelled"
	}
	msg := fmt.Sprintf("run %s %s", d.ID, what)
	if d.Error != "" {
		msg += ": " + d.Error
	}
	return envelope.Errorf(exitcode.GeneralError, code, "%s", msg).
		WithSuggestion(fmt.Sprintf("read its report and stderr: meridian run show %s --space %s", d.ID, spaceID)).
		WithResult()
}

// launch writes the run's input and launch.json and starts the supervisor.
func (r *Runner) launch(ctx context.Context, sp state.Space, dir string, p *plan, hold *state.Hold) (*proc.Cmd, error) {
	if err := os.WriteFile(filepath.Join(dir, inputFile), []byte(p.prompt), 0o644); err != nil {
		return nil, err
	}
	req := p.request
	if p.harness.Supports(harness.FieldReportPath) {
		req.ReportPath = filepath.Join(dir, outputDir, reportFile)
	}
	cmd, unsupported := p.harness.Build(p.exe, req)
	for _, u := range unsupported {
		warn(ctx, "UNSUPPORTED_FLAG", u.Message(), "remove this flag or switch to a harness that supports it. Flag ignored")
	}
	l := Launch{V: 1, Harness: p.harness.Name(), Args: cmd.Args, Dir: r.Project.Root, ResumeID: req.ResumeID,
		TimeoutMS: ceilMS(p.timeout), GraceMS: r.Config.Timeouts.KillGrace.Milliseconds()}
	l.Env = append(slices.Clip(cmd.Env),
		space.EnvID+"="+sp.ID,
		"MERIDIAN_SPACE_FS="+filepath.Join(r.Project.State.SpaceDir(sp.ID), "fs"))
	if cmd.Stdin != "" {
		l.Stdin = inputFile
		if cmd.Stdin != p.prompt {
			l.Stdin = "stdin.txt"
			if err := os.WriteFile(filepath.Join(dir, l.Stdin), []byte(cmd.Stdin), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if err := writeLaunch(dir, l); err != nil {
		return nil, err
	}
	return startSupervisor(ctx, r.Exe, dir, r.Env, hold)
}

func warn(ctx context.Context, code, msg, next string) { envelope.From(ctx).Warn(code, msg, next) }

func warnAll(ctx context.Context, code string, msgs []string, next string) {
	for _, m := range msgs {
		warn(ctx, code, m, next)
	}
}

// CatalogError explains a failed lookup of an agent profile, skill or model:
// a name that tries to leave its directory is bad input, an unknown one is
// not found (with what there is), a broken file a precondition.
func CatalogError(kind string, err error) error {
	var nameErr *catalog.NameError
	var notFound *catalog.NotFoundError
	switch {
	case errors.As(err, &nameErr):
		return envelope.Validationf("INVALID_"+strings.ToUpper(kind)+"_NAME", "%v", err).WithField(kind)
	case errors.As(err, &notFound):
		e := envelope.Errorf(exitcode.NotFound, strings.ToUpper(kind)+"_NOT_FOUND", "%v", err).
			WithField(kind, notFound.Available...)
		switch {
		case notFound.Suggestion != "":
			e.Suggestion = fmt.Sprintf("did you mean %q?", notFound.Suggestion)
		case kind == "agent":
			e.Suggestion = "add .meridian/agents/<name>.md, or pick one of the valid values"
		default:
			e.Suggestion = fmt.Sprintf("run 'meridian %ss list' to see what there is", kind)
		}
		return e
	}
	return project.FileError(err)
}

// Choice is what a conversation runs on: the model, its harness, the program
// that launches the harness, and the agent profile, if one was named.
type Choice struct {
	Model   string
	Harness *harness.Harness
	Exe     string
	Agent   *catalog.Agent
}

// Choose resolves a model — the one named, else the agent profile's, else
// the configured default — to its harness and finds the harness's program,
// as `run spawn` does. `meridian start` launches on a person's terminal
// with the same choice.
func (r *Runner) Choose(ctx context.Context, model, agentName string) (Choice, error) {
	var c Choice
	if name := cmp.Or(agentName, r.Config.Defaults.Agent); name != "" {
		a, err := r.Project.Catalog().Agent(name)
		if err != nil {
			return Choice{}, CatalogError("agent", err)
		}
		c.Agent = &a
	}
	var err error
	if c.Model, c.Harness, err = r.resolveModel(ctx, model, c.Agent); err != nil {
		return Choice{}, err
	}
	if c.Exe, err = r.executable(c.Harness); err != nil {
		return Choice{}, err
	}
	return c, nil
}
