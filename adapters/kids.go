package adapters

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// editorAlternatives are the flags a command declares in place of an
// editor (schema.Meta.Alternatives), with their descriptions, for the
// alternatives[] of an EDITOR_REQUIRED error (the CLI Agent Spec's F-055).
func editorAlternatives(n *schema.Command) []envelope.Alternative {
	if !n.Meta.Editor {
		return nil
	}
	alts := make([]envelope.Alternative, 0, len(n.Meta.Alternatives))
	for _, name := range n.Meta.Alternatives {
		a := envelope.Alternative{Flag: "--" + name}
		if f := n.Flag(name); f != nil {
			a.Description = f.Usage
		}
		alts = append(alts, a)
	}
	return alts
}

// updateSwitches silence the update notifiers of common runtimes and
// tools (the CLI Agent Spec's F-050); proc gives them to every program it
// starts, and quietUpdates to this process.
var updateSwitches = [...][2]string{
	{"NO_UPDATE_NOTIFIER", "1"}, {"npm_config_update_notifier", "false"}, {"HOMEBREW_NO_AUTO_UPDATE", "1"},
	{"PIP_DISABLE_PIP_VERSION_CHECK", "1"}, {"GH_NO_UPDATE_NOTIFIER", "1"},
}

// quietUpdates silences update notices where nobody would read one: nobody
// can answer, stdout is not a terminal, or CI says yes. It runs the
// WithUpdateNotifierSuppression hooks and — as with EDITOR, only in a
// process run by Main or Exec — sets the switches, and CI=1 unless CI
// already says yes, in the process's environment, so that a library or a
// program started without proc sees them before the command runs.
func (inv *invocation) quietUpdates() {
	cfg := inv.cfg
	ci, _ := cfg.lookupEnv("CI")
	if inv.mode.Interactive && inv.mode.Terminal && !proc.Truthy(ci) {
		return
	}
	for _, fn := range cfg.quietUpdates {
		fn()
	}
	if !inv.ownStreams() || cfg.envGiven {
		return
	}
	if !proc.Truthy(ci) {
		os.Setenv("CI", "1")
	}
	for _, kv := range updateSwitches {
		os.Setenv(kv[0], kv[1])
	}
}

// reportBackground gives the data of a command that declares a background
// process (schema.Meta.Background) and started one its background_pid and
// cleanup_command (the CLI Agent Spec's C-010), unless the command set
// them itself.
func (inv *invocation) reportBackground() {
	bg := inv.call.node.Meta.Background
	if bg == nil || inv.out == nil {
		return
	}
	if pids := inv.session.Background(); len(pids) > 0 {
		inv.out.Background(pids[0], bg.CleanupCommand)
	}
}

// CodePipefailUnset is the warning that the shell that ran the tool lets a
// pipeline's failures go unseen.
const CodePipefailUnset = "PIPEFAIL_UNSET"

// warnPipefail warns, before the command runs, that the shell that ran the
// tool has no pipefail, where that shell says so (the CLI Agent Spec's
// F-065): in `tool | jq` the shell then reports jq's exit code, not the
// tool's. A process sees its parent shell's options only when the shell
// exports them (bash's SHELLOPTS); where it does not, nothing is known, and
// nothing is said.
func (inv *invocation) warnPipefail() {
	opts, ok := inv.cfg.lookupEnv("SHELLOPTS")
	if !ok || inv.out == nil || strings.Contains(":"+opts+":", ":pipefail:") {
		return
	}
	inv.out.Warn(CodePipefailUnset, "the shell that ran this command has no pipefail: in a pipeline, its failure would be masked by the last stage's success",
		"run 'set -o pipefail' in the shell before piping this command's output")
}

// idleYes is the --yes of a ported command that never asks: accepted and
// changing nothing (the CLI Agent Spec's C-005: --yes is idempotent), so
// that a caller may pass it to every command; hidden, as it does nothing.
func idleYes(c *schema.Command) *schema.Flag {
	if !c.Declared || !c.Runnable || c.NeedsConfirmation() || c.Meta.Prompts {
		return nil
	}
	return &schema.Flag{Name: flagname.Yes, Type: schema.Boolean, Default: false, Hidden: true, Usage: "changes nothing: the command never asks"}
}

// guardStdin keeps a ported command from waiting on a terminal nobody is
// typing at (the CLI Agent Spec's F-009, F-047): where nobody can answer —
// an agent reads, or --non-interactive — and stdin is a terminal, a command
// that declares no input on stdin (Meta.Stdin, Protocol, Interactive, a
// Pipe flag or argument) reads from the reader its framework hands it
// (urfave's Command.Reader, cobra's InOrStdin) an INPUT_REQUIRED error
// (exit 4), at once; in a process run by Main or Exec, os.Stdin becomes
// /dev/null, so that a direct read ends at once too. A stdin that is not a
// terminal is the caller's data, and is left as it is: a pipe ends when
// its writer closes it.
func (inv *invocation) guardStdin(s Streams) Streams {
	n := inv.call.node
	if inv.mode.Interactive || !inv.cfg.tty.stdin || !n.Declared || readsStdin(n) {
		return s
	}
	s.Stdin = nobodyTyping{command: n.DotPath(), line: inv.root.Name + " " + strings.ReplaceAll(n.DotPath(), ".", " ")}
	if inv.ownStreams() {
		if f, err := os.Open(os.DevNull); err == nil {
			os.Stdin = f
		}
	}
	return s
}

// readsStdin reports whether a command declares that it reads stdin.
func readsStdin(n *schema.Command) bool {
	if n.Meta.Stdin != "" || n.Meta.Protocol != "" || n.Meta.Interactive {
		return true
	}
	for f := range n.Accepted() {
		if f.Pipe {
			return true
		}
	}
	for _, a := range n.Args {
		if a.Pipe {
			return true
		}
	}
	return false
}

// nobodyTyping is the stdin of a command nobody can answer.
type nobodyTyping struct{ command, line string }

func (r nobodyTyping) Read([]byte) (int, error) {
	return 0, envelope.Errorf(exitcode.Precondition, errcode.InputRequired, "%q read stdin for an answer, and nobody is typing at the terminal", r.command).
		WithPhase(envelope.Validation).
		WithSuggestion(fmt.Sprintf("pass what it asks for as flags or arguments (see '%s --schema'), or run it where a person can answer", r.line))
}

var _ io.Reader = nobodyTyping{}
