package adapters

import (
	"context"
	"io"
	"os"
	"slices"
	"syscall"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// An Extension is a built-in command that a package outside this one adds to
// a wrapped app, as adapters/mcp adds `serve`. Give it to the adapter's Wrap
// (or Run, or Main) with [WithExtension].
//
// The lifecycle treats its command like any other up to the point of running
// it: it is listed in help and describe, its flags are parsed and validated,
// and --help and --schema answer for it. Running it is the extension's alone:
// it owns the standard streams, and the lifecycle writes no envelope after it
// — an MCP server's stdout is the protocol, not a place for one more answer —
// unless it ends with [Host.Fail], or it serves a protocol (Meta.Protocol)
// and a signal stops it: that envelope is written on stderr (REQ-C-032).
type Extension struct {
	// Command declares the command: its name, usage, flags and arguments,
	// which the lifecycle validates before Run. It is added under the root,
	// marked built-in, unless the app has a command of that name already; a
	// pass-through command of the framework's own (cobra's completion) gives
	// way to it, since the app asked for this one. A command with
	// sub-commands is a group: Run runs each of them (see [Host.Path]), and
	// the group itself shows its help.
	Command schema.Command
	// Run runs the command and returns the process's exit code. Its context
	// is cancelled on SIGINT or SIGTERM; when it then returns 0, the exit
	// code is the signal's (130 or 143), as for any command.
	Run func(ctx context.Context, h *Host) int
}

// WithExtension adds e's command to the app.
func WithExtension(e Extension) Option {
	return func(c *config) { c.extensions = append(c.extensions, e) }
}

// Host is what an extension's command runs with: the app it extends, and the
// invocation it answers.
type Host struct {
	App     Framework
	Version string // the tool's version (see WithVersion)
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer

	inv    *invocation
	failed *envelope.Error // what Fail was given
}

// Fail ends the command with err, as an error a command returns ends it,
// and returns the exit code for Run to return: once Run has returned, the
// lifecycle answers with err — for a protocol server (Meta.Protocol) on
// stderr, the envelope its last line in JSON mode (REQ-C-032), for any
// other command as it answers every command's failure. An extension that
// prints its own error and returns a code gets no envelope.
func (h *Host) Fail(err error) int {
	h.failed = envelope.As(err)
	if h.failed.Exit == exitcode.Success {
		h.failed.Exit = exitcode.GeneralError // an error cannot succeed
	}
	return int(h.failed.Exit)
}

// LookupEnv reads the environment the invocation was given (see WithEnv).
func (h *Host) LookupEnv(key string) (string, bool) { return h.inv.cfg.lookupEnv(key) }

// Environ returns the environment the invocation was given, as KEY=value.
func (h *Host) Environ() []string { return h.inv.cfg.environ() }

// Path returns the words of the command the invocation runs, from the
// extension's own: ["mcp", "install"] for a group's sub-command.
func (h *Host) Path() []string { return slices.Clone(h.inv.call.node.Path) }

// Args returns the positional arguments of the invocation, already checked
// against the command's declared Args.
func (h *Host) Args() []string { return slices.Clone(h.inv.call.args) }

// Flag returns the last value given to one of the command's flags, and
// whether it was given.
func (h *Host) Flag(name string) (string, bool) {
	return h.inv.call.last(name), h.inv.call.has(name)
}

// FlagValues returns every value given to one of the command's flags, in
// order: a flag given more than once (--env A --env B).
func (h *Host) FlagValues(name string) []string { return slices.Clone(h.inv.call.values[name]) }

// extensionNodes adds the extensions' commands to the tree Prepare completes.
func extensionNodes(root *schema.Command, exts []Extension) {
	for _, e := range exts {
		old := root.Sub(e.Command.Name)
		if old != nil && !old.Passthrough {
			continue
		}
		n := extensionNode(e.Command)
		if i := slices.Index(root.Commands, old); i >= 0 {
			root.Commands[i] = n
		} else {
			root.Commands = append(root.Commands, n)
		}
	}
}

// extensionNode copies c and its sub-commands, built-in: the tree must not
// share the caller's slices. A command runs unless it is a group.
func extensionNode(c schema.Command) *schema.Command {
	n := c
	n.Flags = slices.Clone(n.Flags)
	n.Args = slices.Clone(n.Args)
	for i := range n.Flags {
		n.Flags[i].Builtin = true
	}
	n.Commands = nil
	for _, s := range c.Commands {
		n.Commands = append(n.Commands, extensionNode(*s))
	}
	n.Builtin, n.Runnable = true, len(n.Commands) == 0
	return &n
}

// extension returns the extension whose command, or sub-command, the
// call chose, if any.
func (inv *invocation) extension() *Extension {
	n := inv.call.node
	for n.Parent != nil && n.Parent != inv.root {
		n = n.Parent
	}
	if !n.Builtin || n.Parent != inv.root || !inv.call.node.Runnable {
		return nil
	}
	for i, e := range inv.cfg.extensions {
		if e.Command.Name == n.Name {
			return &inv.cfg.extensions[i]
		}
	}
	return nil
}

// extend runs an extension's command under the invocation's signals.
func (inv *invocation) extend(parent context.Context, e *Extension) int {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	ctx = inv.startSession(ctx)
	defer inv.endSession()
	got := make(chan os.Signal, 1)
	go func() {
		for {
			select {
			case s := <-inv.sigs:
				if s != syscall.SIGPIPE {
					got <- s
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	cfg := inv.cfg
	h := &Host{
		App: inv.fw, Version: cfg.version,
		Stdin: cfg.stdin, Stdout: cfg.stdout, Stderr: cfg.stderr,
		inv: inv,
	}
	code := e.Run(ctx, h)
	cancel()
	select {
	case s := <-got:
		switch {
		case code == 0 && inv.protocol: // a server the client stopped: the envelope ends stderr (REQ-C-032)
			return inv.finish(cancelled(s))
		case code == 0:
			return int(cancelled(s).Exit)
		}
	default:
	}
	if h.failed != nil {
		return inv.finish(h.failed)
	}
	return code
}
