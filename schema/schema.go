// Package schema is Duet's framework-neutral model of a command tree, and the
// JSON Schema documents made from it.
//
// An adapter translates a urfave/cli or cobra app into a tree of [Command]s
// once, before anything runs; from then on validation, --schema, describe and
// the MCP tools all read the same tree, so no two of them can disagree. The
// author adds what a framework cannot express — danger, list, declared output,
// enums, examples, exit codes — as a [Meta] attached with the adapter's
// Annotate.
package schema

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duet-cli/duet/exitcode"
)

// Danger is how much a command can change.
type Danger string

// The danger levels of the spec, and Unknown: what a command that declares
// none may do. An app adopting Duet starts with every command Unknown, and
// Unknown is never taken for Safe — not by describe, --schema or MCP hints.
const (
	Safe        Danger = "safe"        // reads only
	Mutating    Danger = "mutating"    // creates or modifies state; runs unasked, reports its effect
	Destructive Danger = "destructive" // deletes or irreversibly changes state; needs --yes where nobody can be asked, and must offer --dry-run
	Unknown     Danger = "unknown"     // not declared: it may do anything
)

// Audience says who a command is for.
type Audience string

// The audiences a command can be marked for. The zero value means both.
const (
	Everyone  Audience = ""
	HumanOnly Audience = "human"
	AgentOnly Audience = "agent"
)

// NoTimeout, as [Meta.Timeout], runs a command without a default time limit.
const NoTimeout time.Duration = -1

// DefaultTimeout is the time limit of a command that declares none.
const DefaultTimeout = 30 * time.Second

