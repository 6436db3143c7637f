package adapters

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// Names of the discovery built-ins: the commands the CLI Agent Spec asks
// every tool for, beside describe. Each is added under the root unless the
// app has a command of that name already: an app's own doctor or status is
// the app's.
const (
	manifestCommand = "manifest" // the spec's ManifestResponse, exactly
	doctorCommand   = "doctor"   // Duet's checks, the app's (WithCheck) and its dependencies (WithDependency)
	statusCommand   = "status"   // the tool's state files and side effects (WithStateFile, WithSideEffect)
	execCommand     = "exec"     // a JSONL batch of commands, dispatched by the lifecycle
)

// versionShort is the short name of Duet's --version, the spec's -V.
const versionShort = "V"

// isDiscoveryCommand reports whether arg names a discovery built-in, for the
// plain fast path: a command line with one is read.
func isDiscoveryCommand(arg string) bool {
	switch arg {
	case manifestCommand, doctorCommand, statusCommand, execCommand:
		return true
	}
	return false
}

func isDiscoveryFlag(name string) bool {
	switch name {
	case flagname.PrintSchema, flagname.OutputSchema, flagname.StableOutput, flagname.Stream, flagname.NoStream,
		flagname.TokenLimit, flagname.TokenOffset, flagname.TokenCount, flagname.Tokenizer, flagname.SchemaVersion:
		return true
	}
	return false
}

// discoveryFlags are accepted by every command.
func discoveryFlags(cfg *config) []schema.Flag {
	return []schema.Flag{
		{Name: flagname.PrintSchema, Control: true, Type: schema.Boolean, Default: false, Hidden: true, Usage: "the same as --schema"},
		{Name: flagname.OutputSchema, Control: true, Type: schema.Boolean, Default: false, Usage: "print the JSON Schema of this command's data on success, and exit"},
		{Name: flagname.StableOutput, Control: true, Type: schema.Boolean, Default: false, Usage: "the same bytes for the same state: arrays sorted, no request_id, duration_ms 0"},
		{Name: flagname.Stream, Control: true, Type: schema.Boolean, Default: false, Usage: "the same as --format jsonl: items as they come, then a summary line"},
		{Name: flagname.TokenLimit, Control: true, Type: schema.Integer, Default: 0, Usage: "keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit"},
		{Name: flagname.TokenOffset, Control: true, Type: schema.Integer, Default: 0, Usage: "start data this many tokens in (with --token-limit: the next window)"},
		{Name: flagname.TokenCount, Control: true, Type: schema.Boolean, Default: false, Usage: "run the command, and answer only with the tokens its data would take (meta.token_count)"},
		{Name: flagname.Tokenizer, Control: true, Type: schema.String, Enum: cfg.tokenizerNames(), Default: cfg.tokenizerNames()[0], Usage: "the tokenizer --token-limit, --token-offset and --token-count count with"},
	}
}

// discoveryCommandFlags are the flags a command gets from its discovery
// declarations.
func discoveryCommandFlags(c *schema.Command) []schema.Flag {
	if !c.Runnable {
		return nil
	}
	var flags []schema.Flag
	if c.Meta.StreamingDefault {
		flags = append(flags, schema.Flag{Name: flagname.NoStream, Control: true, Type: schema.Boolean, Default: false, Usage: "answer with one envelope instead of streaming JSONL"})
	}
	if c.Versioned() {
		flags = append(flags, schema.Flag{Name: flagname.SchemaVersion, Control: true, Type: schema.Integer, Default: c.DataVersion(),
			Usage: fmt.Sprintf("answer in this major version of the shape of data (%d to %d)", c.MinDataVersion(), c.DataVersion())})
	}
	return flags
}

// checkDiscovery checks c's discovery declarations when the app is wrapped.
func checkDiscovery(c *schema.Command) []error {
	var errs []error
	m := c.Meta
	switch m.OptionPlacement {
	case "", schema.Any, schema.Strict:
	default:
		errs = append(errs, fmt.Errorf("option placement %q is not any or strict", m.OptionPlacement))
	}
	if m.MinSchemaVersion > max(m.SchemaVersion, 1) {
		errs = append(errs, fmt.Errorf("MinSchemaVersion %d is above SchemaVersion %d", m.MinSchemaVersion, max(m.SchemaVersion, 1)))
	}
	if c.MinDataVersion() < c.DataVersion() && m.Compat == nil {
		errs = append(errs, fmt.Errorf("data versions %d to %d are declared, but no Compat gives the older ones", c.MinDataVersion(), c.DataVersion()))
	}
	if (m.Replacement != "" || m.RemovedIn != "") && m.DeprecatedIn == "" {
		errs = append(errs, fmt.Errorf("Replacement or RemovedIn is declared without DeprecatedIn"))
	}
	return append(errs, checkDelegation(c)...)
}

