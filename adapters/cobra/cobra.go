// Package cobra wraps a spf13/cobra app so that one binary serves a person
// at a terminal, a script and an agent, exactly as package adapters/urfave
// does for urfave/cli: the lifecycle in package adapters is shared, so both
// adapters answer byte for byte alike.
//
//	duetcobra.Main(root, adapters.WithVersion(version)) // instead of root.Execute()
//
// Wrapped, the app runs as before for a person and a script, and cobra
// parses every command line as it always did (SetArgs included); an agent
// gets one envelope. Then port command by command: Annotate declares what
// cobra cannot say, and a command's RunE answers through
// envelope.From(cmd.Context()).
//
//	duetcobra.Annotate(list, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]Item]()})
//
// Duet's built-in flags (--format, --output, --schema, --dry-run, --yes ...)
// are cobra flags of the commands they belong to, shown in help; a command
// reads them through the result handle (DryRun, Window). What cobra knows is
// read: flag types, required flags and groups, Aliases, Example, Deprecated,
// cobra.NoArgs, ValidArgs under cobra.OnlyValidArgs. Cobra's own help and
// completion commands keep working and stay out of describe.
package cobra

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/wrapped"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/errcode"
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

// App is a wrapped cobra app: a root command as Wrap prepared it, run with
// the options of the Wrap that returned it. Like a cobra root command, it
// runs again and again; each run starts from the state the root had
// before the previous one.
type App struct {
	*wrapping
	opts []Option
}

// wrapping is what Wrap does to a root command, once per root: the tree it
// read, the declarations it took, the commands it wrapped and the
// built-ins it added. A root wrapped again — an app whose tests run its
// package-level root through duetcobra.Exec once per case — is found
// wrapped and keeps what the first Wrap made of it, instead of reading
// Duet's own additions as the app's.
type wrapping struct {
	root  *cobra.Command
	tree  *schema.Command
	nodes map[*cobra.Command]*schema.Command
	cmds  map[*schema.Command]*cobra.Command
	opts  []Option // the first Wrap's: those the tree was prepared with

	declared bool // the app declares something to Duet: prepared by Wrap
	prepared wrapped.Tree

	// The app's own settings, which a person and a script get.
	silenceErrors, silenceUsage bool

	builtins   []func(show bool, hideFlag func(*schema.Flag) bool) // shows or hides each of Duet's built-ins in help
	added      bool                                                // the built-in commands are in the app (see addedBuiltins)
	bools      map[string]string                                   // Duet's boolean flags, each as --name=true (see selfContained)
	flagsAdded bool                                                // and the built-in flags
	// placed are Duet's commands added under the app's own: cobra pads
	// the names its help lists to the longest of a parent's commands,
	// hidden ones included (see unnamed).
	placed   []*cobra.Command
	placedIn []*cobra.Command // their parents, each once
}

// wrappingKey marks, in a root command's context, the wrapping Wrap made
// of it: cobra has no other slot for a value, and Annotate's declarations
// travel the same way.
type wrappingKey struct{}

// Wrap prepares root for Duet: it reads the command tree and every
// declaration, adds the describe command, and wraps every RunE. It fails,
// naming the command, when a declaration is broken. Wrapping a root again
// returns an App of the first Wrap's tree, with the new options to run
// with.
func Wrap(root *cobra.Command, opts ...Option) (*App, error) {
	w := wrappingOf(root)
	fresh := w == nil
	if fresh {
		w = &wrapping{root: root, nodes: map[*cobra.Command]*schema.Command{}, cmds: map[*schema.Command]*cobra.Command{}, opts: opts,
			silenceErrors: root.SilenceErrors, silenceUsage: root.SilenceUsage, declared: annotated(root)}
	}
	a := &App{wrapping: w, opts: opts}
	if a.declared {
		if err := a.prepare(); err != nil {
			return nil, fmt.Errorf("duet: %s: %w", root.Name(), err)
		}
	}
	if fresh { // once: a root wrapped case after case keeps one context, not one more each time
		root.SetContext(context.WithValue(cmp.Or[context.Context](root.Context(), context.Background()), wrappingKey{}, w))
	}
	return a, nil
}