// Meta is what a command author declares about a command beyond what the CLI
// framework knows.
type Meta struct {
	Danger    Danger
	List      bool           // returns a list: gets --limit, --cursor and meta.pagination
	Output    Source         // the JSON Schema of data on success: Of[T]() or a Schema
	Examples  []Example      //
	ExitCodes exitcode.Table // merged over exitcode.Defaults()
	// ResultExits are exit codes with which the command says what it
	// found rather than that it failed — diff's 1, "the inputs differ" —
	// each declared in ExitCodes. A script gets the code as ever; an agent
	// gets it too (ok is false, as the spec ties ok to exit 0) with the
	// entry's name as error.code and what the command printed as data.
	ResultExits []exitcode.Code
	Timeout     time.Duration // 0: DefaultTimeout; NoTimeout: none
	Audience    Audience      //
	Confirm     bool          // ask before running even if not destructive
	// DryRun declares that the command implements --dry-run: given it, the
	// command changes nothing, reads envelope.Output.DryRun and reports the
	// effect it would have. Only a command that declares it gets the flag;
	// a destructive command must.
	DryRun      bool
	Interactive bool // reads from a person; not a tool unless Tool says so
	// RequiresPerson declares a command only a person may confirm, such as
	// approving what an agent proposed (REQ-C-036): at a terminal the
	// person types Attest back before it runs; anywhere else it answers
	// PERSON_REQUIRED (exit 4), and no flag, --yes included, stands in for
	// the person. It must be Interactive, and is never an MCP tool. It is
	// a speed bump and an honest record, not a security boundary.
	RequiresPerson bool
	// Attest is what the person types to confirm; "" means the command's
	// words and its arguments, as they were given ("space close s3").
	Attest string
	Tool   ToolMode // whether it is served as an MCP tool
	// LongRunning marks a command that runs until it is stopped, or for
	// long: a checker sends it signals rather than waits for it.
	LongRunning bool
	// Protocol names what the command speaks on stdin and stdout instead
	// of answering with an envelope, such as "mcp" for a server.
	Protocol string
	Flags    map[string]FlagMeta
	// Args declares the positional arguments, when the framework declares
	// none. NoArgs declares that there are none, so that one given is
	// refused before the command runs; without either, a command may take
	// any (the framework, or the command itself, judges them).
	Args   []Arg
	NoArgs bool
	Groups []Group

	// Auth, trust and safety (issue 16).

	// Auth marks a command that acquires credentials, such as a login: it
	// gets --headless and --token-env-var, and is refused where it would
	// need a browser and has no token.
	Auth *Auth
	// Scopes are the permissions the command needs of the active
	// credential, the most critical first, and no more. A command that
	// authenticates (see Command.NeedsCredentials) must declare them —
	// []string{} for none; any other declared command needs none. With
	// adapters.WithPermissions, a command whose scopes are not granted is
	// refused before it runs.
	Scopes []string
	// SafeDefault makes the dry run the command's default: it changes
	// anything only when given --live. It needs DryRun.
	SafeDefault bool
	// ConfirmFlag names a boolean flag of the command or the root, without
	// its dashes ("yes"), that confirms execution (REQ-O-048): without it
	// the command runs as a dry run and prompts for nothing; with it it
	// runs, and --dry-run still wins. It needs DryRun, a mutating or
	// destructive command, and no SafeDefault.
	ConfirmFlag string
	// Idempotent declares that a repeat with the same arguments converges
	// on the same state, whatever a previous attempt left behind (REQ-C-002):
	// an agent may rerun it once after a partial failure. It does not
	// replace --idempotency-key, which the command still accepts.
	Idempotent bool
	// ConfigWrite declares that the command writes configuration, and
	// which by default; it gets --global, which a GlobalConfig command
	// must be given.
	ConfigWrite ConfigScope
	// Platforms are the operating systems (GOOS names) the command runs
	// on; none means all. Elsewhere it is refused before it runs.
	Platforms []string
	// Tools are the programs the command runs, by name, each with the
	// least version it needs ("*", or "", for any: doctor then looks it up
	// on PATH and never runs it): one missing from PATH refuses the command
	// before it runs. How each is installed, the fix doctor gives, is
	// adapters.WithToolInstall.
	Tools map[string]string
	// Network marks a command that does network I/O: it gets --proxy and
	// --no-proxy, which package nethttp's client follows.
	Network bool
	// SideEffects are the files and directories the command may write
	// besides its answer: caches, logs, temporary files, credentials,
	// configuration.
	SideEffects []SideEffect
	// Untrusted marks a command whose data comes from outside the tool —
	// files, web pages, API responses — and may carry instructions meant
	// for an agent: its data is tagged untrusted (see
	// envelope.Output.External), unless --no-injection-protection is given.
	Untrusted bool
	// discovery: the command's history and conventions (see discovery.go).
	IntroducedIn     string                                   // the tool version that added the command
	DeprecatedIn     string                                   // the version that deprecated it: it still runs, and warns
	Replacement      string                                   // what to call instead once deprecated, as a command line ("tool new-sub")
	RemovedIn        string                                   // the version that is to remove it
	OptionPlacement  Placement                                // Any (the default) or Strict; Strict for a passthrough command
	Streaming        bool                                     // emits items as they come (envelope.Output.Item): --stream
	StreamingDefault bool                                     // streams unasked: JSONL by default, --no-stream for one envelope
	SchemaVersion    int                                      // the current major version of the shape of data; 0 means 1
	MinSchemaVersion int                                      // the oldest version --schema-version still gives; 0 means SchemaVersion
	Compat           func(version int, data any) (any, error) // reshapes current data into an older version's shape
	SortKey          string                                   // the member that orders lists of objects in data; declared, every array of data is sorted (F-020)
	// Arguments says who parses the command's arguments (REQ-C-031):
	// PassthroughArguments hands every token after the command's path,
	// verbatim, to another tool's parser (see adapters.Delegate).
	// Not Command.Passthrough, which is a command the framework answers
	// outside the contract: a passthrough command still answers with an
	// envelope, on the last line of stderr.
	Arguments Arguments
	// HelpArgv is what a passthrough command forwards in place of a lone
	// --help or -h after its path, such as {"extract", "--help"}.
	HelpArgv []string
	// seeing what happened, and nobody to ask (issue 16: observe)

	// Prompts declares that the command may ask a person a question
	// (adapters.Prompt, adapters.Confirm): it gets --yes, which answers
	// yes, and --non-interactive, which refuses to ask.
	Prompts bool
	// Editor declares that the command opens $EDITOR or $VISUAL when none
	// of Alternatives, the flags that take the editor's place (such as
	// "message"), is given; where nobody is at a terminal one must be.
	Editor       bool
	Alternatives []string
	// GUI lists what the command shows on a display, such as
	// "browser_open" (see adapters.Open), and Headless what it does
	// instead where there is none.
	GUI      []string
	Headless HeadlessBehavior
	// HighEntropy names fields of data (at any depth) that hold secrets
	// or tokens: masked for an agent unless --unmask is given, whatever
	// their content.
	HighEntropy []string
	// Retries declares that the command retries failed work itself, up to
	// this many times by default, RetryDelay apart: it gets --retries and
	// --retry-delay (see envelope.Output.Retry).
	Retries    int
	RetryDelay time.Duration
	// long work

	// Steps is the step manifest of a command whose work is a sequence of
	// named steps, each run with envelope.Output.Step in this order:
	// --schema lists them, the command gets --resume-from, and its answer
	// reports the steps completed, failed and skipped.
	Steps []string
	// Rollback declares that the command registers how to undo its steps
	// (envelope.Output.Undo): it gets --rollback-on-failure.
	Rollback bool
	// Async declares a command whose work outlives the invocation: it
	// answers at once with a job descriptor, and the work goes on in a
	// detached process that `job status` follows.
	Async bool
	// Interruption declares how the command's work survives the caller's
	// call budget (CLI Agent Spec §79, REQ-C-033): with Detach, a call that
	// runs out of budget hands the work to a background job and answers
	// INCOMPLETE (14), and the same call, or `job wait`, picks it up; with
	// Resume, the work checkpoints and the same call continues it.
	Interruption *Interruption
	// input: what the command reads beyond its flags and arguments.
	//
	// Stdin declares that the command reads a payload on stdin, and says
	// what it is ("JSON lines, one to-do each"): the command gets
	// --input-file, and the lifecycle reads stdin before the command runs,
	// within a size cap (see package input).
	Stdin string
	// StdinLines declares line mode: the command reads its payload one line
	// at a time with input.From(ctx).Lines, as the lines arrive — NDJSON
	// piped from another command, say. Nothing is read before it runs and
	// there is no total cap (the 64 KiB cap is for a payload read whole);
	// each line is capped instead, at MaxLineBytes. Stdin says what a line
	// is.
	StdinLines bool
	// MaxLineBytes caps one line in line mode; 0 is 1 MiB
	// (DefaultMaxLineBytes).
	MaxLineBytes int
	// Records declares a records consumer: line mode whose lines are the
	// jsonl stream of another command, read with input.From(ctx).Records,
	// each item a record of this JSON Schema (the manifest's
	// stdin.record_schema), the stream's own lines — numbering, heartbeats,
	// its summary or error — handled by Duet.
	Records Schema
	// RawPayload declares that the command also takes all its inputs as
	// one JSON object, --raw-payload '{"title":"x"}' standing for the
	// flags and arguments it names.
	RawPayload bool
	// Traverses declares that the command walks directory trees with
	// package walk: it gets --no-follow-symlinks and --max-depth.
	Traverses bool
	// Requires are the conditional dependencies between the command's
	// flags, checked before it runs and listed by --schema.
	Requires []Rule
	// Validate checks the input beyond what the declarations above can say
	// — that two flags agree, that a name is free, that every line of the
	// payload is a valid record — before anything runs, with
	// --validate-only too (phase 1), so that a validation answers exactly
	// what the real run would. It runs last of phase 1, once the payload
	// is read: ctx carries what the command's would, the payload
	// (input.From) and the Output (envelope.From: its mode, its paths, its
	// warnings). It must change nothing: a hook that reports an effect,
	// keeps a file or records a result through the Output is refused as
	// the tool's bug. It returns every problem at once (envelope.Invalid),
	// one validation error, or another error to answer with, such as
	// NOT_FOUND; its problems are reported beside those the declarations
	// found, but for an input a declaration refused already.
	//
	// Checks a command makes in its action instead are not phase 1:
	// --validate-only never sees them, and one that fails after a change
	// the lifecycle sees (an effect reported, a file kept, a program
	// started, a declared file written) exits 1, not 2
	// (EXIT_2_AFTER_CHANGE); a change it does not see — a file written
	// with package os to a path not declared — leaves a false exit 2.
	Validate func(ctx context.Context, in Input) error

	// child processes (proc)
	// Subprocess names the program the command runs with the values of its
	// flags and arguments marked Subprocess; it must be declared when one is.
	Subprocess Subprocess
	// PreserveLocale keeps the locale of the programs the command starts
	// through package proc, which otherwise run with LC_ALL=C.
	PreserveLocale bool
	// Background declares that the command starts a process meant to
	// outlive it (proc.Cmd.Background), and how that process is stopped.
	Background *Background
	// ChildLog declares that the command streams a wrapped program's log
	// to stderr as plain text, line by line (ansible-playbook, terraform
	// apply: the output a person reads later), through
	// envelope.Output.ChildLog: auto-quiet, --verbose and --debug leave it
	// streaming, --quiet still silences it, and stdout still holds only the
	// envelope (REQ-F-038, the manifest's stderr: "child_log"). Without
	// it, ChildLog writes only where a person watches stderr. A protocol
	// server cannot declare it: its streams are its protocol's.
	ChildLog bool
}

