package adapters

import (
	"errors"
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// Registration checks of the safety area (issue 16). They hold only for a
// ported command — one the app declared to Duet — so an app nobody ported
// keeps running as it did.

// checkSafety is what a declared command must say about its risk: its
// danger level (the CLI Agent Spec's C-002), without which an agent can
// only guess whether running it is safe.
func checkSafety(c *schema.Command) []error {
	if !c.Declared || c.Builtin || c.Passthrough || !c.Runnable {
		return nil
	}
	var errs []error
	if c.Meta.Danger == "" {
		errs = append(errs, errors.New("a declared command must declare Meta.Danger: safe, mutating or destructive"))
	}
	return errs
}

// effectReported checks a mutating command's answer (C-003): one that
// succeeded without saying what it did — created, updated, deleted or noop
// — leaves an agent unable to tell a change from a no-op, so the answer
// carries an EFFECT_UNREPORTED warning (an error under
// --warnings-as-errors, and in the app's tests through adaptertest.Run).
// It is not an error by default: the change has happened, and failing the
// call would have an agent repeat it.
func (inv *invocation) effectReported(fail *envelope.Error) {
	if fail != nil || inv.out == nil || !inv.mode.Agent || !inv.ran.Load() || inv.call == nil ||
		inv.out.DryRun() || inv.out.Effected() != "" {
		return
	}
	n := inv.call.node
	if !n.Declared || n.Builtin {
		return
	}
	if d := n.Danger(); d != schema.Mutating && d != schema.Destructive {
		return
	}
	inv.out.Warn(EffectUnreported, fmt.Sprintf("%s is %s and reported no effect, so whether it changed anything is unknown", n.DotPath(), n.Danger()),
		"report this to the tool's authors: a mutating command reports created, updated, deleted or noop (envelope.Output.Effect)")
}

// EffectUnreported is the warning code of a mutating command that
// succeeded without reporting its effect.
const EffectUnreported = "EFFECT_UNREPORTED"
