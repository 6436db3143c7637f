// Package chat is `meridian start`: a person's conversation with a harness
// on their own terminal, inside a space. Each conversation is a chat — c1,
// c2 ... in its space — recorded in the space's sessions.jsonl and alive
// for as long as its meridian process holds sessions/<chat>.lock. A later
// start can continue it, on the same harness session.
//
// The harness gets the terminal itself (its stdin, stdout and stderr are
// meridian's, no pipes), so it draws its own interface and takes the
// terminal's Ctrl-C itself, as a child of system(3) does; meridian waits,
// passes on a SIGTERM sent to it, and records the chat's end however the
// harness ends.
package chat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
)

// The environment a chat's harness gets, besides meridian's own.
const (
	EnvSpaceFS        = "MERIDIAN_SPACE_FS"
	EnvSession        = "MERIDIAN_SESSION_ID"
	EnvHarnessCommand = "MERIDIAN_HARNESS_COMMAND"
)

// Request is what `meridian start` asks for.
type Request struct {
	New      bool   // a new space, whatever is active
	Space    string // start (or continue) in this space
	Continue bool   // continue a chat rather than start one
	Target   string // with Continue: a chat (c2) or a harness session id; "" is the last chat
	Model    string
	Agent    string
	Params   Params // explicit: over a continued chat's own
	Name     string // names the space the chat is in (space.json's name)
	Skills   []string
}

// Result is a chat that ended.
type Result struct {
	Space            string `json:"space"`
	Chat             string `json:"chat"`
	Harness          string `json:"harness"`
	Model            string `json:"model"`
	HarnessSessionID string `json:"harness_session_id,omitempty"`
	Continued        bool   `json:"continued"`
	ExitCode         int    `json:"exit_code"`        // the harness's; -1 when a signal ended it
	Signal           string `json:"signal,omitempty"` // the signal that ended the harness
	Continue         string `json:"continue"`         // the command that continues the chat, ready to paste
}

// Codes are the exit codes `meridian start` declares.
var Codes = exitcode.Table{
	exitcode.NotFound:     {Description: "The space or the chat to continue does not exist."},
	exitcode.Precondition: {Description: "Not at a terminal, the harness is not installed, or the chat has no harness session to continue."},
	exitcode.Conflict:     {Description: "The chat to continue is running in another terminal."},
}

// Starter starts chats.
type Starter struct {
	Runner *run.Runner // the project, its configuration, and how models map to harnesses
	// The terminal the harness gets. `meridian start` is declared
	// interactive (schema.Meta.Interactive): Duet refuses it before it
	// runs where nobody is at a terminal (REPL_MODE_PROHIBITED, exit 4).
	Stdin, Stdout, Stderr *os.File
}

// plan is a chat ready to launch: everything resolved, nothing written.
type plan struct {
	space    *state.Space // nil: create one
	resumed  bool         // the space was picked for the person: warn SPACE_AUTO_RESUMED
	name     string       // the space's new name, if given
	chat     string       // the chat continued; "" for a new one
	choice   run.Choice
	params   Params
	resumeID string
}

// Start runs a chat to its end.
func (s *Starter) Start(ctx context.Context, req Request) (Result, error) {
	if err := state.ValidSpaceName(req.Name); err != nil {
		return Result{}, envelope.Validationf("INVALID_SPACE_NAME", "--name %q: %v", req.Name, err).WithField("name")
	}
	p, err := s.plan(ctx, req)
	if err != nil {
		return Result{}, err
	}
	p.name = req.Name
	// Skills, asked for and the agent profile's, go where a chat's
	// standing instructions go: the harness's system prompt. A continued
	// chat has those its first start gave it already.
	skills, err := s.Runner.Skills(ctx, req.Skills, p.choice.Agent)
	if err != nil {
		return Result{}, err
	}
	for _, sk := range skills {
		if section := run.SkillSection(sk); !strings.Contains(p.params.AppendSystemPrompt, section) {
			p.params.AppendSystemPrompt = strings.TrimSpace(p.params.AppendSystemPrompt + "\n\n" + section)
		}
	}
	return s.launch(ctx, p)
}