// Subprocess declares the program a command passes input to (see
// [Meta.Subprocess]). The flags and arguments whose values are passed are
// marked Subprocess; their values are refused before the command runs when
// they hold a shell metacharacter.
type Subprocess struct {
	Binary    string   // the program's name, such as "git"
	Hardcoded []string // arguments always passed as they are, such as "--no-pager"
}

// Background declares that a command starts a process meant to outlive it,
// as a server or a watcher (see [Meta.Background]).
type Background struct {
	// CleanupCommand is the command that stops the process, such as
	// "tool watcher stop"; required.
	CleanupCommand string
	// MaxLifetime is how long the process may run, after which it may be
	// killed; required.
	MaxLifetime time.Duration
}

// HeadlessBehavior is what a command that shows something on a display
// does where there is none.
type HeadlessBehavior string

// The headless behaviours of the CLI Agent Spec (C-024).
const (
	EmitInOutput HeadlessBehavior = "emit_in_output" // answer with data.open_url or data.open_path instead
	SkipHeadless HeadlessBehavior = "skip"           // leave it out, with a warning
	FailHeadless HeadlessBehavior = "error"          // refuse: exit 4
)

// Interruption is how a command's work outlives one call (REQ-C-033).
type Interruption struct {
	// Detach hands the work to a background job when the call's budget
	// runs out; the job runs to its end, bounded by MaxLifetime or
	// --timeout.
	Detach bool
	// Resume declares that the command saves its state at safe points
	// (envelope.Output.Restore and Checkpoint, REQ-C-035), so that the
	// identical call continues where the last one saved. Without Detach,
	// a call whose budget runs out stops at the next checkpoint and
	// answers INCOMPLETE (14), paused; with it, a lost job's rerun resumes.
	Resume bool
	// IdleTimeout ends a background job that reports no progress for this
	// long; 0 means no limit.
	IdleTimeout time.Duration
	// MaxLifetime bounds the work: it is the command's time limit when no
	// --timeout is given, in place of Timeout — of a call that waits for
	// the work (--budget 0) and of a background job; 0 leaves the limit to
	// Timeout.
	MaxLifetime time.Duration
}

