package adapters

import (
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// isProtocolName reports whether name has the spec's form of a protocol's
// name, lowercase kebab-case such as mcp-stdio, lsp or dap (REQ-C-032):
// words of lowercase letters and digits joined by single hyphens, the
// first starting with a letter. (No regexp: it would be compiled at every
// start of every tool.)
func isProtocolName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := range len(name) {
		switch b := name[i]; {
		case b >= 'a' && b <= 'z', b >= '0' && b <= '9':
		case b == '-' && i+1 < len(name) && name[i+1] != '-':
		default:
			return false
		}
	}
	return true
}

// checkProtocol checks a protocol server's declaration (Meta.Protocol) when
// the app is wrapped (REQ-C-032). Its stdout is the protocol's from the
// first byte and its stdin the client's, so nothing that reads a payload,
// prompts, shapes, streams or writes an answer, previews or confirms one
// action, or outlives the invocation goes with it; and an MCP client
// calling it as a tool would get protocol messages for an answer. The
// exclusions Duet checks elsewhere — passthrough (delegate.go), a child log
// (proc.go), async, interruption and --idempotency-key (longwork.go) — are
// not repeated here.
func checkProtocol(c *schema.Command) []error {
	m := c.Meta
	if m.Protocol == "" {
		return nil
	}
	var errs []error
	if !isProtocolName(m.Protocol) {
		errs = append(errs, fmt.Errorf("Meta.Protocol %q is not a lowercase kebab-case name such as mcp-stdio, lsp or dap", m.Protocol))
	}
	refuse := func(what string) {
		errs = append(errs, fmt.Errorf("a protocol server (Meta.Protocol %q) cannot declare %s: its stdin and stdout are its protocol's (REQ-C-032)", m.Protocol, what))
	}
	if m.Stdin != "" {
		refuse("Meta.Stdin")
	}
	if m.Interactive || m.Prompts {
		refuse("Meta.Interactive or Meta.Prompts")
	}
	if m.Streaming || m.StreamingDefault {
		refuse("Meta.Streaming or Meta.StreamingDefault")
	}
	if m.Output != nil {
		refuse("Meta.Output (an output schema)")
	}
	if m.Background != nil {
		refuse("Meta.Background")
	}
	if m.ConfirmFlag != "" || m.SafeDefault || m.DryRun || c.Flag(flagname.DryRun) != nil {
		refuse("--dry-run, Meta.ConfirmFlag or Meta.SafeDefault: it has no single action to preview or confirm")
	}
	if c.Flag(flagname.Output) != nil {
		refuse("--output: it has no answer to write to a file")
	}
	if m.Tool == schema.ToolAlways {
		refuse("Meta.Tool ToolAlways: an MCP tool answers with one envelope")
	}
	return errs
}

// servesProtocol reports whether the invocation runs a protocol server
// (Meta.Protocol) rather than asking about one: --help, --schema,
// --version and --show-config print on stdout as for any command, and
// never serve. Otherwise stdout is the protocol's from the first byte
// (REQ-C-032): nothing captures it, and whatever the lifecycle answers — a
// refusal before serving, --validate-only's answer, a failure or a signal
// that ends the server — is written on stderr, the envelope its last line
// in JSON mode. Duet sees no point where an app's action starts serving,
// so it sets no time limit on the action but one --timeout asks for.
func (inv *invocation) servesProtocol() bool {
	c := inv.call
	if c.node.Meta.Protocol == "" || !c.node.Runnable || c.help || c.version || inv.scriptForAgent() {
		return false
	}
	return !c.on(flagname.Schema) && !c.on(flagname.ShowConfig) && !inv.schemaAsked()
}

// cleanShutdown reports whether a protocol server that ran ended without
// failing: the protocol said all there was to say, and no envelope
// follows it (REQ-C-032).
func (inv *invocation) cleanShutdown(fail *envelope.Error) bool {
	return inv.protocol && fail == nil && inv.ran.Load()
}

// argError is the code a protocol server's refused command line answers
// with: the spec's name for exit 2 (REQ-C-032).
const argError = "ARG_ERROR"

// protocolArgError answers a protocol server's refused command line as
// ARG_ERROR, the one code the spec gives a client to branch on before
// serving (REQ-C-032), with the problems Duet names — UNKNOWN_FLAG,
// INVALID_ENUM_VALUE … — kept in errors[]. Other commands keep the
// problem's own code.
func (inv *invocation) protocolArgError(fail *envelope.Error) *envelope.Error {
	if !inv.protocol || fail == nil || fail.Exit != exitcode.ArgError || fail.Code == argError {
		return fail
	}
	if len(fail.Errors) == 0 {
		fail.Errors = []envelope.FieldError{{Code: fail.Code, Message: fail.Message, Field: fail.Field, ValidValues: fail.ValidValues, Suggestion: fail.Suggestion}}
	}
	fail.Code = argError
	return fail
}