// discoveryNodes adds the discovery built-ins the app has no command for.
func discoveryNodes(root *schema.Command) {
	for _, n := range []*schema.Command{manifestNode(), doctorNode(), statusNode(), execNode()} {
		if root.Sub(n.Name) == nil {
			root.Commands = append(root.Commands, n)
		}
	}
}

func builtinCommand(name, usage string, danger schema.Danger, flags []schema.Flag, examples ...schema.Example) *schema.Command {
	for i := range flags {
		flags[i].Builtin = true
	}
	return &schema.Command{
		Name: name, Usage: usage, Runnable: true, Builtin: true, NoArgs: true, Flags: flags,
		Meta: schema.Meta{Danger: danger, NoArgs: true, Examples: examples},
	}
}

func manifestNode() *schema.Command {
	return builtinCommand(manifestCommand, "Print every command of this tool as the CLI Agent Spec's manifest", schema.Safe,
		[]schema.Flag{{Name: flagname.Etag, Type: schema.String, Usage: "the etag of a manifest you hold: answer not_modified when it is current"}},
		schema.Example{Description: "the whole command tree, once", Command: "manifest"})
}

func doctorNode() *schema.Command {
	return builtinCommand(doctorCommand, "Check what this tool needs to work, and say how to fix what is missing", schema.Safe, nil,
		schema.Example{Description: "every check, with a fix for each that fails", Command: "doctor"})
}

func statusNode() *schema.Command {
	return builtinCommand(statusCommand, "Show the files this tool keeps state in and writes to", schema.Safe,
		[]schema.Flag{
			{Name: flagname.ShowSideEffects, Type: schema.Boolean, Default: false, Usage: "list the paths the tool writes to, with their sizes"},
			{Name: flagname.ShowStateFiles, Type: schema.Boolean, Default: false, Usage: "list the files that hold the tool's state, with a summary of each"},
		},
		schema.Example{Description: "the state files alone", Command: "status --show-state-files"})
}

func execNode() *schema.Command {
	n := builtinCommand(execCommand, "Run a JSONL batch of commands from stdin, one answer per line", schema.Safe,
		[]schema.Flag{
			{Name: flagname.IgnoreErrors, Type: schema.Boolean, Default: false, Usage: "go on after a line fails (by default the batch stops at the first failure)"},
			{Name: flagname.DryRun, Type: schema.Boolean, Default: false, Usage: "pass --dry-run to every line whose command implements it"},
		},
		schema.Example{Description: "a batch, one answer per line", Command: "exec --format jsonl < ops.jsonl"})
	n.Meta.Timeout = schema.NoTimeout // each line has its command's own limit
	n.Meta.Streaming = true
	return n
}

// discoveryAction returns the action of a discovery built-in, or nil.
func (inv *invocation) discoveryAction(node *schema.Command) func(context.Context) error {
	if !node.Builtin || node.Parent == nil || node.Parent.Parent != nil {
		return nil
	}
	switch node.Name {
	case manifestCommand:
		return inv.manifest
	case doctorCommand:
		return inv.doctor
	case statusCommand:
		return inv.status
	case execCommand:
		return inv.exec
	}
	return nil
}

// printVersion answers --version. Duet's own prints the spec's one line,
// `tool 1.2.3`. An app that gave its framework a version has the
// framework's --version, which prints `tool version 1.2.3`: that it keeps,
// as it printed before it adopted Duet.
func (inv *invocation) printVersion(w io.Writer) {
	if inv.root.Version != "" { // the framework's line, with the framework's name for the app
		fmt.Fprintf(w, "%s version %s\n", inv.fw.Name(), inv.root.Version)
		return
	}
	fmt.Fprintf(w, "%s %s\n", inv.root.Name, inv.version())
}

// versionFlag is Duet's --version, with -V unless the root has a flag of
// that short name.
func versionFlag(root *schema.Command) schema.Flag {
	f := schema.Flag{Name: flagname.Version, Short: versionShort, Control: true, Type: schema.Boolean, Default: false, Usage: "print the version, as: tool 1.2.3"}
	for _, g := range root.Flags {
		if g.Short == versionShort || g.Name == versionShort || slices.Contains(g.Aliases, versionShort) {
			f.Short = ""
		}
	}
	return f
}