// ToolMode says whether a command is served as an MCP tool (see adapters/mcp).
type ToolMode int

// The ways a command can be served over MCP.
const (
	// ToolAuto serves a runnable command that agents see and that is not
	// interactive; Duet's own commands never are tools.
	ToolAuto   ToolMode = iota
	ToolAlways          // a tool even if it is for people only or interactive
	ToolNever           // never a tool
)

// FlagMeta adds constraints to a framework flag, by name.
type FlagMeta struct {
	Enum      []string
	Pattern   string
	ID        bool     // a resource id: hallucinated values such as "<id>" or "../x" are refused
	Sensitive bool     // never printed, logged or saved
	Env       []string // environment variables that supply the value when the command line does not
	Profile   bool     // may be saved in a profile (see package profile)
	// input: JSON marks a value that is a JSON document, handed to the
	// command as strict JSON (JSON5 is read too in an app with
	// feature/json5). Pipe lets "-" stand for a
	// value read from stdin, one per line.
	JSON bool
	Pipe bool
	// Schema declares a flag that takes one JSON object, given as one
	// argv token of JSON text (--filter '{"status":"open"}'): the JSON
	// Schema of the value, a Schema or Of[T](). It implies JSON (handed on
	// as strict JSON); the value is checked against it
	// before the command runs, and the manifest lists the flag as type
	// "object" with this schema (the CLI Agent Spec's C-015). Only a
	// string flag takes it, and the schema may use only the keywords
	// Schema.Match judges.
	Schema Source

	// child processes (proc)
	Subprocess bool // the value is passed to the program of Meta.Subprocess: shell metacharacters are refused
	// discovery: the largest value, in bytes, the field the flag writes
	// holds; a longer value is refused before the command runs.
	MaxBytes int
	// files: Path marks a value that is a file the command reads or
	// writes, and where it may lie when an MCP tool call gives it.
	Path PathScope
}

