package adapters

import (
	"context"
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// validate runs the command's Meta.Validate hook in phase 1 (C-006): its
// validation problems join those the declarations found, so that every one
// is reported at once; any other error it returns is the answer, in the
// validation phase, and the command never runs.
func (inv *invocation) validate(ctx context.Context) *envelope.Error {
	c := inv.call
	hook := c.node.Meta.Validate
	if hook == nil || c.refused != nil || c.help || c.version || c.on(flagname.Schema) || c.on(flagname.ShowConfig) {
		return nil
	}
	err := hook(ctx, inv.input())
	if err == nil {
		return nil
	}
	e := envelope.As(err)
	if e.Exit != exitcode.ArgError {
		return e.WithPhase(envelope.Validation)
	}
	if len(e.Errors) > 0 {
		c.problems = append(c.problems, e.Errors...)
	} else {
		c.problems = append(c.problems, envelope.FieldError{Code: e.Code, Message: e.Message, Field: e.Field, ValidValues: e.ValidValues, Suggestion: e.Suggestion})
	}
	return nil
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
