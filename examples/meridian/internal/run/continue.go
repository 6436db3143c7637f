package run

import (
	"context"
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
)

// Continue starts a run that resumes another run's harness conversation —
// the run named, or the last run of the current chat. Continuation is locked
// to the harness the conversation lives in: a model of another harness is
// refused (HARNESS_MISMATCH).
func (r *Runner) Continue(ctx context.Context, req ContinueRequest) (Detail, error) {
	p, err := r.planContinue(ctx, req)
	if err != nil {
		return Detail{}, planning(err)
	}
	return r.start(ctx, p, req.Wait)
}

// CheckContinue plans the turn as Continue does, and writes and starts
// nothing: run continue's phase-1 checks (its Meta.Validate), which
// --validate-only runs too. A prompt not given at all (promptGiven false) is
// left to the flag's own required check.
func (r *Runner) CheckContinue(ctx context.Context, req ContinueRequest, promptGiven bool) error {
	if promptGiven {
		if err := checkPrompt(req.Prompt); err != nil {
			return err
		}
	}
	_, err := r.planContinueInput(ctx, req)
	return planning(err)
}

func (r *Runner) planContinue(ctx context.Context, req ContinueRequest) (*plan, error) {
	if err := checkPrompt(req.Prompt); err != nil {
		return nil, err
	}
	return r.planContinueInput(ctx, req)
}

// planContinueInput plans a turn whose prompt is checked.
func (r *Runner) planContinueInput(ctx context.Context, req ContinueRequest) (*plan, error) {
	sp, all, err := r.load(ctx, req.Space)
	if err != nil {
		return nil, err
	}
	src, err := r.source(sp.ID, all, req.Run)
	if err != nil {
		return nil, err
	}
	h, ok := harness.Lookup(src.Harness)
	if !ok {
		return nil, fmt.Errorf("run %s: unknown harness %q", src.ID, src.Harness)
	}
	switch {
	case src.Status == state.Running:
		return nil, envelope.Errorf(exitcode.Conflict, "RUN_STILL_RUNNING", "Run %s is still running; its conversation cannot take a second turn yet", src.ID).
			WithSuggestion(fmt.Sprintf("run 'meridian run wait %s', then continue it", src.ID)).
			WithRetry(0, envelope.RetryLinear)
	case src.HarnessSessionID == "":
		return nil, envelope.Errorf(exitcode.Precondition, "NO_HARNESS_SESSION", "Run %s has no harness session to continue: %s never reported one", src.ID, h.Display()).
			WithSuggestion("start a new conversation with 'meridian run spawn'").
			WithFix("start a new conversation", "")
	}
	model := src.Model
	if req.Model != "" {
		m, mh, err := r.resolveModel(ctx, req.Model, nil)
		if err != nil {
			return nil, err
		}
		if mh.Name() != h.Name() {
			return nil, envelope.Validationf("HARNESS_MISMATCH", "Run %s was started with %s. Cannot continue with a %s model (%s)", src.ID, h.Display(), mh.Display(), m).
				WithSuggestion(fmt.Sprintf("pick a model on %s or omit -m", h.Display())).
				WithField("model")
		}
		model = m
	}
	files, err := r.readFiles(ctx, req.Files)
	if err != nil {
		return nil, err
	}
	p := &plan{space: &sp, model: model, harness: h, agent: src.Agent, continues: src.ID, timeout: r.runTimeout(req.Timeout)}
	if p.exe, err = r.executable(h); err != nil {
		return nil, err
	}
	p.prompt = Compose(Parts{Files: files, Prompt: req.Prompt})
	p.request = harness.Request{Model: model, Prompt: p.prompt, AppendSystemPrompt: req.AppendSystemPrompt,
		ResumeID: src.HarnessSessionID, Fork: req.Fork}
	return p, nil
}

// source finds the run to continue: the one named, or else the last run of
// the current chat.
func (r *Runner) source(spaceID string, all []*state.Run, id string) (state.Run, error) {
	if id != "" {
		return find(spaceID, all, id)
	}
	if r.Chat == "" {
		return state.Run{}, envelope.Validationf("RUN_ID_REQUIRED", "No run id given, and no %s names a chat whose last run to continue", EnvChat).
			WithSuggestion("pass the run id; 'meridian run list' shows them").
			WithFix("name the run to continue", "").WithField("run-id")
	}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].SessionID == r.Chat {
			return *all[i], nil
		}
	}
	return state.Run{}, envelope.Errorf(exitcode.NotFound, "RUN_NOT_FOUND", "Chat %s has no runs in space %s", r.Chat, spaceID).
		WithSuggestion("pass the run id; 'meridian run list' shows them").
		WithFix("name the run to continue", "")
}