// PathScope is where the file a flag names may lie when the command runs
// as an MCP tool. Unset, anywhere, as on the command line; a tool acts for
// whoever reaches the server, so a flag whose value is a file the command
// reads or writes is marked InProject (Duet's own --input-file is).
type PathScope string

// InProject confines the file to the server's project directory: a path
// outside it, through a symbolic link too, is refused.
const InProject PathScope = "project"

// Example is one invocation shown in help, --schema and describe.
type Example struct {
	Description string `json:"description"`
	Command     string `json:"command"`
}

// GroupKind is a relation between flags.
type GroupKind string

// The flag relations a command can declare.
const (
	MutuallyExclusive GroupKind = "mutually_exclusive" // at most one
	RequiredTogether  GroupKind = "required_together"  // all or none
	OneRequired       GroupKind = "one_required"       // at least one
)

// Group is a relation between flags, checked in validation.
type Group struct {
	Kind  GroupKind `json:"kind"`
	Flags []string  `json:"flags"`
}

// Type is a JSON Schema type name.
type Type string

// The JSON Schema types flags and arguments take.
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Array   Type = "array"
	Object  Type = "object"
)

// Flag is one flag of a command.
type Flag struct {
	Name       string
	Short      string // one character, if any
	Aliases    []string
	Type       Type
	Items      Type   // element type of an array, or value type of an object
	Format     string // JSON Schema format: "duration", "date-time"
	Usage      string
	Default    any // nil when the flag has no default
	Required   bool
	Enum       []string
	Pattern    string
	ID         bool
	Sensitive  bool
	Env        []string // environment variables the framework reads the value from
	Hidden     bool
	Builtin    bool // added by Duet, not by the app
	Persistent bool // also accepted by every subcommand
	Count      bool // a counting bool flag (-vvv)
	// Control marks a switch of the CLI itself rather than an input of the
	// command (--output, --schema, --quiet): an MCP tool, whose answer has
	// one shape, does not take it.
	Control bool
	Profile bool // may be saved in a profile
	// Deprecated, when set, says what to use instead; the framework warns
	// when the flag is given.
	Deprecated string
	// input: "-" stands for values read from stdin (FlagMeta.Pipe).
	Pipe bool
	// Schema is the JSON Schema of an object flag's value (FlagMeta.Schema).
	Schema Schema

	// child processes (proc)
	Subprocess bool // the value is passed to a program: shell metacharacters are refused
	// discovery: see FlagMeta.MaxBytes.
	MaxBytes int
	Path     PathScope // a file, and where an MCP tool call may name it (FlagMeta.Path)
}

