// Package cobra wraps a spf13/cobra app so that one binary serves a person at
// a terminal and an agent reading a pipe, exactly as package
// adapters/urfave does for urfave/cli: the lifecycle in package adapters is
// shared, so both adapters answer byte for byte alike.
//
//	duetcobra.Annotate(list, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]Item]()})
//	duetcobra.Main(root, duetcobra.WithVersion(version))
//
// Commands stay ordinary *cobra.Command values; their RunE finds the result
// handle with envelope.From(cmd.Context()). Duet's built-in flags (--output,
// --dry-run, --yes, --limit ...) are the lifecycle's: cobra never parses them,
// so a command reads them through that handle (DryRun, Window). Cobra's own
// help and completion commands keep working for a person and are left out of
// describe.
package cobra

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// declared is a command's declarations between Annotate and Wrap. Cobra's
// Annotations hold only strings and a declaration holds Go values (an output
// schema), so Annotate keeps it in the one slot cobra has for a value, the
// command's context, and Wrap takes it out again, restoring the context the
// command had: no registry outlives the app.
type declared struct {
	meta schema.Meta
	prev context.Context // the command's own context, usually nil
}

type declaredKey struct{}

// Option configures the adapter; see package adapters for each.
type Option = adapters.Option

// Re-exported options, so an app imports one adapter package.
var (
	WithVersion       = adapters.WithVersion
	WithStdio         = adapters.WithStdio
	WithEnv           = adapters.WithEnv
	WithTerminal      = adapters.WithTerminal
	WithAgentDetector = adapters.WithAgentDetector
	WithGrace         = adapters.WithGrace
	WithSignals       = adapters.WithSignals
	WithRequestID     = adapters.WithRequestID
)

// Annotate attaches Duet declarations to a command and returns it. Call it
// before Wrap; a second call replaces the first.
func Annotate(cmd *cobra.Command, meta schema.Meta) *cobra.Command {
	d := &declared{meta: meta, prev: cmd.Context()}
	if old := declarations(cmd); old != nil {
		d.prev = old.prev
	}
	parent := d.prev
	if parent == nil {
		parent = context.Background()
	}
	cmd.SetContext(context.WithValue(parent, declaredKey{}, d))
	return cmd
}

// declarations returns what Annotate attached to cmd, if anything.
func declarations(cmd *cobra.Command) *declared {
	ctx := cmd.Context()
	if ctx == nil {
		return nil
	}
	d, _ := ctx.Value(declaredKey{}).(*declared)
	return d
}

// Cobra annotates the flags of a group with these keys (cobra's flag_groups.go);
// each value is the group's flag names joined by spaces.
const (
	mutuallyExclusiveAnnotation = "cobra_annotation_mutually_exclusive"
	requiredTogetherAnnotation  = "cobra_annotation_required_if_others_set"
	oneRequiredAnnotation       = "cobra_annotation_one_required"
)

// App is a wrapped cobra app. Like a cobra root command, it runs once.
type App struct {
	root  *cobra.Command
	tree  *schema.Command
	nodes map[*cobra.Command]*schema.Command
	opts  []Option
}

// Wrap prepares root for Duet: it reads the command tree and every
// declaration, adds the describe command, and wraps every RunE. It fails,
// naming the command, when a declaration is broken.
func Wrap(root *cobra.Command, opts ...Option) (*App, error) {
	a := &App{root: root, nodes: map[*cobra.Command]*schema.Command{}, opts: opts}
	a.tree = a.build(root, nil)
	a.addCobraCommands()
	if err := adapters.Prepare(a.tree, opts...); err != nil {
		return nil, fmt.Errorf("duet: %s: %w", root.Name(), err)
	}
	a.install(root, a.tree)
	// The lifecycle writes every error and all usage text itself.
	root.SilenceErrors, root.SilenceUsage = true, true
	return a, nil
}