// wrappingOf returns what an earlier Wrap made of root, if anything.
func wrappingOf(root *cobra.Command) *wrapping {
	if ctx := root.Context(); ctx != nil {
		w, _ := ctx.Value(wrappingKey{}).(*wrapping)
		return w
	}
	return nil
}

// annotated reports whether cmd or a command below it was given to Annotate.
func annotated(cmd *cobra.Command) bool {
	return wrapped.Declared(cmd,
		func(c *cobra.Command) bool { return declarations(c) != nil },
		(*cobra.Command).Commands)
}

// prepare builds the tree, checks it and wraps the app's commands, once
// (see wrapped.Tree).
func (a *App) prepare() error {
	return a.prepared.Prepare(func() *schema.Command {
		a.tree = a.build(a.root, nil)
		a.addCobraCommands()
		return a.tree
	}, a.wrapping.opts, func(tree *schema.Command) { a.install(a.root, tree) })
}

// Run wraps root and runs one invocation with args (without the program name),
// returning the exit code.
func Run(ctx context.Context, root *cobra.Command, args []string, opts ...Option) int {
	growStack()
	return adapters.WrapAndRun(ctx, func() (*App, error) { return Wrap(root, opts...) }, args)
}

// Main runs the app with the process's arguments, or those the app gave
// root.SetArgs, and exits with its code. A declaration that does not hold is
// reported on stderr with exit code 1.
func Main(root *cobra.Command, opts ...Option) {
	growStack()
	args := os.Args[1:]
	if given, ok := argsSet(root); ok {
		args = given
	}
	adapters.Main(func() (*App, error) { return Wrap(root, opts...) }, args)
}

// Exec is a drop-in for root.Execute(), for an app that keeps its own main:
// it parses the process's arguments, or those the app gave root.SetArgs,
// and returns what Execute returns from a command that runs as it would
// without Duet, for the main to report as before. When Duet answered, the
// error is an *adapters.ExitError carrying the answer's exit code (see
// adapters.Exec). It never exits the process.
//
//	if err := duetcobra.Exec(root); err != nil { // was root.Execute()
//		os.Exit(adapters.ExitCode(err))
//	}
func Exec(root *cobra.Command, opts ...Option) error {
	growStack()
	args := os.Args[1:]
	if given, ok := argsSet(root); ok {
		args = given
	}
	return adapters.Exec(context.Background(), func() (*App, error) { return Wrap(root, opts...) }, args)
}

// growStack grows the goroutine's stack to 32 KB while it is shallow.
// Cobra's ExecuteC goes deep before any command runs (it formats the
// completion command's help); under the lifecycle's frames an app's stack
// crosses 16 KB there, where bare it stays below, and growing at that depth
// copies, frame by frame, a stack some fifty frames deep. Growing here
// copies a few: measured side by side (bench/adopt.sh's tally), starts are
// 1.5–2.5 % quicker; urfave's apps stay below 16 KB, and are not grown.
//
//go:noinline
func growStack() {
	var pad [16 << 10]byte
	keepPad(&pad)
}

// keepPad keeps growStack's frame from being optimised away.
//
//go:noinline
func keepPad(*[16 << 10]byte) {}

// argsSet returns the arguments the app gave root.SetArgs, which cobra keeps
// unexported, and whether it gave any.
func argsSet(root *cobra.Command) ([]string, bool) {
	v := reflect.ValueOf(root).Elem().FieldByName("args")
	if !v.IsValid() || v.Kind() != reflect.Slice || v.IsNil() {
		return nil, false
	}
	args := make([]string, v.Len())
	for i := range args {
		args[i] = v.Index(i).String()
	}
	return args, true
}

// Run runs one invocation and returns its exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	return adapters.Run(ctx, a, args)
}

// Options returns the options the app was wrapped with, which every run of
// it applies (see adapters.Run).
func (a *App) Options() []Option { return a.opts }

// Name returns the tool's name.
func (a *App) Name() string { return a.root.Name() }

// Declared reports whether the app declares anything to Duet.
func (a *App) Declared() bool { return a.declared }

// Tree returns the neutral command tree.
func (a *App) Tree() *schema.Command {
	a.prepare()
	return a.tree
}