// deprecated appends what to use instead to a description, when the thing
// described is deprecated.
func deprecated(usage, instead string) string {
	if instead == "" {
		return usage
	}
	return strings.TrimSpace(usage + " (deprecated: " + instead + ")")
}

// TakesValue reports whether the flag consumes a value on the command line.
func (f *Flag) TakesValue() bool { return f.Type != Boolean && !f.Count }

// Names returns the flag's long name and aliases.
func (f *Flag) Names() []string { return append([]string{f.Name}, f.Aliases...) }

// Arg is one positional argument.
type Arg struct {
	Name     string   `json:"name"`
	Usage    string   `json:"description,omitempty"`
	Required bool     `json:"required"`
	Variadic bool     `json:"variadic,omitempty"`
	Type     Type     `json:"type"`
	Enum     []string `json:"enum,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`
	ID       bool     `json:"id,omitempty"`
	// input: "-" stands for values read from stdin, one per line.
	Pipe bool `json:"pipe_compatible,omitempty"`

	// child processes (proc)
	Subprocess bool `json:"subprocess,omitempty"` // the value is passed to a program: shell metacharacters are refused
}

// Command is one command of the tree.
type Command struct {
	Name        string
	Path        []string // names from the first subcommand down; empty for the root
	Aliases     []string
	Usage       string
	Description string
	Flags       []Flag // the command's own flags, built-ins included
	Args        []Arg
	Meta        Meta
	Commands    []*Command
	Parent      *Command
	Hidden      bool
	Runnable    bool // has an action of its own; a group without one shows help
	Builtin     bool // added by Duet (describe)
	// Declared marks a command the app declared to Duet (the adapter's
	// Annotate): a ported command, which answers through envelope.Output
	// and is held to the contract for every audience.
	Declared bool
	// NoArgs marks a command known to take no positional arguments
	// (Meta.NoArgs, cobra.NoArgs); one with no Args and without it may
	// take any.
	NoArgs bool
	// Deprecated, when set, says what to use instead; the framework warns
	// when the command runs.
	Deprecated string
	// Passthrough marks a command the framework answers itself, outside the
	// contract: shell completion, whose caller is a shell reading the
	// framework's own output. The lifecycle hands it the command line as it
	// came, unvalidated, and writes no envelope.
	Passthrough bool
	Version     string
}

// Under reports whether c is n or one of its descendants.
func (c *Command) Under(n *Command) bool {
	for ; c != nil; c = c.Parent {
		if c == n {
			return true
		}
	}
	return false
}

// DotPath is the command's address in describe and meta.command: "run.spawn"
// for `tool run spawn`, and the tool's name for the root.
func (c *Command) DotPath() string {
	if len(c.Path) == 0 {
		return c.Name
	}
	return strings.Join(c.Path, ".")
}

// Sub returns the direct subcommand called name or one of its aliases.
func (c *Command) Sub(name string) *Command {
	for _, s := range c.Commands {
		if s.Name == name {
			return s
		}
		for _, a := range s.Aliases {
			if a == name {
				return s
			}
		}
	}
	return nil
}

// Find returns the command at a dot path ("run.spawn"), or nil.
func (c *Command) Find(dot string) *Command {
	if dot == "" || dot == c.Name && c.Parent == nil {
		return c
	}
	cur := c
	for _, name := range strings.Split(dot, ".") {
		if cur = cur.Sub(name); cur == nil {
			return nil
		}
	}
	return cur
}

