package adapters

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// describeCommand is the name of the built-in command that prints the tree,
// and the flags after it its own: by default it answers with the compact
// manifest, --full with every command's whole document, --index with one
// line per command.
const (
	describeCommand = "describe"
)

// defaultLimit is the page size of a list command without --limit.
const defaultLimit = 20

// isBuiltinFlag reports whether name is the name of one of Duet's built-in
// flags, on any command.
func isBuiltinFlag(name string) bool {
	switch name {
	case flagname.Format, flagname.Output, flagname.Schema, flagname.Human, flagname.Quiet, flagname.Verbose, flagname.Timeout, flagname.ValidateOnly,
		flagname.Fields, flagname.Yes, flagname.ConfirmDestructive, flagname.DryRun, flagname.Limit, flagname.Cursor, flagname.Version, flagname.ShowConfig, flagname.Profile,
		flagname.Etag, flagname.AgentsMD, flagname.MCP, flagname.Full, flagname.Index:
		return true
	}
	return isObservedFlag(name) || isDiscoveryFlag(name) || isTrustFlag(name) || isWidthFlag(name)
}

// globalFlags are accepted by every command.
func globalFlags(cfg *config) []schema.Flag {
	return append([]schema.Flag{
		{Name: flagname.Format, Control: true, Type: schema.String, Enum: envelope.FormatNames(cfg.featured.formats...), Usage: formatUsage(cfg.featured.formats)},
		{Name: flagname.Schema, Control: true, Type: schema.Boolean, Usage: "print this command's input and output schema, exit codes and examples, and exit", Default: false},
		{Name: flagname.Quiet, Control: true, Type: schema.Boolean, Usage: "no progress and no diagnostics but errors", Default: false},
		{Name: flagname.Verbose, Control: true, Type: schema.Boolean, Usage: "debug diagnostics on stderr", Default: false},
		{Name: flagname.Human, Control: true, Type: schema.Boolean, Usage: "show every command in help and describe, whatever the audience", Hidden: true, Default: false},
		{Name: flagname.ShowConfig, Control: true, Type: schema.Boolean, Usage: "print the value of every flag of this command and where it comes from, and exit", Default: false},
	}, append(append(observedGlobalFlags(), trustGlobalFlags()...), widthGlobalFlags()...)...)
}

// allGlobalFlags are globalFlags and those of the discovery built-ins.
func allGlobalFlags(cfg *config) []schema.Flag {
	return append(globalFlags(cfg), discoveryFlags(cfg)...)
}

// formatUsage is --format's usage, a feature's formats among them.
func formatUsage(extra []envelope.Format) string {
	return "the answer's format: " + describe.FormatSentence(envelope.FormatNames(extra...)) + " (default: json for an agent, text otherwise)"
}

// commandFlags appends the built-ins a runnable command gets from its
// declarations. Those marked Control change the answer's shape (--fields
// projects it, --validate-only leaves it out), which an MCP tool's declared
// output cannot follow; the rest are inputs of the command.
func commandFlags(flags []schema.Flag, c *schema.Command, features []Feature) []schema.Flag {
	if !c.Runnable {
		return flags
	}
	timeout := "0s"
	if t := c.Timeout(); t > 0 {
		timeout = t.String()
	}
	if c.Meta.Protocol == "" { // a server's stdout is its protocol's: no answer to write (REQ-C-032)
		flags = append(flags, schema.Flag{Name: flagname.Output, Control: true, Type: schema.String,
			Usage: "write the answer to this file, in the --format representation, instead of stdout, which then says what was written"})
	}
	flags = append(flags, []schema.Flag{
		{Name: flagname.Timeout, Type: schema.String, Format: "duration", Default: timeout, Usage: "give up after this long, e.g. 90s or 5m; 0 means never"},
		{Name: flagname.ValidateOnly, Control: true, Type: schema.Boolean, Default: false, Usage: "validate the input and exit without running"},
		{Name: flagname.Fields, Control: true, Type: schema.Array, Items: schema.String, Usage: "comma-separated top-level fields to keep in data"},
	}...)
	if c.NeedsConfirmation() {
		flags = append(flags, schema.Flag{Name: flagname.Yes, Type: schema.Boolean, Default: false, Usage: "confirm: run without asking"})
	}
	if c.Danger() == schema.Destructive {
		flags = append(flags, schema.Flag{Name: flagname.ConfirmDestructive, Type: schema.Boolean, Default: false, Usage: "the same as --yes: confirm a destructive run"})
	}
	// Only a command that declares it implements --dry-run gets it: a flag
	// the command ignored would act while promising not to.
	if c.Meta.DryRun {
		flags = append(flags, schema.Flag{Name: flagname.DryRun, Type: schema.Boolean, Default: false, Usage: "report what would change and change nothing"})
	}
	if c.Meta.List {
		flags = append(flags,
			schema.Flag{Name: flagname.Limit, Type: schema.Integer, Default: defaultLimit, Usage: "return at most this many items; 0 means all"},
			schema.Flag{Name: flagname.Cursor, Type: schema.String, Usage: "continue from meta.pagination.next_cursor of a previous response"})
	}
	json5 := slices.ContainsFunc(features, func(f Feature) bool { _, ok := f.(JSONReader); return ok })
	flags = inputFlags(flags, c, json5) // input: --input-file, --raw-payload, --no-follow-symlinks, --max-depth
	flags = workFlags(flags, c)
	flags = append(flags, observedCommandFlags(c)...)
	flags = append(flags, trustFlags(c)...)
	flags = append(flags, cacheFlags(c)...)
	return featureFlags(flags, c, features)
}