func (s *Starter) plan(ctx context.Context, req Request) (*plan, error) {
	if req.Target != "" && !req.Continue {
		return nil, envelope.Validationf("CHAT_WITHOUT_CONTINUE", "%q names a chat to continue, but --continue is not set", req.Target).
			WithSuggestion(fmt.Sprintf("run 'meridian start --continue %s'", req.Target))
	}
	if req.Continue {
		return s.planContinue(ctx, req)
	}
	r := s.Runner
	choice, err := r.Choose(ctx, req.Model, req.Agent)
	if err != nil {
		return nil, err
	}
	p := &plan{choice: choice, params: req.Params}
	if p.params.Sandbox == "" && choice.Agent != nil {
		p.params.Sandbox = choice.Agent.Sandbox
	}
	switch {
	case req.New:
	case req.Space != "":
		sp, err := space.Get(r.Project, req.Space)
		if err != nil {
			return nil, err
		}
		p.space = &sp
	case r.Config.Start.AutoResume:
		sp, err := lastActive(r.Project)
		if err != nil {
			return nil, err
		}
		p.space, p.resumed = sp, sp != nil
	}
	return p, nil
}

// planContinue resolves the chat to continue, and holds the continuation to
// its harness: the model may change within the harness, not across.
func (s *Starter) planContinue(ctx context.Context, req Request) (*plan, error) {
	r := s.Runner
	f, err := find(r.Project, req.Space, req.Target)
	if err != nil {
		return nil, err
	}
	h, ok := harness.Lookup(f.chat.Harness)
	if !ok {
		return nil, fmt.Errorf("chat %s of %s: unknown harness %q", f.chat.ID, f.space.ID, f.chat.Harness)
	}
	switch {
	case f.chat.Alive:
		return nil, envelope.Errorf(exitcode.Conflict, "CHAT_RUNNING", "Chat %s of space %s is running in another terminal", f.chat.ID, f.space.ID).
			WithSuggestion(fmt.Sprintf("switch to that terminal, or start a new chat with 'meridian start --space %s'", f.space.ID))
	case f.chat.HarnessSessionID == "":
		return nil, envelope.Errorf(exitcode.Precondition, "NO_HARNESS_SESSION", "Chat %s of space %s has no %s session to continue: none was recorded", f.chat.ID, f.space.ID, h.Display()).
			WithPhase(envelope.Validation).
			WithSuggestion(fmt.Sprintf("start a new chat with 'meridian start --space %s'", f.space.ID))
	}
	model := cmp.Or(req.Model, f.chat.Model)
	choice, err := r.Choose(ctx, model, cmp.Or(req.Agent, f.chat.Agent))
	if err != nil {
		return nil, err
	}
	if choice.Harness.Name() != h.Name() {
		return nil, envelope.Validationf("HARNESS_MISMATCH", "Session %s was started with %s. Cannot continue with a %s model (%s)", f.chat.ID, h.Display(), choice.Harness.Display(), choice.Model).
			WithSuggestion(fmt.Sprintf("pick a model on %s or omit -m", h.Display())).
			WithField("model")
	}
	return &plan{space: &f.space, chat: f.chat.ID, choice: choice,
		params: req.Params.Over(DecodeParams(f.chat.Params)), resumeID: f.chat.HarnessSessionID}, nil
}