// Execute lets cobra parse and dispatch.
func (a *App) Execute(ctx context.Context, args []string, s adapters.Streams) error {
	if s.Stdin != nil {
		a.root.SetIn(s.Stdin)
	}
	if out := cmp.Or(s.Help, s.Stdout); out != nil {
		a.root.SetOut(out) // cobra writes help, and a command's OutOrStdout, there
	}
	if s.Stderr != nil {
		a.root.SetErr(s.Stderr)
	}
	if s.Builtins {
		a.addedBuiltins(true)
	}
	hideFlag := s.HideFlag
	if hideFlag == nil {
		hideFlag = func(*schema.Flag) bool { return false }
	}
	for _, show := range a.builtins {
		show(s.Builtins && s.Listing, hideFlag)
	}
	if !s.Builtins {
		defer a.unnamed()()
	}
	// What a run sets on the root — arguments, context, whether cobra
	// prints errors, commands hidden from this audience — is for this run
	// only: a later Execute, Duet's or the app's own, starts from what it
	// would have without this one (the process's arguments, or those the
	// app gave SetArgs).
	given, _ := argsSet(a.root)
	defer a.restore(a.root.Context(), given, a.root.SilenceErrors, a.root.SilenceUsage)
	// When the lifecycle answers, it writes every error; otherwise cobra
	// prints its own, as the app set it to.
	a.root.SilenceErrors, a.root.SilenceUsage = a.silenceErrors || s.Answer, a.silenceUsage || s.Answer
	for cmd, node := range a.nodes {
		if node.Parent != nil && s.Hide(node) && !cmd.Hidden {
			cmd.Hidden = true
			defer func() { cmd.Hidden = false }()
		}
	}
	a.root.SetArgs(args)
	// An app run unread has no tree: its commands are not wrapped, and
	// nothing is preset — no second search.
	if len(a.nodes) == 0 {
		return a.root.ExecuteContext(ctx)
	}
	if target, _, err := a.root.Find(args); err == nil {
		// Cobra gives the command it runs its caller's context only when
		// it has none, and keeps it: the command gets back the one it had,
		// so that the next run hands it that run's context (and a ported
		// command its answer), as a first run would.
		defer target.SetContext(target.Context())
		// Cobra checks required flags and flag groups before any hook
		// runs, so values the lifecycle resolved (from the environment) go
		// in first.
		if node := a.nodes[target]; node != nil {
			if err := adapters.Preset(ctx, node, setter(target)); err != nil {
				return err
			}
		}
	}
	return a.root.ExecuteContext(ctx)
}

// restore puts back what Execute set on the root for one run.
func (a *App) restore(ctx context.Context, args []string, silenceErrors, silenceUsage bool) {
	a.root.SetContext(ctx)
	a.root.SetArgs(args)
	a.root.SilenceErrors, a.root.SilenceUsage = silenceErrors, silenceUsage
}

// unnamed takes the names of Duet's built-ins, hidden, out of cobra's sight
// until the returned func gives them back: cobra pads the command names its
// help lists to the longest of a parent's commands, hidden ones included,
// so the help of an app that ports a command would be the app's own but
// for the space after each name. Cobra works the longest name out again
// whenever a command is removed, as it does when it adds its help command;
// removing none works it out now. A run with the built-ins hidden is the
// app's own: nothing in it calls them by name.
func (a *App) unnamed() (restore func()) {
	uses := make([]string, len(a.placed))
	for i, c := range a.placed {
		uses[i], c.Use = c.Use, ""
	}
	measure := func() {
		for _, p := range a.placedIn {
			p.RemoveCommand()
		}
	}
	measure()
	return func() {
		for i, c := range a.placed {
			c.Use = uses[i]
		}
		measure()
	}
}