// Prepare completes a tree an adapter built from an app: it sets parents and
// paths, merges flag declarations from each command's Meta, adds the built-in
// flags and the describe command, and checks every declaration. It fails with
// every problem found, each naming its command, so a broken declaration is
// caught when the app is wrapped rather than when an agent first calls it.
// Subcommands are put in name order. Of opts, the same options the adapter's
// Wrap was given, it reads the extensions (see [WithExtension]).
func Prepare(root *schema.Command, opts ...Option) error {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	root.Name = toolName(cfg.toolName, root.Name)
	root.Flags = appendMissing(root.Flags, allGlobalFlags(&cfg), true)
	root.Flags = appendMissing(root.Flags, []schema.Flag{versionFlag(root)}, false)
	if root.Sub(describeCommand) == nil {
		root.Commands = append(root.Commands, describeNode())
	}
	discoveryNodes(root)
	featureErrs := featureNodes(root, cfg.featured)
	if c := root.Sub("completion"); c != nil && !c.Declared && !c.Builtin {
		// The app's own completion command prints a script for a shell to
		// source, for a person and a pipe alike; an agent that names itself
		// gets it in an envelope (see ShellCompletion).
		c.Walk(func(n *schema.Command) {
			n.Passthrough, n.Meta.Protocol = true, cmp.Or(n.Meta.Protocol, ShellCompletion)
		})
	}
	extensionNodes(root, cfg.extensions)
	trustNodes(root, &cfg)
	errs := featureErrs
	checked := map[uintptr]error{} // commands often share one output schema value
	var walk func(c *schema.Command, parent *schema.Command)
	walk = func(c *schema.Command, parent *schema.Command) {
		c.Parent = parent
		if parent != nil {
			c.Path = append(append([]string(nil), parent.Path...), c.Name)
		}
		if err := complete(c, checked, cfg.features); err != nil {
			errs = append(errs, fmt.Errorf("command %q: %w", c.DotPath(), err))
		}
		if err := prepareTrust(c, &cfg); err != nil {
			errs = append(errs, fmt.Errorf("command %q: %w", c.DotPath(), err))
		}
		// By name, whatever order the framework keeps them in (cobra
		// sorts, urfave does not): documents list them alike.
		slices.SortStableFunc(c.Commands, func(a, b *schema.Command) int { return strings.Compare(a.Name, b.Name) })
		for _, s := range c.Commands {
			walk(s, c)
		}
	}
	walk(root, nil)
	if saved := profileable(root); len(saved) > 0 && root.Sub(profileCommand) == nil {
		root.Flags = appendMissing(root.Flags, []schema.Flag{profileFlag()}, true)
		p := profileNode(saved)
		root.Commands = append(root.Commands, p)
		walk(p, root)
		slices.SortStableFunc(root.Commands, func(a, b *schema.Command) int { return strings.Compare(a.Name, b.Name) })
	}
	if nodes := workNodes(root, cfg.cleanup); len(nodes) > 0 {
		root.Commands = append(root.Commands, nodes...)
		for _, n := range nodes {
			walk(n, root)
		}
		slices.SortStableFunc(root.Commands, func(a, b *schema.Command) int { return strings.Compare(a.Name, b.Name) })
	}
	if n := len(root.Commands); observeTree(root, &cfg) > 0 {
		for _, s := range root.Commands[n:] {
			walk(s, root)
		}
		slices.SortStableFunc(root.Commands, func(a, b *schema.Command) int { return strings.Compare(a.Name, b.Name) })
	}
	execDanger(root, &cfg)
	errs = append(errs, finishDiscovery(root, &cfg)...)
	errs = append(errs, checkEnvVars(&cfg)...)
	if cfg.strict { // REQ-F-079: see checkGlobalScope
		errs = append(errs, checkGlobalScope(root)...)
		errs = append(errs, checkEnvPrefix(root)...) // REQ-F-073
	}
	errs = append(errs, checkToolInstalls(root, &cfg)...)
	return errors.Join(errs...)
}

