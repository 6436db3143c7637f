package adapters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// Passthrough commands (REQ-C-031): a command declared with
// schema.Meta.Arguments PassthroughArguments hands every token after its
// path to another tool's parser. The lifecycle cuts the command line there:
// what comes before is read as for any command (Duet's options go before the
// path), and what follows is never parsed, not by Duet nor by the
// framework, and reaches the action through [Forwarded]. Once phase 1 has
// passed, the delegated tool owns stdout, so the envelope goes to the last
// line of stderr (and to --output's file), and the process exits with the
// tool's own exit code ([Delegate]).

// DelegatedExit is the error code of a passthrough command whose delegated
// tool exited non-zero: the process exits with the tool's code, which means
// what the tool says it means — not the framework's table — and promises
// nothing about side effects, so it is never retryable.
const DelegatedExit = "DELEGATED_EXIT"

// delegation is the state of an invocation of a passthrough command.
type delegation struct {
	on        bool     // the command line names a passthrough command
	forwarded []string // the tokens after its path, as the tool gets them
	// handed is set once phase 1 has passed: from then on the envelope is
	// stderr's, and stdout the tool's.
	handed atomic.Bool

	mu     sync.Mutex
	answer bytes.Buffer // the envelope as written to stderr, for --output
}

// delegatedLine splits args at the path of the passthrough command they
// name, if they name one: head is what Duet and the framework read — the
// options before the path, and the path — and rest every token after it,
// verbatim. A lone --help or -h in rest is the command's HelpArgv when it
// declares one.
func delegatedLine(root *schema.Command, args []string) (head, rest []string, ok bool) {
	node := root
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args, nil, false
		case strings.HasPrefix(a, "-") && a != "-":
			name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if f := optionNamed(node, name); f != nil && f.TakesValue() && !inline {
				i++ // its value, which may look like a command's name
			}
			continue
		}
		sub := node.Sub(a)
		if sub == nil {
			return args, nil, false
		}
		node = sub
		if node.Delegates() {
			rest = slices.Clone(args[i+1:])
			if len(rest) == 1 && (rest[0] == "--help" || rest[0] == "-h") && len(node.Meta.HelpArgv) > 0 {
				rest = slices.Clone(node.Meta.HelpArgv)
			}
			return slices.Clip(args[:i+1]), rest, true
		}
	}
	return args, nil, false
}

// optionNamed is the flag an option named name before a command's path
// stands for: n's, or one a command below n takes (Duet's options given
// before the path are hoisted to the command they belong to).
func optionNamed(n *schema.Command, name string) *schema.Flag {
	if f := n.Flag(name); f != nil {
		return f
	}
	for _, s := range n.Commands {
		if f := optionNamed(s, name); f != nil {
			return f
		}
	}
	return nil
}

// checkDelegation checks a passthrough command's declaration when the app
// is wrapped: the tool owns every token after its path, so the command
// declares no flag or positional of its own and takes its options before
// the path (option_placement strict); and, since Duet cannot preview what
// the tool would change, it is safe or mutating, never destructive, and
// offers no dry run.
func checkDelegation(c *schema.Command) []error {
	m := &c.Meta
	switch m.Arguments {
	case "", schema.DeclaredArguments:
		if len(m.HelpArgv) > 0 {
			return []error{errors.New("Meta.HelpArgv is what a passthrough command forwards for --help: declare Meta.Arguments passthrough, or drop it")}
		}
		return nil
	case schema.PassthroughArguments:
	default:
		return []error{fmt.Errorf("Meta.Arguments %q is not declared or passthrough", m.Arguments)}
	}
	var errs []error
	for _, f := range c.Flags {
		if !f.Builtin {
			errs = append(errs, fmt.Errorf("a passthrough command declares no flags of its own, and --%s is one: every token after its path is the delegated tool's", f.Name))
		}
	}
	if len(c.Args) > 0 {
		errs = append(errs, errors.New("a passthrough command declares no positional arguments: every token after its path is the delegated tool's"))
	}
	if c.Placement() != schema.Strict {
		errs = append(errs, fmt.Errorf("a passthrough command takes its options before its path: option placement %q must be strict", c.Placement()))
	}
	switch c.Danger() {
	case schema.Safe, schema.Mutating:
	default:
		errs = append(errs, fmt.Errorf("a passthrough command is safe or mutating, not %s: Duet cannot preview what the delegated tool would change, so wrap a tool that deletes with a declared command", c.Danger()))
	}
	if m.DryRun || m.SafeDefault {
		errs = append(errs, errors.New("a passthrough command cannot implement --dry-run: what the delegated tool would change is not Duet's to preview"))
	}
	if m.Protocol != "" {
		errs = append(errs, errors.New("a passthrough command's stdout is the delegated tool's, not a protocol's: drop Meta.Protocol"))
	}
	if m.Stdin != "" || m.StdinLines {
		errs = append(errs, errors.New("a passthrough command's stdin is the delegated tool's: drop Meta.Stdin"))
	}
	return errs
}

