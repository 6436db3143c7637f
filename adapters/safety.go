package adapters

import (
	"errors"
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
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
// — leaves an agent unable to tell a change from a no-op.
//
// The spec wants the framework to raise "a registration or runtime error"
// when a mutating command omits its effect. Go cannot see at registration
// what a handler will report, so an agent's call fails at run time: exit 1
// (GENERAL_ERROR, whose mutating entry says state may be modified), error
// code EFFECT_UNREPORTED, never retryable. The failure never hides that
// the change happened: the message says the command ran to its end and may
// have changed state, error.context.completed is true, the command's result
// stays in data (a failure payload), and the suggestion says to check the
// state rather than run it again; the audit log records the call. The
// EFFECT_UNREPORTED warning stays beside the error, for a person's stderr
// and adaptertest's check. An idempotency key the call gave is recorded
// before this check, so the same key again replays with effect noop rather
// than acting twice.
//
// A person or a script (no agent) is not checked: their run keeps the
// app's ways. A streaming command reports its effect per event (REQ-O-004),
// which this check does not read: it gets the warning alone.
func (inv *invocation) effectReported(fail *envelope.Error) *envelope.Error {
	if fail != nil || inv.out == nil || !inv.mode.Agent || !inv.ran.Load() || inv.call == nil ||
		inv.out.DryRun() || inv.out.Effected() != "" {
		return fail
	}
	n := inv.call.node
	if !n.Declared || n.Builtin || n.Passthrough || n.Delegates() { // what a delegated tool changed is not Duet's to know (REQ-C-031)
		return fail
	}
	if d := n.Danger(); d != schema.Mutating && d != schema.Destructive {
		return fail
	}
	inv.out.Warn(EffectUnreported, fmt.Sprintf("%s is %s and reported no effect, so whether it changed anything is unknown", n.DotPath(), n.Danger()),
		"report this to the tool's authors: a mutating command reports created, updated, deleted or noop (envelope.Output.Effect)")
	if n.Streams() {
		return fail
	}
	e := envelope.Errorf(exitcode.GeneralError, EffectUnreported,
		"%s ran to its end and may have changed state, but did not report what it did (created, updated, deleted or noop)", n.DotPath()).
		WithPhase(envelope.Execution).
		WithoutRetry().
		WithSuggestion("do not run it again to find out: check the state it acts on (data is what it answered), and report this to the tool's authors").
		WithResult()
	e.Context = map[string]any{"completed": true}
	return e
}

// EffectUnreported is the error code, and the warning code, of a mutating
// command that succeeded without reporting its effect.
const EffectUnreported = "EFFECT_UNREPORTED"