func complete(c *schema.Command, checked map[uintptr]error, features []Feature) error {
	var errs []error
	for _, code := range c.Meta.ResultExits {
		if _, ok := c.Meta.ExitCodes[code]; !ok || code == exitcode.Success {
			errs = append(errs, fmt.Errorf("Meta.ResultExits lists exit code %d, which Meta.ExitCodes does not declare with its meaning", int(code)))
		}
	}
	for name, fm := range c.Meta.Flags {
		f := findOwn(c, name)
		if f == nil {
			errs = append(errs, fmt.Errorf("Meta.Flags declares %q, which is not a flag of this command", name))
			continue
		}
		if len(fm.Enum) > 0 {
			f.Enum = fm.Enum
		}
		f.Pattern = cmp.Or(fm.Pattern, f.Pattern)
		f.ID = fm.ID || f.ID
		f.Sensitive = fm.Sensitive || f.Sensitive
		f.Profile = fm.Profile || f.Profile
		f.Subprocess = fm.Subprocess || f.Subprocess
		f.MaxBytes = cmp.Or(fm.MaxBytes, f.MaxBytes)
		f.Path = cmp.Or(fm.Path, f.Path)
		for _, e := range fm.Env {
			if !slices.Contains(f.Env, e) {
				f.Env = append(slices.Clip(f.Env), e) // never into the framework's slice
			}
		}
	}
	if len(c.Args) == 0 && len(c.Meta.Args) > 0 {
		c.Args = c.Meta.Args
	}
	c.NoArgs = c.NoArgs || c.Meta.NoArgs && len(c.Args) == 0
	// Validation compiles these per value; a broken one must fail here, not
	// pass every value silently. Parsing finds what compiling would (but a
	// program too large to run), for a fraction of the cost: an app wrapped
	// anew for each in-process MCP call checks them every time.
	for _, f := range c.Flags {
		if f.Pattern == "" {
			continue
		}
		if _, err := syntax.Parse(f.Pattern, syntax.Perl); err != nil {
			errs = append(errs, fmt.Errorf("flag --%s: pattern: %w", f.Name, err))
		}
	}
	// An integer flag's or argument's values are listed as numbers
	// (ManifestResponse 3.18) and compared as given: each must be an
	// integer written as the manifest writes it.
	for _, f := range c.Flags {
		if f.Type == schema.Integer {
			errs = append(errs, integerEnum("flag --"+f.Name, f.Enum)...)
		}
	}
	for _, a := range c.Args {
		if a.Type == schema.Integer {
			errs = append(errs, integerEnum("argument <"+a.Name+">", a.Enum)...)
		}
	}
	for _, a := range c.Args {
		if a.Pattern == "" {
			continue
		}
		if _, err := syntax.Parse(a.Pattern, syntax.Perl); err != nil {
			errs = append(errs, fmt.Errorf("argument <%s>: pattern: %w", a.Name, err))
		}
	}
	for _, g := range c.Meta.Groups {
		for _, name := range g.Flags {
			if c.Flag(name) == nil {
				errs = append(errs, fmt.Errorf("flag group %s names %q, which is not a flag of this command", g.Kind, name))
			}
		}
	}
	// A Flag is large and every runnable command gets a dozen: they are
	// put together on the stack, and copied once into the command's.
	var builtins [16]schema.Flag
	c.Flags = appendMissing(c.Flags, commandFlags(builtins[:0], c, features), false)
	// input: JSON and Pipe flags, rules.
	errs = append(errs, completeInput(c)...)
	c.Flags = appendMissing(c.Flags, discoveryCommandFlags(c), false)
	errs = append(errs, checkDiscovery(c)...)
	if len(c.Meta.ExitCodes) > 0 { // the defaults alone are valid (tested in schema)
		if err := c.ExitCodes().Validate(); err != nil {
			errs = append(errs, fmt.Errorf("exit codes: %w", err))
		}
	}
	// A hand-written schema is checked now. One from schema.Of is right by
	// construction and built only when asked for (--schema, describe): a
	// type encoding/json cannot encode is reported then.
	if s, ok := c.Meta.Output.(schema.Schema); ok && s != nil {
		id := reflect.ValueOf(s).Pointer()
		err, done := checked[id]
		if !done {
			err = s.Check()
			checked[id] = err
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("output schema: %w", err))
		}
	}
	if err := checkProc(c); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, observedDeclarations(c)...)
	errs = append(errs, checkSafety(c)...)
	switch c.Meta.Danger {
	case "", schema.Safe, schema.Mutating, schema.Destructive:
	default:
		errs = append(errs, fmt.Errorf("danger %q is not safe, mutating or destructive", c.Meta.Danger))
	}
	switch {
	case c.Meta.Danger == schema.Destructive && !c.Meta.DryRun && c.Flag(flagname.DryRun) == nil && c.Meta.Protocol == "": // a server previews no single action (REQ-C-032)
		errs = append(errs, errors.New("a destructive command must implement --dry-run: declare Meta.DryRun, and when Output.DryRun is true change nothing and report the effect it would have"))
	case c.Meta.DryRun && c.Meta.Danger != schema.Mutating && c.Meta.Danger != schema.Destructive:
		errs = append(errs, fmt.Errorf("Meta.DryRun is declared, but a %s command has nothing to preview", c.Danger()))
	}
	errs = append(errs, checkFeatures(c, features)...)
	if err := checkWork(c); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, checkProtocol(c)...)
	return errors.Join(errs...)
}

