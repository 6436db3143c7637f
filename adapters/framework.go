// Package adapters is the invocation lifecycle every Duet adapter shares.
//
// A framework adapter (adapters/urfave, adapters/cobra) only translates: it
// builds the neutral [schema.Command] tree from the app, reads a command line
// exactly as its framework will ([Framework.Parse]), lets the framework parse
// and dispatch for real, and wraps every action with [Invoke]. Everything
// else happens here, once, so both adapters behave byte for byte alike.
//
// An invocation has one of three audiences (see envelope.Detect):
//
//   - an agent gets the contract: validation with every error at once
//     (phase 1), --schema, describe, confirmation, time limits, signals,
//     exactly one envelope and a typed exit code — also from a command
//     nobody ported, whose stdout is captured into the envelope's data;
//   - a person at a terminal and a script reading a pipe get the app as it
//     was: a command that was not ported runs as if Duet were not there,
//     and a ported one (declared with the adapter's Annotate, or answering
//     through envelope.Output) prints its text rendering.
package adapters

import (
	"context"
	"io"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// Framework is the contract between the lifecycle and an adapter: what an
// adapter's App gives the lifecycle. Besides these methods, an adapter
//
//   - wraps every action of the app with [Invoke], so that the lifecycle
//     answers for a ported command and captures an unported one;
//   - calls [Preset] with the command the framework chose, after the
//     framework has read the command line and before it checks required
//     flags, so that values from the environment and profiles count;
//   - follows [Streams] in Execute: where the framework prints, and
//     whether it may report errors and exit itself.
//
// adaptertest.TestFramework holds an adapter to the whole contract; the
// urfave, urfavev2 and cobra adapters pass it.
type Framework interface {
	// Name returns the tool's name.
	Name() string
	// Options returns the options the app was wrapped with, which every
	// run of it applies before the run's own.
	Options() []Option
	// Declared reports whether the app declares anything to Duet (the
	// adapter's Annotate), without building the tree: an app that does
	// not runs for a person or a script without its command line being
	// read, unless a word of it is Duet's.
	Declared() bool
	// Tree returns the neutral command tree, built-ins included. It is
	// built once, on first use, before the command line is read.
	Tree() *schema.Command
	// Parse reads args as the framework will when it runs them, without
	// running anything: the command it chooses, the flags and arguments
	// that command receives, and the error with which the framework
	// refuses the command line, if it does. It must agree with the
	// framework on every command line the framework accepts.
	Parse(args []string) Parsed
	// Execute lets the framework parse args and run the chosen command. Its
	// actions must be wrapped with [Invoke]; Duet's built-in flags and
	// commands are the framework's own flags and commands, which it accepts
	// and lists in help, and whose values the lifecycle reads from Parse.
	Execute(ctx context.Context, args []string, io Streams) error
	// Classify turns a framework's own error (usage, unknown flag ...) into a
	// structured one, or returns nil when it does not recognise err.
	Classify(err error) *envelope.Error
}

// Parsed is a command line as the framework reads it.
type Parsed struct {
	Node   *schema.Command // the command the framework runs (the one help is for, when Help)
	Values []Value         // the flags the command line sets, in order
	Args   []string        // the positional arguments the command receives
	// Help is set when the command line asks for help instead of running
	// Node: --help, -h, or the framework's help command. A group that
	// cannot run is a Node that is not Runnable: the lifecycle shows its
	// help.
	Help bool
	// Version is set when the framework prints the tool's version.
	Version bool
	// Err is the framework's refusal of the command line (an unknown flag,
	// a flag without its value, an unknown command), worded as the
	// framework words it; Node, Values and Args hold what was read before.
	Err error
}

// Value is one flag given on the command line: the flag, and the text that
// sets it as the framework hands it to the flag (true for a bare boolean).
type Value struct {
	Flag  *schema.Flag
	Value string
}

// HelpAllFlag is the line a person's help shows for the rest of Duet's
// options (see Streams.HideFlag). An adapter gives it to the root as it
// gives Duet's flags; the lifecycle reads --help-all as --help.
func HelpAllFlag() *schema.Flag {
	return &schema.Flag{Name: flagname.HelpAll, Type: schema.Boolean, Builtin: true, Persistent: true,
		Usage: "show help with every option, Duet's for agents and scripts too (--format, --schema, --timeout …)"}
}

// Streams is how the framework is run.
//
// Answer is set when the lifecycle answers for the command (an agent, a
// ported command): the framework must then print no error and no usage of
// its own, and call no exit handler — its errors are returned, for the
// lifecycle to report. Otherwise the app runs as it would without Duet: the
// framework keeps the error printing, usage and exit handling the app gave
// it.
//
// AppMain is set when the app's own main reports the error Execute returns
// (see [Exec]): then the framework prints nothing beyond what it prints
// itself, and keeps the exit handling the app gave it; otherwise an error
// it returns is reported as an app's main conventionally does.
//
// A nil writer leaves the framework's as the app set it (the process's own
// streams, as Main runs); a writer given replaces it: Stdout for output,
// Stderr for diagnostics, Help for help text.
//
// Builtins is set when help lists Duet's built-in flags and commands: for
// an agent and for a ported command. For a person or a script running a
// command nobody ported they are left out, so that the app's help stays
// as it was, byte for byte. Hide tells the framework which commands to
// leave out of help (those an agent does not see, when an agent asks).
// Listing is set when the run shows help (--help, or a group that only
// shows its own): Duet's built-ins are listed only then, and otherwise
// stay hidden though accepted, so that what the app itself reads of its
// command tree — a man page or docs generator — is its own.
type Streams struct {
	Answer   bool
	AppMain  bool
	Builtins bool
	Listing  bool
	// HideFlag says which of Duet's built-in flags help leaves out, nil
	// none: a person's help lists the app's own flags, the few Duet flags
	// a person uses (--dry-run, --yes, --limit …) and one line,
	// --help-all, that lists the rest; an agent's lists them all.
	HideFlag func(*schema.Flag) bool
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	Help     io.Writer
	Hide     func(*schema.Command) bool
}