// Forwarded returns the tokens after the path of the passthrough command
// ctx runs, verbatim (a lone --help replaced by its HelpArgv), for the
// delegated tool; nil for any other command, and outside a lifecycle.
func Forwarded(ctx context.Context) []string {
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok || !inv.deleg.on {
		return nil
	}
	return slices.Clone(inv.deleg.forwarded)
}

// Delegate runs the delegated tool of a passthrough command: cmd, with the
// tokens of [Forwarded] appended to its arguments, on the invocation's
// stdin, stdout and stderr unless cmd sets its own. It is what a
// passthrough command's action returns:
//
//	return adapters.Delegate(ctx, proc.Command(ctx, "bean-extract"))
//
// The answer's data is {"exit_code": n}. A tool that exits 0 succeeds; one
// that exits n > 0 (or is killed by signal N: 128+N) fails with
// DELEGATED_EXIT, and the process exits n. A tool stopped because the
// command's time ran out, or because the invocation was signalled, answers
// TIMEOUT or CANCELLED, as any command does; one that cannot start fails as
// the error says (the program not found: exit 1).
func Delegate(ctx context.Context, cmd *proc.Cmd) error {
	if inv, ok := ctx.Value(invocationKey{}).(*invocation); ok {
		cmd.Args = append(cmd.Args, inv.deleg.forwarded...)
		if cmd.Stdin == nil {
			cmd.Stdin = inv.cfg.stdin
		}
		if cmd.Stdout == nil {
			cmd.Stdout = inv.cfg.stdout
		}
		if cmd.Stderr == nil {
			cmd.Stderr = inv.cfg.stderr
		}
	}
	err := cmd.Run()
	if cerr := ctx.Err(); cerr != nil {
		return cerr // the lifecycle answers TIMEOUT or CANCELLED
	}
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return fmt.Errorf("running the delegated tool %s: %w", cmd.Path, err)
		}
		code = exitStatus(exit)
	}
	out := envelope.From(ctx)
	if rerr := out.Result(map[string]int{"exit_code": code}); rerr != nil {
		return rerr
	}
	if code == 0 {
		return nil
	}
	return envelope.Errorf(exitcode.Code(code), DelegatedExit, "the delegated tool exited %d", code).
		WithPhase(envelope.Execution).
		WithoutRetry().
		WithSuggestion("read the tool's own output on stdout and stderr: the exit code is the tool's, and it may have changed state").
		WithResult()
}

// isDelegatedExit reports whether fail is the delegated tool's own exit,
// which keeps its code and its meaning whatever the command's table says.
func (inv *invocation) isDelegatedExit(fail *envelope.Error) bool {
	return fail != nil && fail.Code == DelegatedExit && inv.deleg.on && inv.ran.Load()
}

// handOver gives stdout to the delegated tool: from now on the envelope is
// stderr's. Called once phase 1 has passed.
func (inv *invocation) handOverStdout() {
	if inv.deleg.on {
		inv.deleg.handed.Store(true)
	}
}

// delegatedStdout is where a passthrough command's answer goes: stdout
// while phase 1 may refuse it (no tool has run), then stderr — the last
// line, the tool having exited — kept for --output too. A person's
// rendering of data ({"exit_code": 0}) is nobody's news: it is dropped,
// and a failure's diagnostics still reach stderr.
type delegatedStdout struct {
	inv    *invocation
	stdout io.Writer
}

func (w delegatedStdout) Write(p []byte) (int, error) {
	inv := w.inv
	if !inv.deleg.handed.Load() {
		return w.stdout.Write(p)
	}
	if f := inv.mode.Format; f != envelope.JSON && f != envelope.JSONL && inv.cfg.featured.encoders[f] == nil {
		return len(p), nil
	}
	inv.deleg.mu.Lock()
	inv.deleg.answer.Write(p)
	inv.deleg.mu.Unlock()
	return inv.cfg.stderr.Write(p)
}

// keepDelegatedAnswer writes the envelope stderr got to --output's file,
// whole, by rename (output_file "envelope"). An answer refused in phase 1
// went to stdout and writes no file, as a failed run writes none.
func (inv *invocation) keepDelegatedAnswer() {
	path := inv.outputPath()
	if !inv.deleg.on || !inv.deleg.handed.Load() || path == "" {
		return
	}
	inv.deleg.mu.Lock()
	answer := slices.Clone(inv.deleg.answer.Bytes())
	inv.deleg.mu.Unlock()
	if len(answer) == 0 {
		return
	}
	if !filepath.IsAbs(path) && inv.obs.cwd != "" {
		path = filepath.Join(inv.obs.cwd, path) // as envelope resolves --output
	}
	if err := atomicfile.Write(path, answer, 0o644); err != nil {
		// The envelope is on stderr already: say so there, once.
		fmt.Fprintf(inv.cfg.stderr, "%s: could not write the answer to %s: %v\n", inv.root.Name, path, err)
	}
}

// exitStatus is the exit code of a tool that exited, as a shell gives it:
// its own, or 128+N when signal N killed it.
func exitStatus(e *exec.ExitError) int {
	if code := e.ExitCode(); code >= 0 {
		return code
	}
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return int(exitcode.GeneralError)
}