// launch records the chat, runs the harness on the terminal until it
// exits, and records the end.
func (s *Starter) launch(ctx context.Context, p *plan) (Result, error) {
	r := s.Runner
	now := r.Now
	if now == nil {
		now = time.Now
	}
	out := envelope.From(ctx)
	h := p.choice.Harness
	req := harness.Request{Model: p.choice.Model, AppendSystemPrompt: p.params.AppendSystemPrompt, SystemPrompt: p.params.SystemPrompt, Sandbox: p.params.Sandbox,
		ResumeID: p.resumeID, Interactive: true}
	// The harness session id: the one continued; else chosen here, for a
	// CLI that takes one; else read from the CLI's files when it exits.
	sessionID := p.resumeID
	if sessionID == "" && h.Supports(harness.FieldSessionID) {
		req.SessionID = harness.NewSessionID()
		sessionID = req.SessionID
	}
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	cmd, unsupported := h.Build(p.choice.Exe, req)
	for _, u := range unsupported {
		out.Warn("UNSUPPORTED_FLAG", u.Message(), "remove this flag or switch to a harness that supports it. Flag ignored")
	}

	sp, err := s.space(ctx, p, now())
	if err != nil {
		return Result{}, err
	}
	dir := r.Project.State.SpaceDir(sp.ID)
	fs := filepath.Join(dir, "fs")
	if err := os.MkdirAll(fs, 0o755); err != nil {
		return Result{}, err
	}
	space.Sweep(ctx, dir, now()) // dead chats' ends, as doctor records them; a broken log is doctor's to report

	ss := state.Sessions{Dir: dir}
	ev := state.SessionEvent{Harness: h.Name(), HarnessSessionID: sessionID, Model: p.choice.Model,
		Params: p.params.Encode(), PID: os.Getpid(), StartedAt: state.Timestamp(now())}
	if p.choice.Agent != nil {
		ev.Agent = p.choice.Agent.Name
	}
	id := p.chat
	var hold *state.Hold
	if id == "" {
		id, hold, err = ss.Start(ctx, ev)
	} else {
		hold, err = ss.Resume(ctx, id, ev)
		if errors.Is(err, state.ErrHeld) {
			return Result{}, envelope.Errorf(exitcode.Conflict, "CHAT_RUNNING", "Chat %s of space %s is running in another terminal", id, sp.ID)
		}
	}
	if err != nil {
		return Result{}, fmt.Errorf("record the chat: %w", err)
	}
	res := Result{Space: sp.ID, Chat: id, Harness: h.Name(), Model: p.choice.Model, HarnessSessionID: sessionID,
		Continued: p.chat != "", Continue: fmt.Sprintf("meridian start --space %s --continue %s", sp.ID, id)}

	command, _ := r.Config.Harness.Command(h.Name())
	env := append(append(slices.Clone(r.Env), cmd.Env...),
		space.EnvID+"="+sp.ID, EnvSpaceFS+"="+fs, EnvSession+"="+id, EnvHarnessCommand+"="+command)
	out.ShowWarnings()                  // before the harness's screen buries them
	launched := now().Add(-time.Second) // file times may be coarser than the clock
	var terminated bool
	res.ExitCode, res.Signal, terminated, err = s.runHarness(ctx, cmd.Args, env, r.Dir, r.Config.Timeouts.KillGrace, hold.File(), func(pid int) {
		// Recorded so that space close and doctor can end the harness
		// when meridian start is gone.
		ss.Append(context.WithoutCancel(ctx), state.SessionEvent{Event: "update", SessionID: id, HarnessPID: pid})
	})
	if res.HarnessSessionID == "" {
		res.HarnessSessionID = findSession(h, r, launched)
	}

	// However the harness ended: the chat's end, then its lock let go.
	stop := state.SessionEvent{Event: "stop", SessionID: id, HarnessSessionID: res.HarnessSessionID, StoppedAt: state.Timestamp(now())}
	if aerr := ss.Append(context.WithoutCancel(ctx), stop); aerr != nil && err == nil {
		err = fmt.Errorf("record the chat's end: %w", aerr)
	}
	// Unlinked while still held: whoever opened the file before waits on
	// this hold, not on a file nobody will remove.
	os.Remove(ss.LockPath(id))
	hold.Release()
	if err != nil {
		return res, err
	}
	out.RenderText(func(w io.Writer) error { return render(w, res) })
	if terminated {
		if err := out.Result(res); err != nil {
			return res, err
		}
		return res, envelope.Errorf(exitcode.Terminated, "CANCELLED", "stopped by SIGTERM: the harness was stopped and the chat's end recorded").
			WithSuggestion(fmt.Sprintf("continue the chat with '%s'", res.Continue)).WithResult()
	}
	return res, nil
}