// Accepted yields the flags c accepts: its own, then the persistent flags of
// its ancestors that it does not shadow. They belong to the tree: read them,
// do not change them.
func (c *Command) Accepted() iter.Seq[*Flag] {
	return func(yield func(*Flag) bool) {
		for i := range c.Flags {
			if !yield(&c.Flags[i]) {
				return
			}
		}
		for p := c.Parent; p != nil; p = p.Parent {
			for i := range p.Flags {
				if f := &p.Flags[i]; f.Persistent && !c.shadows(p, f.Name) && !yield(f) {
					return
				}
			}
		}
	}
}

// shadows reports whether c, or an ancestor of c below ancestor, has its own
// flag called name, which then hides ancestor's. Flag lists are short: a scan
// costs less than building a set.
func (c *Command) shadows(ancestor *Command, name string) bool {
	for n := c; n != ancestor; n = n.Parent {
		for _, f := range n.Flags {
			if f.Name == name && (n == c || f.Persistent) {
				return true
			}
		}
	}
	return false
}

// Flag returns the flag c accepts under name (long name, alias or short), or
// nil. The flag belongs to the tree: read it, do not change it.
func (c *Command) Flag(name string) *Flag {
	if name == "" {
		return nil
	}
	for n := c; n != nil; n = n.Parent {
		for i := range n.Flags {
			f := &n.Flags[i]
			if n != c && (!f.Persistent || c.shadows(n, f.Name)) {
				continue
			}
			if f.Name == name || f.Short == name || slices.Contains(f.Aliases, name) {
				return f
			}
		}
	}
	return nil
}

// Walk calls fn for c and every command below it, parents first, in
// declaration order.
func (c *Command) Walk(fn func(*Command)) {
	fn(c)
	for _, s := range c.Commands {
		s.Walk(fn)
	}
}

// VisibleTo reports whether c is shown to an agent (agent true) or a person.
func (c *Command) VisibleTo(agent bool) bool {
	switch c.Meta.Audience {
	case HumanOnly:
		return !agent
	case AgentOnly:
		return agent
	}
	return true
}

// Streams reports whether the command writes a JSONL stream (REQ-O-004),
// always or when asked (Meta.Streaming, Meta.StreamingDefault).
func (c *Command) Streams() bool { return c.Meta.Streaming || c.Meta.StreamingDefault }

// Danger returns the command's danger level: when undeclared, Safe for a
// group that cannot run (it only shows help), else Unknown.
func (c *Command) Danger() Danger {
	switch {
	case c.Meta.Danger != "":
		return c.Meta.Danger
	case !c.Runnable:
		return Safe
	}
	return Unknown
}

// Timeout returns the command's default time limit; 0 means none. A
// command that declares Interruption.MaxLifetime has that: its work may
// outlast a call, and the limit bounds the whole of it (REQ-F-011).
func (c *Command) Timeout() time.Duration {
	if i := c.Meta.Interruption; i != nil && i.MaxLifetime > 0 {
		return i.MaxLifetime
	}
	switch t := c.Meta.Timeout; {
	case t == 0:
		return DefaultTimeout
	case t < 0:
		return 0
	default:
		return t
	}
}

// IsTool reports whether c is served as an MCP tool: by default a runnable
// command of the app (not one of Duet's) that agents see, that is not
// hidden, not interactive and not async. Meta.Tool overrides the default
// either way, except for Duet's own commands and those that cannot run.
func (c *Command) IsTool() bool {
	// A protocol server's stdout is its protocol's, never one answer.
	if !c.Runnable || c.Builtin || c.Passthrough || c.Meta.RequiresPerson || c.Meta.Protocol != "" {
		return false
	}
	switch c.Meta.Tool {
	case ToolAlways:
		return true
	case ToolNever:
		return false
	}
	// An async command answers with a job that only `job status`, one of
	// Duet's own commands and no tool, follows.
	return !c.Hidden && c.VisibleTo(true) && !c.Meta.Interactive && !c.Meta.Async
}

// NeedsConfirmation reports whether c must be confirmed with --yes (or at a
// prompt) before it runs.
func (c *Command) NeedsConfirmation() bool {
	return c.Danger() == Destructive || c.Meta.Confirm
}