// Run wraps root and runs one invocation with args (without the program name),
// returning the exit code.
func Run(ctx context.Context, root *cobra.Command, args []string, opts ...Option) int {
	return adapters.WrapAndRun(ctx, func() (*App, error) { return Wrap(root, opts...) }, args)
}

// Main runs the app with the process's arguments and exits with its code. A
// declaration that does not hold is reported on stderr with exit code 1.
func Main(root *cobra.Command, opts ...Option) {
	adapters.Main(func() (*App, error) { return Wrap(root, opts...) })
}

// Run runs one invocation and returns its exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	return adapters.Run(ctx, a, args)
}

// Options returns the options the app was wrapped with, which every run of
// it applies (see adapters.Run).
func (a *App) Options() []Option { return a.opts }

// Tree returns the neutral command tree.
func (a *App) Tree() *schema.Command { return a.tree }

// Execute lets cobra parse and dispatch.
func (a *App) Execute(ctx context.Context, args []string, s adapters.Streams) error {
	a.root.SetIn(s.Stdin)
	a.root.SetOut(s.Help)
	a.root.SetErr(s.Stderr)
	if s.HelpFor != nil || s.Complete {
		a.addBuiltins(a.root, a.tree, s)
	}
	for cmd, node := range a.nodes {
		if node.Parent != nil && s.Hide(node) {
			cmd.Hidden = true
		}
		if s.Shows(node) {
			for i := range node.Flags {
				if f := &node.Flags[i]; f.Builtin {
					addFlag(cmd, f)
				}
			}
		}
	}
	// Cobra checks required flags and flag groups before any hook runs, so
	// values the lifecycle resolved (from the environment) go in first.
	if target, _, err := a.root.Find(args); err == nil {
		if node := a.nodes[target]; node != nil {
			if err := adapters.Preset(ctx, node, setter(target)); err != nil {
				return err
			}
		}
	}
	a.root.SetArgs(args)
	return a.root.ExecuteContext(ctx)
}

// Classify turns cobra's own errors into ARG_ERRORs. Only pflag's parse
// errors are typed; the rest are plain strings, and anything that reaches
// here before an action ran is a usage error.
func (a *App) Classify(err error) *envelope.Error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	code := "USAGE_ERROR"
	switch {
	case strings.Contains(msg, "unknown flag") || strings.Contains(msg, "unknown shorthand flag"):
		code = "UNKNOWN_FLAG"
	case strings.Contains(msg, "invalid argument"):
		code = "INVALID_FLAG_VALUE"
	case strings.Contains(msg, "required flag"):
		code = "MISSING_REQUIRED_FLAG"
	case strings.Contains(msg, "unknown command"):
		code = "UNKNOWN_COMMAND"
	case strings.Contains(msg, "arg(s)"):
		code = "WRONG_ARGUMENT_COUNT"
	case strings.Contains(msg, "flags in the group"):
		code = "FLAG_GROUP"
	}
	return envelope.Invalid([]envelope.FieldError{{Code: code, Message: msg}})
}

// build translates one cobra command, and its subcommands, into the tree.
func (a *App) build(cmd *cobra.Command, parent *schema.Command) *schema.Command {
	n := &schema.Command{
		Name:        cmd.Name(),
		Aliases:     cmd.Aliases,
		Usage:       cmd.Short,
		Description: cmd.Long,
		Hidden:      cmd.Hidden,
		Runnable:    cmd.Runnable(),
		Version:     cmd.Version,
		Parent:      parent,
	}
	if d := declarations(cmd); d != nil {
		n.Meta = d.meta
		cmd.SetContext(d.prev) // cobra gives a command without one its caller's context
	}
	persistent := cmd.PersistentFlags()
	persistent.VisitAll(func(f *pflag.Flag) { n.Flags = append(n.Flags, flagOf(f, true)) })
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if persistent.Lookup(f.Name) == nil {
			n.Flags = append(n.Flags, flagOf(f, false))
		}
	})
	if n.Meta.Args == nil {
		if _, rest, ok := strings.Cut(cmd.Use, " "); ok && strings.TrimSpace(rest) != "" {
			// Arguments documented only in Use: accept any number
			// rather than refuse what the app expects.
			n.Args = []schema.Arg{{Name: "args", Type: schema.String, Variadic: true, Usage: strings.TrimSpace(rest)}}
		}
	}
	n.Meta.Groups = append(slices.Clip(n.Meta.Groups), groupsOf(cmd)...) // never into the app's slice
	a.nodes[cmd] = n
	for _, sub := range cmd.Commands() {
		n.Commands = append(n.Commands, a.build(sub, n))
	}
	return n
}