// appendMissing adds the built-ins whose names the command does not already
// use: an app's own --limit or --verbose is adopted rather than duplicated.
func appendMissing(own, builtins []schema.Flag, persistent bool) []schema.Flag {
	own = slices.Grow(own, len(builtins)) // a Flag is large: grow once
	for _, b := range builtins {
		taken := false
		for _, f := range own {
			if f.Name == b.Name || slices.Contains(f.Aliases, b.Name) {
				taken = true
			}
		}
		if !taken {
			b.Builtin, b.Persistent = true, persistent
			own = append(own, b)
		}
	}
	return own
}

func describeNode() *schema.Command {
	return &schema.Command{
		Name:     describeCommand,
		Usage:    "Describe every command of this tool as JSON (or AGENTS.md)",
		Runnable: true,
		Builtin:  true,
		Args:     []schema.Arg{{Name: "command", Variadic: true, Type: schema.String, Usage: "only these commands, by key (run.spawn), and the groups above them; with --full or --index too"}},
		Flags: []schema.Flag{
			{Name: flagname.Etag, Type: schema.String, Builtin: true, Usage: "the etag of a manifest you hold: answer not_modified when it is current"},
			{Name: flagname.AgentsMD, Type: schema.Boolean, Builtin: true, Default: false, Usage: "write an AGENTS.md for this tool instead of JSON"},
			{Name: flagname.MCP, Type: schema.Boolean, Builtin: true, Default: false, Usage: "list the MCP tools this tool serves (see adapters/mcp), with the etag of the agent manifest"},
			{Name: flagname.Full, Type: schema.Boolean, Builtin: true, Default: false, Usage: "every command's whole document, as <command> --schema gives it without its input schema"},
			{Name: flagname.Index, Type: schema.Boolean, Builtin: true, Default: false, Usage: "only each command's key and one line; <command> --schema gives the rest"},
		},
		Meta: schema.Meta{Danger: schema.Safe, Groups: []schema.Group{{Kind: schema.MutuallyExclusive, Flags: []string{flagname.AgentsMD, flagname.MCP, flagname.Full, flagname.Index}}}, Examples: []schema.Example{
			{Description: "every command, with what they share said once", Command: "describe"},
			{Description: "one line per command", Command: "describe --index"},
			{Description: "one command, with what it shares", Command: "describe run.spawn"},
			{Description: "the MCP tools the commands are served as", Command: "describe --mcp"},
		}},
	}
}

func findOwn(c *schema.Command, name string) *schema.Flag {
	for i := range c.Flags {
		if c.Flags[i].Name == name {
			return &c.Flags[i]
		}
	}
	return nil
}

// commandLine quotes args for a shell, for fix_command.
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`&|;<>()*?[]{}!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// integerEnum refuses an integer input's allowed value that is not an
// integer in canonical form ("7", not "07" or "seven").
func integerEnum(what string, enum []string) []error {
	var errs []error
	for _, v := range enum {
		if n, err := strconv.ParseInt(v, 10, 64); err != nil || strconv.FormatInt(n, 10) != v {
			errs = append(errs, fmt.Errorf("%s takes integers, but its Enum lists %q", what, v))
		}
	}
	return errs
}
