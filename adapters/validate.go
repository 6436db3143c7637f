package adapters

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// validate runs the command's Meta.Validate hook in phase 1 (C-006), once
// every declared check has run and the payload is read: the hook sees the
// payload (input.From) and the Output (envelope.From, for its mode, its
// paths and its warnings), as the command would. Its validation problems
// join those the declarations found, so that every one is reported at once;
// a single one, when the declarations found none, is the answer as the hook
// returned it; any other error it returns is the answer, in the validation
// phase. The command never runs then — and --validate-only, which stops
// after phase 1, answers exactly what the real run would (O-009).
//
// A hook must change nothing. One that records a result or an effect, keeps
// a file or starts a background process through its Output is the tool's
// bug, and the answer says so (VALIDATE_HOOK_ACTED) instead of running the
// command; what it does on its own, Duet does not see (duetvet's
// validatepure does, in the source).
func (inv *invocation) validate(ctx context.Context) *envelope.Error {
	c := inv.call
	hook := c.node.Meta.Validate
	if hook == nil || c.refused != nil || c.help || c.version || c.on(flagname.Schema) || c.on(flagname.ShowConfig) {
		return nil
	}
	err := inv.runHook(ctx, hook)
	if acted := inv.hookActed(); acted != nil {
		return acted
	}
	if err == nil {
		return nil
	}
	e := envelope.As(err)
	if e.Exit != exitcode.ArgError {
		return e.WithPhase(envelope.Validation)
	}
	switch {
	case len(e.Errors) > 0:
		c.problems = appendUnjudged(c.problems, e.Errors...)
	case len(c.problems) == 0:
		return e.WithPhase(envelope.Validation) // all there is to say, as the hook said it
	default:
		c.problems = appendUnjudged(c.problems, envelope.FieldError{Code: e.Code, Message: e.Message, Field: e.Field, ValidValues: e.ValidValues,
			Suggestion: e.Suggestion, CorrectedInput: e.CorrectedInput})
	}
	return nil
}

// appendUnjudged adds the hook's problems to the declared ones, but those
// about an input a declared check refused already: the hook saw a value the
// command would never get (JSON5 the lifecycle could not read, an id that
// is no id), and the declared problem is the one to fix first.
func appendUnjudged(problems []envelope.FieldError, found ...envelope.FieldError) []envelope.FieldError {
	declared := len(problems)
	for _, p := range found {
		if p.Field != "" && slices.ContainsFunc(problems[:declared], func(d envelope.FieldError) bool { return d.Field == p.Field }) {
			continue
		}
		problems = append(problems, p)
	}
	return problems
}

// runHook calls the hook with what the command would get: its input, and a
// context that carries the Output, the payload and the run environment. A
// panic in it is the tool's bug, answered as the command's would be.
func (inv *invocation) runHook(ctx context.Context, hook func(context.Context, schema.Input) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = envelope.Errorf(exitcode.GeneralError, "INTERNAL_ERROR", "internal error in the validation of %s: %v", inv.call.node.DotPath(), r).
				WithSuggestion("this is a bug in the tool; report it")
		}
	}()
	if inv.out != nil {
		ctx = envelope.NewContext(ctx, inv.out)
	}
	ctx = inv.inputContext(ctx)
	ctx = inv.withRunenv(ctx)
	return hook(ctx, inv.input())
}

// hookActed is the answer when the Validate hook did more than validate:
// recorded a result, streamed an item, or changed something the Output
// sees. nil when it did none of these.
func (inv *invocation) hookActed() *envelope.Error {
	out := inv.out
	if out == nil {
		return nil
	}
	did := out.Changes()
	if len(did) == 0 && out.Used() {
		did = []string{"answered through the Output (a result, an item or an effect)"}
	}
	if len(did) == 0 {
		return nil
	}
	return envelope.Errorf(exitcode.GeneralError, "VALIDATE_HOOK_ACTED",
		"the validation of %s %s: a Meta.Validate hook must change nothing, so the command was not run", inv.call.node.DotPath(), strings.Join(did, ", ")).
		WithSuggestion(fmt.Sprintf("report this to the tool's authors: %s's Meta.Validate must only check its input", inv.call.node.DotPath()))
}

// input is what the command was given, as the framework would hand it to the
// action: the command line, else the environment, a saved profile, the
// default.
func (inv *invocation) input() schema.Input {
	c := inv.call
	values, given := map[string][]string{}, map[string]bool{}
	for f := range c.node.Accepted() {
		if f.Builtin {
			continue
		}
		v := c.values[f.Name]
		for _, e := range f.Env {
			if len(v) > 0 {
				break
			}
			if s, ok := inv.cfg.lookupEnv(e); ok {
				v = splitFor(f, s)
			}
		}
		if len(v) == 0 {
			if s := inv.profiles.valueOf(f); s != "" {
				v = splitFor(f, s)
			}
		}
		given[f.Name] = len(v) > 0
		if len(v) == 0 && f.Default != nil {
			v = []string{fmt.Sprint(f.Default)}
		}
		if len(v) > 0 {
			values[f.Name] = v
		}
	}
	return schema.NewInput(values, given, c.args)
}