// addCobraCommands puts the commands cobra adds when it executes — help is
// handled by the lifecycle; completion and its hidden request command are —
// into the tree as hidden pass-through commands: a shell calls them and reads
// cobra's own output, never an envelope.
func (a *App) addCobraCommands() {
	names := []string{cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd}
	if len(a.root.Commands()) > 0 && !a.root.CompletionOptions.DisableDefaultCmd {
		names = append(names, "completion")
	}
	for _, name := range names {
		if a.tree.Sub(name) == nil {
			a.tree.Commands = append(a.tree.Commands, &schema.Command{
				Name: name, Hidden: true, Runnable: true, Passthrough: true, Parent: a.tree,
				Meta: schema.Meta{Danger: schema.Safe},
			})
		}
	}
}

func flagOf(f *pflag.Flag, persistent bool) schema.Flag {
	sf := schema.Flag{Name: f.Name, Short: f.Shorthand, Usage: f.Usage, Hidden: f.Hidden, Persistent: persistent}
	sf.Type, sf.Items, sf.Format = typeOf(f.Value.Type())
	sf.Count = f.Value.Type() == "count"
	sf.Required = slices.Contains(f.Annotations[cobra.BashCompOneRequiredFlag], "true")
	sf.Default = defaultOf(f, sf)
	return sf
}

// typeOf maps a pflag value type to JSON Schema.
func typeOf(t string) (typ, items schema.Type, format string) {
	switch t {
	case "bool":
		return schema.Boolean, "", ""
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return schema.Integer, "", ""
	case "float32", "float64":
		return schema.Number, "", ""
	case "duration":
		return schema.String, "", "duration"
	case "stringSlice", "stringArray", "ipSlice", "durationSlice":
		return schema.Array, schema.String, ""
	case "intSlice", "int32Slice", "int64Slice", "uintSlice":
		return schema.Array, schema.Integer, ""
	case "float32Slice", "float64Slice":
		return schema.Array, schema.Number, ""
	case "boolSlice":
		return schema.Array, schema.Boolean, ""
	case "stringToString":
		return schema.Object, schema.String, ""
	case "stringToInt", "stringToInt64":
		return schema.Object, schema.Integer, ""
	}
	return schema.String, "", "" // string, ip, ipNet, bytesHex, a custom Value ...
}

// defaultOf reads a flag's default from its text, as JSON would carry it, or
// nil when the flag has none worth stating.
func defaultOf(f *pflag.Flag, sf schema.Flag) any {
	v := f.DefValue
	switch {
	case v == "" || v == "[]" || v == "map[]":
		return nil
	case sf.Type == schema.Boolean:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil
		}
		return b
	case sf.Type == schema.Integer:
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			return nil
		}
		return n
	case sf.Type == schema.Number:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil
		}
		return x
	case sf.Format == "duration":
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil
		}
		return d.String()
	case sf.Type == schema.Array: // pflag writes [a,b]
		var items []any
		for _, item := range strings.Split(strings.Trim(v, "[]"), ",") {
			x := defaultOf(&pflag.Flag{DefValue: item}, schema.Flag{Type: sf.Items})
			if x == nil {
				return nil
			}
			items = append(items, x)
		}
		return items
	case sf.Type == schema.Object:
		return nil // pflag prints maps in Go syntax: not worth parsing back
	}
	return v
}