// Classify turns cobra's own errors into ARG_ERRORs. pflag's parse errors
// are typed; the rest are plain strings, and anything that reaches here
// before an action ran is a usage error.
func (a *App) Classify(err error) *envelope.Error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	problem := envelope.FieldError{Code: errcode.UsageError, Message: msg}
	var (
		notExist *pflag.NotExistError
		required *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &notExist):
		problem.Code, problem.Field = errcode.UnknownFlag, cmp.Or(notExist.GetSpecifiedName(), notExist.GetSpecifiedShortnames())
	case errors.As(err, &required):
		problem.Code, problem.Field = errcode.MissingFlagValue, required.GetFlag().Name
	case errors.As(err, &invalid):
		problem.Code, problem.Field = errcode.InvalidFlagValue, invalid.GetFlag().Name
	case errors.As(err, &syntax):
		problem.Code, problem.Field = errcode.UnknownFlag, syntax.GetSpecifiedFlag()
	case strings.HasPrefix(msg, "unknown command "):
		problem.Code = errcode.UnknownCommand
		if word, err := strconv.QuotedPrefix(strings.TrimPrefix(msg, "unknown command ")); err == nil {
			problem.Field, _ = strconv.Unquote(word)
		}
	case strings.Contains(msg, "required flag"):
		problem.Code = errcode.MissingRequiredFlag
	case strings.Contains(msg, "arg(s)") || strings.HasPrefix(msg, "invalid argument"):
		problem.Code = errcode.WrongArgumentCount
		if strings.HasPrefix(msg, "invalid argument") {
			problem.Code = errcode.InvalidArgument // cobra.OnlyValidArgs
		}
	case strings.Contains(msg, "flags in the group"):
		problem.Code = "FLAG_GROUP"
	}
	return envelope.Invalid([]envelope.FieldError{problem})
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
		n.Meta, n.Declared = d.meta, true
		cmd.SetContext(d.prev) // cobra gives a command without one its caller's context
	}
	n.Deprecated = cmd.Deprecated
	n.NoArgs = sameFunc(cmd.Args, cobra.NoArgs)
	if len(n.Meta.Examples) == 0 {
		n.Meta.Examples = examples(cmd.Example)
	}
	persistent := cmd.PersistentFlags()
	persistent.VisitAll(func(f *pflag.Flag) { n.Flags = append(n.Flags, flagOf(f, true)) })
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if persistent.Lookup(f.Name) == nil {
			n.Flags = append(n.Flags, flagOf(f, false))
		}
	})
	if n.Meta.Args == nil && !n.Meta.NoArgs && !n.NoArgs {
		_, rest, _ := strings.Cut(cmd.Use, " ")
		if rest = strings.TrimSpace(rest); rest != "" || len(cmd.ValidArgs) > 0 {
			// Arguments documented only in Use: accept any number
			// rather than refuse what the app expects. Their values are
			// cobra's to check, but under cobra.OnlyValidArgs.
			arg := schema.Arg{Name: "args", Type: schema.String, Variadic: true, Usage: rest}
			if sameFunc(cmd.Args, cobra.OnlyValidArgs) {
				for _, v := range cmd.ValidArgs {
					arg.Enum = append(arg.Enum, strings.SplitN(v, "\t", 2)[0]) // "value\tdescription"
				}
			}
			n.Args = []schema.Arg{arg}
		}
	}
	n.Meta.Groups = append(slices.Clip(n.Meta.Groups), groupsOf(cmd)...) // never into the app's slice
	a.nodes[cmd], a.cmds[n] = n, cmd
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
	sf := schema.Flag{Name: f.Name, Short: f.Shorthand, Usage: f.Usage, Hidden: f.Hidden, Persistent: persistent, Deprecated: f.Deprecated}
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