// OutputSchema returns the declared schema of the command's data on success,
// or nil when it declares none. An error names what keeps the declared schema
// from being built (see [Reflected.Schema]).
func (c *Command) OutputSchema() (Schema, error) {
	if c.Meta.Output == nil {
		return nil, nil
	}
	s, err := c.Meta.Output.Schema()
	if err != nil {
		return nil, fmt.Errorf("command %q: output schema: %w", c.DotPath(), err)
	}
	if c.Meta.Untrusted {
		s = untrusted(s)
	}
	if c.Meta.Background != nil {
		s = withBackground(s)
	}
	return s, nil
}

// ExitCodes returns the command's declared table merged over the defaults.
// A command that changes nothing changes nothing when it times out either,
// but its TIMEOUT is not retryable unless it declares so: the identical
// call would most often time out again (REQ-C-014, v1.14). The result may
// be shared between commands: do not modify it.
func (c *Command) ExitCodes() exitcode.Table {
	base := mutatingDefaults.get(buildMutatingDefaults)
	if c.Danger() == Safe {
		base = safeDefaults.get(buildSafeDefaults)
	}
	if c.Meta.Interruption != nil {
		base = base.Merge(exitcode.Table{exitcode.Incomplete: incomplete(c.Danger(), c.Meta.Interruption.Detach)})
	}
	if c.Meta.RequiresPerson {
		base = base.Merge(exitcode.Table{exitcode.Precondition: {
			Description: "No person confirmed it at a terminal; nothing was changed. Hand it to a person; never retry it.",
			ErrorCodes:  []string{"PERSON_REQUIRED", "ATTESTATION_MISMATCH"}}})
	}
	if len(c.Meta.ExitCodes) == 0 {
		return base
	}
	return base.Merge(c.Meta.ExitCodes)
}

// The default tables are built once: describe asks for one per command.
var mutatingDefaults, safeDefaults lazy[exitcode.Table]

func buildMutatingDefaults() exitcode.Table { return exitcode.Defaults().Merge(exitcode.Signals()) }

// incomplete is the INCOMPLETE (14) entry of a command that declares
// interruption: the identical call picks the work up where it is, so a
// command that changes nothing may retry it; one that writes has written.
func incomplete(danger Danger, detach bool) exitcode.Entry {
	what := "The call's budget ran out; the work goes on in the background: run data.continue_command."
	if !detach {
		what = "The call's budget ran out; the work stopped at a checkpoint: run data.continue_command to continue it."
	}
	if danger == Safe {
		return exitcode.Entry{Name: "INCOMPLETE", Description: what, Retryable: true, SideEffects: exitcode.None}
	}
	return exitcode.Entry{Name: "INCOMPLETE", Description: what, SideEffects: exitcode.Partial}
}

func buildSafeDefaults() exitcode.Table {
	return buildMutatingDefaults().Merge(exitcode.Table{
		exitcode.Success:      {SideEffects: exitcode.None},
		exitcode.Timeout:      {Description: "The operation exceeded its time limit; nothing was changed; rerun with a larger --timeout.", SideEffects: exitcode.None},
		exitcode.GeneralError: {Description: "An unclassified failure; nothing was changed.", SideEffects: exitcode.None},
		exitcode.Interrupted:  {Description: "Interrupted by SIGINT; nothing was changed.", SideEffects: exitcode.None},
		exitcode.Terminated:   {Description: "Terminated by SIGTERM; nothing was changed.", SideEffects: exitcode.None},
	})
}

// lazy is a value built on its first use. Its zero value is ready, so a
// package variable of it costs nothing when the program starts, where
// sync.OnceValue would run in the package's initialisation of every binary
// that links the package.
type lazy[T any] struct {
	once sync.Once
	v    T
}

func (l *lazy[T]) get(build func() T) T {
	l.once.Do(func() { l.v = build() })
	return l.v
}