// groupsOf reads the flag groups cobra's MarkFlags* recorded on cmd's flags.
func groupsOf(cmd *cobra.Command) []schema.Group {
	kinds := []struct {
		annotation string
		kind       schema.GroupKind
	}{
		{mutuallyExclusiveAnnotation, schema.MutuallyExclusive},
		{requiredTogetherAnnotation, schema.RequiredTogether},
		{oneRequiredAnnotation, schema.OneRequired},
	}
	var groups []schema.Group
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		for _, k := range kinds {
			for _, names := range f.Annotations[k.annotation] {
				if key := string(k.kind) + " " + names; !seen[key] {
					seen[key] = true
					groups = append(groups, schema.Group{Kind: k.kind, Flags: strings.Fields(names)})
				}
			}
		}
	}
	cmd.LocalFlags().VisitAll(visit)
	return groups
}

// install wraps every RunE with the lifecycle. Duet's built-in commands and
// flags are the lifecycle's, which runs them itself: cobra is given them only
// to render help (see Execute and addBuiltins).
func (a *App) install(cmd *cobra.Command, n *schema.Command) {
	for _, sub := range cmd.Commands() {
		if node := a.nodes[sub]; node != nil {
			a.install(sub, node)
		}
	}
	if !cmd.Runnable() {
		return
	}
	run := cmd.RunE
	if run == nil {
		plain := cmd.Run
		run = func(c *cobra.Command, args []string) error { plain(c, args); return nil }
	}
	cmd.Run = nil
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return adapters.Invoke(c.Context(), func(ctx context.Context) error {
			c.SetContext(ctx)
			return run(c, args)
		})
	}
}

// addBuiltins gives cobra Duet's built-in commands under cmd, so that help
// lists them — their own subcommands only where help or completion goes;
// the lifecycle runs them without cobra.
func (a *App) addBuiltins(cmd *cobra.Command, n *schema.Command, s adapters.Streams) {
	for _, sub := range n.Commands {
		if sub.Builtin {
			c := &cobra.Command{Use: sub.Name, Short: sub.Usage, Hidden: sub.Hidden}
			if sub.Runnable {
				c.Run = func(*cobra.Command, []string) {} // listed as a command, not a topic
			}
			cmd.AddCommand(c)
			a.nodes[c] = sub
			if s.Shows(sub) {
				a.addBuiltins(c, sub, s)
			}
		}
	}
}

// setter sets a flag of c, or of one of its ancestors' persistent flags,
// unless the command line set it.
func setter(c *cobra.Command) adapters.Setter {
	return func(name, value string) error {
		f := c.Flags().Lookup(name)
		for p := c; f == nil && p != nil; p = p.Parent() {
			f = p.PersistentFlags().Lookup(name)
		}
		if f == nil {
			return fmt.Errorf("no flag --%s", name)
		}
		if f.Changed {
			return nil
		}
		if err := f.Value.Set(value); err != nil {
			return err
		}
		f.Changed = true
		return nil
	}
}

// addFlag gives cobra one of Duet's built-ins, so that help lists it. Its
// value is read by the lifecycle; cobra only has to accept it.
func addFlag(cmd *cobra.Command, f *schema.Flag) {
	fs := cmd.Flags()
	if f.Persistent {
		fs = cmd.PersistentFlags()
	}
	if fs.Lookup(f.Name) != nil {
		return
	}
	switch f.Type {
	case schema.Boolean:
		fs.Bool(f.Name, false, f.Usage)
	case schema.Integer:
		v, _ := f.Default.(int)
		fs.Int(f.Name, v, f.Usage)
	case schema.Array:
		fs.StringSlice(f.Name, nil, f.Usage)
	default:
		v, _ := f.Default.(string)
		fs.String(f.Name, v, f.Usage)
	}
	fs.Lookup(f.Name).Hidden = f.Hidden
}

var _ adapters.Framework = (*App)(nil)