// space is the plan's space, created or reopened as need be.
func (s *Starter) space(ctx context.Context, p *plan, now time.Time) (state.Space, error) {
	r := s.Runner
	out := envelope.From(ctx)
	if p.space == nil {
		sp, err := r.Project.State.CreateSpace(ctx, p.name, now)
		if err != nil {
			return state.Space{}, fmt.Errorf("create a space: %w", err)
		}
		return sp, nil
	}
	if p.name != "" { // a space that is there is named anew
		named, err := r.Project.State.UpdateSpace(ctx, p.space.ID, func(sp *state.Space) error {
			sp.Name = &p.name
			return nil
		})
		if err != nil {
			return state.Space{}, err
		}
		p.space = &named
	}
	if p.resumed {
		name := ""
		if p.space.Name != nil && *p.space.Name != "" {
			name = fmt.Sprintf(" (%q)", *p.space.Name)
		}
		out.Warn("SPACE_AUTO_RESUMED", fmt.Sprintf("Resumed active space %s%s", p.space.ID, name), "use --new to start a fresh space")
	}
	return space.ForRun(ctx, r.Project, p.space, now)
}

// runHarness runs the harness on the terminal and waits for it. It takes
// the run's signals from Duet's lifecycle: the terminal's SIGINT reaches the
// harness, which shares meridian's process group, and is the harness's to
// handle; a SIGTERM sent to meridian is passed on, with SIGKILL after grace.
// SIGQUIT and SIGHUP, which the terminal sends the harness too, are ignored
// here so that meridian outlives the harness and records its end.
func (s *Starter) runHarness(ctx context.Context, argv, env []string, dir string, grace time.Duration, lock *os.File, started func(pid int)) (exit int, sig string, terminated bool, err error) {
	sigs, release := adapters.TakeSignals(ctx)
	defer release()
	quiet := make(chan os.Signal, 2)
	signal.Notify(quiet, syscall.SIGQUIT, syscall.SIGHUP)
	defer signal.Stop(quiet)

	// Given the terminal, the harness stays in meridian's process group
	// (proc.Cmd.Terminal); it gets a person's environment, but no pager.
	c := proc.Command(ctx, argv[0], argv[1:]...)
	c.Terminal = true
	c.Stdin, c.Stdout, c.Stderr = s.Stdin, s.Stdout, s.Stderr
	c.Env, c.Dir = env, dir
	// The chat is alive while its harness is: the harness inherits the
	// chat's lock (one open file, one flock), so a meridian start killed
	// with SIGKILL leaves the chat alive as long as the harness lives.
	c.ExtraFiles = []*os.File{lock}
	if err := c.Start(); err != nil {
		return -1, "", false, envelope.Errorf(exitcode.Precondition, "HARNESS_START_FAILED", "could not start %s: %v", argv[0], err).
			WithSuggestion("check the harness command with 'meridian doctor'")
	}
	started(c.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var kill <-chan time.Time
	for {
		select {
		case <-done:
			ws := c.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				return -1, ws.Signal().String(), kill != nil, nil
			}
			return ws.ExitStatus(), "", kill != nil, nil
		case sg := <-sigs:
			if sg == syscall.SIGTERM && kill == nil {
				c.Process.Signal(syscall.SIGTERM)
				kill = time.After(grace)
			}
		case <-kill:
			c.Process.Kill()
		case <-quiet:
		}
	}
}

// findSession reads the id of the session the harness made from its own
// files, or "" when they do not say.
func findSession(h *harness.Harness, r *run.Runner, since time.Time) string {
	id, err := h.FindSession(harness.SessionSearch{Home: r.Getenv("HOME"), Getenv: r.Getenv, Dir: r.Dir, Since: since})
	if err != nil {
		return ""
	}
	return id
}

func render(w io.Writer, r Result) error {
	how := fmt.Sprintf("exited %d", r.ExitCode)
	if r.Signal != "" {
		how = "ended by " + r.Signal
	}
	_, err := fmt.Fprintf(w, "Chat %s in space %s ended (%s %s).\nContinue it with: %s\n", r.Chat, r.Space, r.Harness, how, r.Continue)
	return err
}

// chatAlias is the form of a chat id; anything else --continue is given is
// a harness session id.
func chatAlias(s string) bool {
	if len(s) < 2 || s[0] != 'c' {
		return false
	}
	return strings.Trim(s[1:], "0123456789") == ""
}
