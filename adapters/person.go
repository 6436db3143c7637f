package adapters

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// A command only a person may confirm (schema.Meta.RequiresPerson,
// REQ-C-036) asks the person at the terminal to type a text back before it
// runs. No flag answers for them, --yes included: an agent that could pass
// the flag could approve its own proposal. It is a speed bump and an honest
// record, not a security boundary — a program running as the same user can
// fake a terminal.

// personRequired is the refusal of a command for people where there is no
// person to ask: exit 4, never retryable, and a suggestion that names no
// flag, since none would do.
func (inv *invocation) personRequired(why string) *envelope.Error {
	return envelope.Errorf(exitcode.Precondition, "PERSON_REQUIRED", "%s", why).
		WithPhase(envelope.Validation).
		WithoutRetry().
		WithSuggestion(fmt.Sprintf("hand it to a person, to run in their own terminal: %s", inv.personLine()))
}

// personLine is the command as a person would type it: the tool, the
// command's words and its arguments, without the flags an agent added.
func (inv *invocation) personLine() string {
	return commandLine(append(append([]string{inv.root.Name}, inv.call.node.Path...), inv.call.args...))
}

// attestation is the text the person types back to confirm.
func (inv *invocation) attestation() string {
	n := inv.call.node
	return cmp.Or(n.Meta.Attest, strings.Join(append(append([]string(nil), n.Path...), inv.call.args...), " "))
}

// attest asks the person at the terminal to type the attestation back, and
// refuses (ATTESTATION_MISMATCH, exit 4) anything else.
func (inv *invocation) attest() *envelope.Error {
	if !inv.call.node.Meta.RequiresPerson {
		return nil
	}
	want := inv.attestation()
	answer, err := inv.ask(context.Background(), fmt.Sprintf("%s needs your confirmation. Type %q to go on: ", inv.personLine(), want))
	switch {
	case err != nil:
		return envelope.As(err)
	case answer != want:
		return envelope.Errorf(exitcode.Precondition, "ATTESTATION_MISMATCH", "what was typed is not %q: nothing was changed", want).
			WithPhase(envelope.Validation).
			WithoutRetry()
	}
	return nil
}