// install wraps every RunE with the lifecycle.
func (a *App) install(cmd *cobra.Command, n *schema.Command) {
	for _, sub := range cmd.Commands() {
		if node := a.nodes[sub]; node != nil && !node.Builtin {
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
		err := adapters.Invoke(c.Context(), func(ctx context.Context) error {
			c.SetContext(ctx)
			return run(c, args)
		})
		var typed *envelope.Error
		if errors.As(err, &typed) {
			// Duet shows a typed error, for every audience: cobra must not
			// print it as well.
			c.SilenceErrors, c.SilenceUsage = true, true
		}
		return err
	}
}

// addedBuiltins gives the app Duet's built-in commands, once: when a
// command line is read (Parse), so that cobra finds them, or help lists
// them. With flags, it gives it Duet's built-in flags too, once: only a
// run Duet answers needs cobra to take them — a person's or a script's run
// of a command nobody ported refuses them as the app alone does (Parse
// reads them all the same, see standIns). A run the lifecycle leaves to
// the app without reading its command line — nothing ported, no Duet word
// given — never pays for either.
func (a *App) addedBuiltins(flags bool) {
	a.prepare()
	if !a.added {
		a.added = true
		a.addBuiltins(a.root, a.tree)
		a.addEnvHelp() // artifacts: the variables the app reads (O-043)
	}
	if flags && !a.flagsAdded {
		a.flagsAdded = true
		a.addBuiltinFlags(a.root, a.tree)
	}
}

// addBuiltins gives cobra Duet's built-in commands, so that it finds and
// lists them; the lifecycle runs them itself.
func (a *App) addBuiltins(cmd *cobra.Command, n *schema.Command) {
	for _, sub := range n.Commands {
		switch {
		case sub.Builtin:
			c := &cobra.Command{Use: sub.Name, Short: sub.Usage, Hidden: sub.Hidden, Aliases: sub.Aliases}
			a.builtins = append(a.builtins, func(show bool, _ func(*schema.Flag) bool) { c.Hidden = sub.Hidden || !show })
			if sub.Runnable {
				c.Run = func(*cobra.Command, []string) {} // never called: the lifecycle runs it
			}
			cmd.AddCommand(c)
			if !n.Builtin {
				a.placed = append(a.placed, c)
				if !slices.Contains(a.placedIn, cmd) {
					a.placedIn = append(a.placedIn, cmd)
				}
			}
			a.nodes[c], a.cmds[sub] = sub, c
			a.addBuiltins(c, sub)
		case a.cmds[sub] != nil:
			a.addBuiltins(a.cmds[sub], sub)
		}
	}
}

// addBuiltinFlags gives cobra Duet's built-in flags, so that it accepts
// and lists them; the lifecycle reads their values (Parse).
func (a *App) addBuiltinFlags(cmd *cobra.Command, n *schema.Command) {
	add := func(f *schema.Flag) {
		if flag := addFlag(cmd, f); flag != nil {
			a.builtins = append(a.builtins, func(show bool, hide func(*schema.Flag) bool) { flag.Hidden = f.Hidden || !show || hide(f) })
		}
	}
	for i := range n.Flags {
		if f := &n.Flags[i]; f.Builtin {
			add(f)
		}
	}
	if cmd == a.root {
		add(adapters.HelpAllFlag()) // the line a person's help shows for the rest
	}
	for _, sub := range n.Commands {
		if c := a.cmds[sub]; c != nil {
			a.addBuiltinFlags(c, sub)
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

// addFlag gives cobra one of Duet's built-ins, and returns it, or nil when
// cmd has a flag of that name. Its value is read by the lifecycle; cobra
// only has to accept it.
func addFlag(cmd *cobra.Command, f *schema.Flag) *pflag.Flag {
	fs := cmd.Flags()
	if f.Persistent {
		fs = cmd.PersistentFlags()
	}
	if fs.Lookup(f.Name) != nil || cmd.Flags().Lookup(f.Name) != nil {
		return nil
	}
	switch f.Type {
	case schema.Boolean:
		fs.BoolP(f.Name, shortFree(cmd, f.Short), false, f.Usage)
	case schema.Integer:
		v, _ := f.Default.(int)
		fs.Int(f.Name, v, f.Usage)
	case schema.Array:
		fs.StringSlice(f.Name, nil, f.Usage)
	default:
		v, _ := f.Default.(string)
		fs.String(f.Name, v, f.Usage)
	}
	flag := fs.Lookup(f.Name)
	flag.Hidden = f.Hidden
	return flag
}

// sameFunc reports whether two functions are the same top-level function.
func sameFunc[F any](a, b F) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return !va.IsNil() && !vb.IsNil() && va.Pointer() == vb.Pointer()
}

// examples reads cobra's Example text: each command line, described by the
// comment lines (# ...) just above it.
func examples(text string) []schema.Example {
	var out []schema.Example
	var about []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			about = nil
		case strings.HasPrefix(line, "#"):
			about = append(about, strings.TrimSpace(strings.TrimLeft(line, "#")))
		default:
			out = append(out, schema.Example{Description: strings.Join(about, " "), Command: strings.TrimPrefix(line, "$ ")})
			about = nil
		}
	}
	return out
}

var _ adapters.Framework = (*App)(nil)
