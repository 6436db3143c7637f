package adapters

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// Nobody to ask: where no person is at a terminal — an agent reads, stdin
// is not a terminal, --non-interactive — nothing waits for an answer that
// cannot come. A command that only a person can use (Meta.Interactive) is
// refused before it runs; one that needs an editor gets the flag that
// takes the editor's place; a question (Prompt, Confirm) fails at once
// with exit 4, naming the flag that answers it.

// needsPerson refuses, before the command runs, what only a person could
// do: a command for people (Audience HumanOnly, or under such a group) asked
// for by a named agent (Mode.Named) without --human, an interactive command (a REPL, a
// terminal program) where nobody is at a terminal, and an editor with none
// of the flags that take its place.
func (inv *invocation) needsPerson() *envelope.Error {
	n := inv.call.node
	if inv.mode.Named && !inv.human {
		// Hidden from an agent's help and describe is not enough: a
		// command for people (a foot-gun such as closing a space) is not
		// run for an agent that learned its name elsewhere. Only for an
		// agent that is named as one: a person's script reads a pipe too.
		for c := n; c != nil; c = c.Parent {
			if !c.VisibleTo(true) {
				return inv.personRequired(fmt.Sprintf("%q is for people: it is not run for an agent", n.DotPath()))
			}
		}
	}
	if n.Meta.RequiresPerson && (!inv.mode.Interactive || !inv.cfg.tty.stdout) {
		return inv.personRequired(fmt.Sprintf("%q needs a person at a terminal to confirm it, and stdin or stdout is not one", n.DotPath()))
	}
	if inv.mode.Interactive {
		return nil
	}
	if n.Meta.Interactive {
		return envelope.Errorf(exitcode.Precondition, "REPL_MODE_PROHIBITED", "%q is interactive: it needs a person at a terminal, and stdin is not one (or --non-interactive was given)", n.DotPath()).
			WithPhase(envelope.Validation).
			WithSuggestion(fmt.Sprintf("run it in a terminal; a program uses %s", nonInteractiveCommands(inv.root, n)))
	}
	if n.Meta.Editor && len(n.Meta.Alternatives) > 0 {
		for _, a := range n.Meta.Alternatives {
			if inv.call.has(a) {
				return nil
			}
		}
		alts := make([]string, len(n.Meta.Alternatives))
		for i, a := range n.Meta.Alternatives {
			alts[i] = "--" + a + " <" + a + ">"
		}
		e := envelope.Errorf(exitcode.Precondition, proc.CodeEditor, "%q opens an editor, and nobody is at a terminal to use it", n.DotPath()).
			WithPhase(envelope.Validation).
			WithSuggestion(fmt.Sprintf("use %s instead", strings.Join(alts, " or "))).
			WithField(n.Meta.Alternatives[0], n.Meta.Alternatives...)
		e.FixRequired = "give " + strings.Join(alts, " or ")
		e.Alternatives = editorAlternatives(n)
		return e
	}
	return nil
}

// nonInteractiveCommands names, for the refusal of an interactive command,
// where a program should look instead.
func nonInteractiveCommands(root, n *schema.Command) string {
	return "'" + root.Name + " describe' to find the commands that run without one"
}

// inputRequired turns the refusal of a command that asks for confirmation,
// and is not destructive, into the CLI Agent Spec's INPUT_REQUIRED (exit 4,
// REQ-F-009): a question nobody can answer. A destructive command's refusal
// stays CONFIRMATION_REQUIRED with exit 2 (REQ-O-021).
func (inv *invocation) inputRequired(refusal *envelope.Error) *envelope.Error {
	if refusal == nil || inv.call.node.Danger() == schema.Destructive {
		return refusal
	}
	refusal.Code, refusal.Exit = errcode.InputRequired, exitcode.Precondition
	refusal.Message = fmt.Sprintf("%q asks for confirmation, and nobody can be asked", inv.call.node.DotPath())
	return refusal
}

// Prompt asks the person at the terminal a question, on stderr, and returns
// the line they answer without its line ending. Where nobody can be asked —
// an agent reads, stdin is not a terminal, --non-interactive was given, or
// ctx belongs to no Duet run — it asks nothing and returns INPUT_REQUIRED
// (exit 4) at once, with flag, the flag that gives the answer instead ("" if
// none does), as its suggestion. SIGINT or SIGTERM while it waits returns
// CANCELLED. A command that asks declares it (schema.Meta.Prompts).
func Prompt(ctx context.Context, question, flag string) (string, error) {
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok || !inv.mode.Interactive {
		e := envelope.Errorf(exitcode.Precondition, errcode.InputRequired, "%s: an answer is needed, and nobody can be asked (stdin is not a terminal)", strings.TrimRight(question, " ?:")+"?").
			WithPhase(envelope.Validation)
		if flag != "" {
			e = e.WithSuggestion(fmt.Sprintf("pass --%s to answer without a prompt", flag)).WithField(flag)
		} else {
			e = e.WithSuggestion("run it in a terminal, where it can ask")
		}
		return "", e
	}
	return inv.ask(ctx, question)
}

// Confirm asks a yes-or-no question. --yes answers yes without asking;
// where nobody can be asked it returns INPUT_REQUIRED (exit 4), suggesting
// --yes. Anything but y or yes is a no.
func Confirm(ctx context.Context, question string) (bool, error) {
	if inv, ok := ctx.Value(invocationKey{}).(*invocation); ok && inv.call.bool(flagname.Yes) {
		return true, nil
	}
	answer, err := Prompt(ctx, strings.TrimRight(question, " ")+" [y/N] ", flagname.Yes)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// ask writes question on stderr and waits for a line on stdin, or a signal.
func (inv *invocation) ask(ctx context.Context, question string) (string, error) {
	fmt.Fprint(inv.cfg.stderr, question)
	if inv.obs.stdin == nil {
		inv.obs.stdin = bufio.NewReader(inv.cfg.stdin)
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := inv.obs.stdin.ReadString('\n')
		lines <- line
	}()
	for {
		select {
		case line := <-lines:
			return strings.TrimRight(line, "\r\n"), nil
		case <-ctx.Done():
			fmt.Fprintln(inv.cfg.stderr)
			return "", ctx.Err()
		case s := <-inv.sigs:
			if s == syscall.SIGPIPE {
				continue
			}
			fmt.Fprintln(inv.cfg.stderr)
			return "", cancelled(s)
		}
	}
}

// headless reports whether no window could be seen: stdout is not a
// terminal, CI is set, the session is remote (SSH_TTY), or — on systems
// that draw with X11 or Wayland — neither DISPLAY nor WAYLAND_DISPLAY is
// set.
func headless(lookup func(string) (string, bool), stdoutTTY bool) bool {
	get := func(k string) string { v, _ := lookup(k); return v }
	switch {
	case !stdoutTTY, get("CI") != "", get("SSH_TTY") != "":
		return true
	case runtime.GOOS == "darwin" || runtime.GOOS == "windows":
		return false
	}
	return get("DISPLAY") == "" && get("WAYLAND_DISPLAY") == ""
}

// WithOpener replaces how a URL or file is shown on the display (see
// envelope.Output.Open): $BROWSER, else xdg-open, open (macOS) or the
// shell's default (Windows), started and left running.
func WithOpener(open func(target string) error) Option {
	return func(c *config) { c.open = open }
}

func (c *config) opener() func(string) error {
	if c.open != nil {
		return c.open
	}
	return func(target string) error {
		name, args := "xdg-open", []string{target}
		switch {
		case c.getenv("BROWSER") != "":
			name = c.getenv("BROWSER")
		case runtime.GOOS == "darwin":
			name = "open"
		case runtime.GOOS == "windows":
			name, args = "rundll32", []string{"url.dll,FileProtocolHandler", target}
		}
		//duetvet:allow rawexec -- the viewer is left running after the answer: no session may stop it
		cmd := exec.Command(name, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		if err := cmd.Start(); err != nil {
			return envelope.Errorf(exitcode.Precondition, "OPEN_FAILED", "cannot open %s with %s: %w", target, name, err).
				WithSuggestion("open it yourself, or set BROWSER")
		}
		go cmd.Wait() // reaped whenever the viewer exits
		return nil
	}
}
