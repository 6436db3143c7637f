// Package urfave wraps a urfave/cli v3 app so that one binary serves a person
// at a terminal, a script and an agent.
//
//	urfave.Main(root, adapters.WithVersion(version)) // instead of root.Run(ctx, os.Args)
//
// Wrapped, the app runs as before for a person and a script, and urfave
// parses every command line as it always did; an agent gets one envelope.
// Then port command by command: Annotate declares what urfave cannot say,
// and an action answers through envelope.From(ctx).
//
//	urfave.Annotate(list, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]Item]()})
//
// Duet's built-in flags (--format, --output, --dry-run, --yes, --limit,
// --timeout ...) are urfave flags of the commands they belong to, shown in
// help; an action reads them through the result handle (DryRun, Window)
// rather than with cmd.Bool. An app flag of the same name is the app's own.
// The lifecycle itself lives in package adapters and is shared with the
// cobra adapter.
package urfave

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/urfavecli"
	"github.com/duet-cli/duet/adapters/internal/wrapped"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// metaKey is where Annotate keeps a command's declarations: in the command's
// own Metadata, so no registry outlives the app.
const metaKey = "duet.meta"

// Option configures the adapter; see package adapters for each.
type Option = adapters.Option

// Annotate attaches Duet declarations to a command and returns it.
func Annotate(cmd *cli.Command, meta schema.Meta) *cli.Command {
	if cmd.Metadata == nil {
		cmd.Metadata = map[string]any{}
	}
	cmd.Metadata[metaKey] = meta
	return cmd
}

// App is a wrapped urfave/cli app: a root command as Wrap prepared it, run
// with the options of the Wrap that returned it.
type App struct {
	*wrapping
	opts []Option
}

// wrapping is what Wrap does to a root command, once per root (kept in the
// root's Metadata): a root wrapped again — an app whose tests run its
// package-level command through urfave.Exec once per case — keeps what the
// first Wrap made of it, instead of reading Duet's additions as the app's.
type wrapping struct {
	root *cli.Command
	tree *schema.Command
	t    urfavecli.Tree[*cli.Command]
	opts []Option // the first Wrap's: those the tree was prepared with

	declared bool // the app declares something to Duet: prepared by Wrap
	prepared wrapped.Tree

	// The app's own hooks, which a person and a script get.
	hooks   map[*cli.Command]hooks
	exitErr cli.ExitErrHandlerFunc

	envHelp    bool                 // the root's help names the variables the app reads
	notFound   string               // set by CommandNotFound, which cannot return an error
	own        map[*cli.Command]int // how many flags are the app's own, of each command Duet equipped
	completing *schema.Command      // a shell asking urfave for completion candidates
}

// wrappingKey is where Wrap keeps its wrapping, in the root's Metadata.
const wrappingKey = "duet.wrapping"

type hooks struct {
	usage    cli.OnUsageErrorFunc
	notFound cli.CommandNotFoundFunc
}

// Wrap prepares root for Duet: it reads the command tree and every
// declaration, adds the built-in flags and the describe command, and wraps
// every action. It fails, naming the command, when a declaration is broken.
// Wrapping a root again returns an App of the first Wrap's tree, with the
// new options to run with.
func Wrap(root *cli.Command, opts ...Option) (*App, error) {
	w, _ := root.Metadata[wrappingKey].(*wrapping)
	if w == nil {
		w = &wrapping{root: root, opts: opts, hooks: map[*cli.Command]hooks{}, exitErr: root.ExitErrHandler, declared: annotated(root),
			own: map[*cli.Command]int{}}
		if root.Metadata == nil {
			root.Metadata = map[string]any{}
		}
		root.Metadata[wrappingKey] = w
	}
	a := &App{wrapping: w, opts: opts}
	if a.declared {
		if err := a.prepare(); err != nil {
			return nil, fmt.Errorf("duet: %s: %w", root.Name, err)
		}
	}
	return a, nil
}

// annotated reports whether cmd or a command below it was given to Annotate.
func annotated(cmd *cli.Command) bool {
	return wrapped.Declared(cmd,
		func(c *cli.Command) bool { _, ok := c.Metadata[metaKey]; return ok },
		func(c *cli.Command) []*cli.Command { return c.Commands })
}

// prepare builds the tree, checks it and wraps the app's commands, once
// (see wrapped.Tree).
func (a *App) prepare() error {
	return a.prepared.Prepare(func() *schema.Command {
		a.tree = a.build(a.root, nil)
		a.addUrfaveCommands()
		return a.tree
	}, a.wrapping.opts, func(tree *schema.Command) { a.install(a.root, tree) })
}

// Run wraps root and runs one invocation with args (without the program name),
// returning the exit code.
func Run(ctx context.Context, root *cli.Command, args []string, opts ...Option) int {
	return adapters.WrapAndRun(ctx, func() (*App, error) { return Wrap(root, opts...) }, args)
}

// Main runs the app with the process's arguments and exits with its code. A
// declaration that does not hold is reported on stderr with exit code 1. An
// error a command nobody ported returns is printed on stderr, exit code 1
// (an ExitCoder's own), as most mains print what root.Run returns; an app
// whose main reports errors its own way uses Exec instead.
func Main(root *cli.Command, opts ...Option) {
	adapters.Main(func() (*App, error) { return Wrap(root, opts...) }, os.Args[1:])
}

// Exec is a drop-in for root.Run(ctx, osArgs), for an app that keeps its own
// main: osArgs are the program's name and its arguments, as os.Args, and an
// error from a command that runs as it would without Duet is returned for
// the main to report as before. When Duet answered, the error is an
// *adapters.ExitError carrying the answer's exit code (see adapters.Exec).
// It never exits the process.
//
//	if err := urfave.Exec(ctx, root, os.Args); err != nil { // was root.Run(ctx, os.Args)
//		os.Exit(adapters.ExitCode(err))
//	}
func Exec(ctx context.Context, root *cli.Command, osArgs []string, opts ...Option) error {
	return adapters.Exec(ctx, func() (*App, error) { return Wrap(root, opts...) }, osArgs[min(1, len(osArgs)):])
}

// Run runs one invocation and returns its exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	return adapters.Run(ctx, a, args)
}

// Options returns the options the app was wrapped with, which every run of
// it applies (see adapters.Run).
func (a *App) Options() []Option { return a.opts }

// Name returns the tool's name.
func (a *App) Name() string { return a.root.Name }

// Declared reports whether the app declares anything to Duet.
func (a *App) Declared() bool { return a.declared }

// Tree returns the neutral command tree.
func (a *App) Tree() *schema.Command {
	a.prepare()
	return a.tree
}

// Execute lets urfave parse and dispatch.
func (a *App) Execute(ctx context.Context, args []string, s adapters.Streams) error {
	root := a.root
	// What a run sets on the root is for this run only: a later run, Duet's
	// or the app's own root.Run, starts from what the app set.
	defer func(in io.Reader, out, errs io.Writer, exit cli.ExitErrHandlerFunc) {
		root.Reader, root.Writer, root.ErrWriter, root.ExitErrHandler = in, out, errs, exit
		for cmd, h := range a.hooks {
			cmd.OnUsageError, cmd.CommandNotFound = h.usage, h.notFound
		}
	}(root.Reader, root.Writer, root.ErrWriter, root.ExitErrHandler)
	urfavecli.SetStreams(s, &root.Reader, &root.Writer, &root.ErrWriter)
	if s.Builtins {
		a.t.Along(commands{}, root, args, a.equip)
	} else {
		defer urfavecli.Withdraw(a.own, func(c *cli.Command) *[]cli.Flag { return &c.Flags })()
	}
	a.t.Show(commands{}, s.Builtins && s.Listing, s.Hide, s.HideFlag)
	// When the lifecycle answers, it reports every error and nothing may
	// exit behind its back; otherwise urfave reports them as the app set it
	// to, and the lifecycle exits with the code an ExitCoder carries.
	errOut := cmp.Or[io.Writer](s.Stderr, os.Stderr)
	a.notFound = ""
	for cmd, h := range a.hooks {
		if s.Answer {
			cmd.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error { return err }
			cmd.CommandNotFound = func(_ context.Context, _ *cli.Command, name string) { a.notFound = name }
		} else {
			cmd.OnUsageError, cmd.CommandNotFound = h.usage, h.notFound
		}
	}
	switch {
	case s.Answer:
		root.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	case a.exitErr != nil || s.AppMain:
		root.ExitErrHandler = a.exitErr // the app's own, or urfave's
	default:
		root.ExitErrHandler = func(_ context.Context, _ *cli.Command, err error) { urfavecli.ReportExit(errOut, err) }
	}
	err := root.Run(ctx, append([]string{root.Name}, args...))
	var missing error
	if a.notFound != "" {
		missing = fmt.Errorf("unknown command %q", a.notFound)
	}
	return urfavecli.Ran(s, err, missing, errOut)
}

// Classify turns urfave's own errors into ARG_ERRORs.
func (a *App) Classify(err error) *envelope.Error { return urfavecli.Classify(err) }

// build translates one urfave command, and its subcommands, into the tree.
func (a *App) build(cmd *cli.Command, parent *schema.Command) *schema.Command {
	n := &schema.Command{
		Name:        cmd.Name,
		Aliases:     cmd.Aliases,
		Usage:       cmd.Usage,
		Description: cmd.Description,
		Hidden:      cmd.Hidden,
		Runnable:    cmd.Action != nil,
		Version:     cmd.Version,
		Parent:      parent,
	}
	if m, ok := cmd.Metadata[metaKey].(schema.Meta); ok {
		n.Meta, n.Declared = m, true
	}
	n.Deprecated = cmd.Deprecated
	n.Flags = make([]schema.Flag, 0, len(cmd.Flags)+1)
	for _, f := range cmd.Flags {
		sf := flagOf(f)
		if len(sf.Env) > 0 {
			detachEnv(f)
		}
		n.Flags = append(n.Flags, sf)
	}
	if parent == nil && cmd.Version != "" && !cmd.HideVersion {
		// urfave's own --version, which it adds when it runs.
		if v := versionFlag(cmd); v != nil {
			n.Flags = append(n.Flags, *v)
		}
	}
	for _, arg := range cmd.Arguments {
		n.Args = append(n.Args, argOf(arg))
	}
	if n.Args == nil && n.Meta.Args == nil && cmd.ArgsUsage != "" {
		// Arguments read with cmd.Args() and documented only in ArgsUsage:
		// accept any number rather than refuse what the app expects.
		n.Args = []schema.Arg{{Name: "args", Type: schema.String, Variadic: true, Usage: cmd.ArgsUsage}}
	}
	n.Meta.Groups = slices.Clip(n.Meta.Groups) // appended to: never into the app's slice
	for _, g := range cmd.MutuallyExclusiveFlags {
		var names []string
		for _, group := range g.Flags {
			for _, f := range group {
				names = append(names, f.Names()[0])
			}
		}
		kind := schema.MutuallyExclusive
		n.Meta.Groups = append(n.Meta.Groups, schema.Group{Kind: kind, Flags: names})
		if g.Required {
			n.Meta.Groups = append(n.Meta.Groups, schema.Group{Kind: schema.OneRequired, Flags: names})
		}
	}
	a.t.Add(cmd, n)
	for _, sub := range cmd.Commands {
		n.Commands = append(n.Commands, a.build(sub, n))
	}
	return n
}

// addUrfaveCommands puts the completion command urfave adds when it runs
// into the tree as a hidden pass-through command: a shell runs it and reads
// urfave's own output, never an envelope. Its completion requests pass
// through the same way.
func (a *App) addUrfaveCommands() {
	passthrough := func(name string) *schema.Command {
		return &schema.Command{Name: name, Hidden: true, Runnable: true, Passthrough: true, Parent: a.tree, Meta: schema.Meta{Danger: schema.Safe}}
	}
	a.completing = passthrough(completionFlag)
	if name := a.completionCommand(); name != "" && a.tree.Sub(name) == nil {
		a.tree.Commands = append(a.tree.Commands, passthrough(name))
	}
}

// versionFlag is the flag urfave adds to root for its version, with the
// names the app's own flags leave it, or nil when they leave it none.
func versionFlag(root *cli.Command) *schema.Flag {
	f := schema.Flag{Name: "version", Type: schema.Boolean, Usage: "print the version"}
	for _, name := range cli.VersionFlag.Names() {
		if flagNamed(root.Flags, name) != nil {
			if name == "version" {
				return nil
			}
			continue
		}
		if len(name) == 1 {
			f.Short = name
		}
	}
	return &f
}

// flagNamed returns the flag of flags one of whose names is name, or nil.
func flagNamed(flags []cli.Flag, name string) cli.Flag {
	f, _ := urfavecli.FlagNamed(flags, name)
	return f
}

func flagOf(f cli.Flag) schema.Flag {
	d, ok := f.(described)
	if !ok {
		d = partial{f}
	}
	names := d.Names()
	sf := schema.Flag{Name: names[0], Type: schema.String, Usage: d.GetUsage(), Env: d.GetEnvVars(),
		Required: d.IsRequired(), Hidden: !d.IsVisible(), Persistent: !d.IsLocal()}
	for _, alias := range names[1:] {
		if len(alias) == 1 && sf.Short == "" {
			sf.Short = alias
		} else {
			sf.Aliases = append(sf.Aliases, alias)
		}
	}
	switch st := d.SchemaType(); st {
	case "duration":
		sf.Type, sf.Format = schema.String, "duration"
	case "date-time":
		sf.Type, sf.Format = schema.String, "date-time"
	case "":
	default:
		sf.Type = schema.Type(st)
	}
	sf.Items = schema.Type(d.SchemaItemsType())
	if sf.Type == schema.Object && sf.Items == "" {
		sf.Items = schema.String
	}
	sf.Default = defaultOf(f, sf)
	if d, ok := f.(cli.DeprecatedFlag); ok {
		sf.Deprecated = d.GetDeprecated()
	}
	return sf
}

// described is what flagOf reads from a flag: the methods of urfave's own
// flag types (cli.FlagBase). Asserting it once per flag type builds one itab
// where asserting urfave's small interfaces one by one would build seven, at
// every start of the program.
type described interface {
	cli.Flag
	cli.SchemaTyper
	cli.SchemaItemsTyper
	cli.RequiredFlag
	cli.VisibleFlag
	cli.LocalFlag
	GetUsage() string
	GetEnvVars() []string
}

// partial reads a flag type of the app's own that has only some of the
// methods of [described], giving urfave's defaults for the others.
type partial struct{ cli.Flag }

func (p partial) SchemaType() string {
	if t, ok := p.Flag.(cli.SchemaTyper); ok {
		return t.SchemaType()
	}
	return ""
}

func (p partial) SchemaItemsType() string {
	if t, ok := p.Flag.(cli.SchemaItemsTyper); ok {
		return t.SchemaItemsType()
	}
	return ""
}

func (p partial) IsRequired() bool {
	r, ok := p.Flag.(cli.RequiredFlag)
	return ok && r.IsRequired()
}

func (p partial) IsVisible() bool {
	v, ok := p.Flag.(cli.VisibleFlag)
	return !ok || v.IsVisible()
}

func (p partial) IsLocal() bool {
	l, ok := p.Flag.(cli.LocalFlag)
	return ok && l.IsLocal()
}

func (p partial) GetUsage() string {
	if d, ok := p.Flag.(cli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

func (p partial) GetEnvVars() []string {
	if d, ok := p.Flag.(cli.DocGenerationFlag); ok {
		return d.GetEnvVars()
	}
	return nil
}

// defaultOf returns a flag's default as JSON would carry it, or nil when the
// flag has none worth stating.
func defaultOf(f cli.Flag, sf schema.Flag) any {
	v := f.Get()
	switch x := v.(type) { // urfave's own value types first, without reflection
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
	case []string:
		if len(x) == 0 {
			return nil
		}
	case bool, int, int64, uint, uint64, float64:
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Slice, reflect.Map, reflect.String:
			if rv.Len() == 0 {
				return nil
			}
		}
	}
	if sf.Format != "" {
		if s, ok := v.(fmt.Stringer); ok {
			return s.String()
		}
	}
	return v
}

// detachEnv leaves the environment variables of flag f to the lifecycle,
// which hands their values to urfave (Preset) from the environment it was
// given — the process's, or adapters.WithEnv's — before urfave checks
// required flags. urfave would read the process's itself, behind
// adapters.WithEnv. Each of f's environment sources becomes a lifecycleEnv,
// which keeps the variable's name for help; other sources (files, maps)
// stay as they are.
func detachEnv(f cli.Flag) {
	rv := reflect.ValueOf(f)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return
	}
	field := rv.Elem().FieldByName("Sources")
	if !field.IsValid() || !field.CanAddr() || field.Type() != reflect.TypeFor[cli.ValueSourceChain]() {
		return
	}
	chain := field.Addr().Interface().(*cli.ValueSourceChain)
	for i, src := range chain.Chain {
		if e, ok := src.(cli.EnvValueSource); ok && e.IsFromEnv() {
			chain.Chain[i] = lifecycleEnv(e.Key())
		}
	}
}

// lifecycleEnv is an environment variable in a flag's Sources whose value
// the lifecycle supplies: it names the variable and looks nothing up.
type lifecycleEnv string

func (e lifecycleEnv) Lookup() (string, bool) { return "", false }
func (e lifecycleEnv) IsFromEnv() bool        { return true }
func (e lifecycleEnv) Key() string            { return string(e) }
func (e lifecycleEnv) String() string         { return fmt.Sprintf("environment variable %q", string(e)) }
func (e lifecycleEnv) GoString() string       { return fmt.Sprintf("lifecycleEnv(%q)", string(e)) }

// argOf reads a positional argument. urfave keeps Required, Min and Max in
// unexported interfaces, so they are read from the argument's fields.
func argOf(arg cli.Argument) schema.Arg {
	rv := reflect.Indirect(reflect.ValueOf(arg))
	a := schema.Arg{Type: schema.String}
	if rv.Kind() != reflect.Struct {
		return a
	}
	str := func(name string) string {
		if f := rv.FieldByName(name); f.IsValid() && f.Kind() == reflect.String {
			return f.String()
		}
		return ""
	}
	num := func(name string) (int, bool) {
		if f := rv.FieldByName(name); f.IsValid() && f.CanInt() {
			return int(f.Int()), true
		}
		return 0, false
	}
	a.Name, a.Usage = str("Name"), str("UsageText")
	if f := rv.FieldByName("Required"); f.IsValid() && f.Kind() == reflect.Bool {
		a.Required = f.Bool()
	}
	if lo, ok := num("Min"); ok {
		hi, _ := num("Max")
		a.Variadic = hi < 0 || hi > 1
		a.Required = lo > 0
	}
	if f := rv.FieldByName("Value"); f.IsValid() {
		switch f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			a.Type = schema.Integer
		case reflect.Float32, reflect.Float64:
			a.Type = schema.Number
		}
	}
	return a
}

// install wraps every action of the urfave app with the lifecycle, and
// keeps the app's own hooks for a person and a script.
func (a *App) install(cmd *cli.Command, n *schema.Command) {
	for _, sub := range cmd.Commands {
		if node := a.t.Nodes[sub]; !node.Builtin {
			a.install(sub, node)
		}
	}
	a.hooks[cmd] = hooks{usage: cmd.OnUsageError, notFound: cmd.CommandNotFound}
	if orig := cmd.Action; orig != nil {
		cmd.Action = func(ctx context.Context, c *cli.Command) error {
			return adapters.Invoke(ctx, func(ctx context.Context) error { return orig(ctx, c) })
		}
	}
	// urfave checks required flags after Before: values the lifecycle
	// resolved must be in place by then.
	before := cmd.Before
	cmd.Before = func(ctx context.Context, c *cli.Command) (context.Context, error) {
		if err := adapters.Preset(ctx, n, setter(c)); err != nil {
			return ctx, err
		}
		if before != nil {
			return before(ctx, c)
		}
		return ctx, nil
	}
}

// equip gives cmd Duet's built-in flags and commands, once, so that urfave
// accepts and lists them (the lifecycle reads their values and runs the
// commands itself): only the commands a command line reaches, when it is
// read (Parse) or run (Execute) — an app made anew for each call (an MCP
// server's in-process runner) pays for the path, not the whole tree. A run
// the lifecycle leaves to the app without reading its command line —
// nothing ported, no Duet flag given — never pays for them.
func (a *App) equip(cmd *cli.Command) {
	a.prepare()
	if !a.envHelp {
		a.envHelp = true
		a.addEnvHelp() // artifacts: the variables the app reads (O-043)
	}
	if n := a.t.Nodes[cmd]; n != nil {
		if _, ok := a.own[cmd]; !ok {
			a.own[cmd] = len(cmd.Flags) // Duet's follow the app's (see urfavecli.Withdraw)
		}
		a.t.Equip(commands{}, cmd, func(yield func(*schema.Flag) bool) {
			for i := range n.Flags { // its own: urfave's flags are persistent unless local
				if !yield(&n.Flags[i]) {
					return
				}
			}
			if cmd == a.root {
				yield(adapters.HelpAllFlag()) // the line a person's help shows for the rest
			}
		})
	}
}

// commands is how urfavecli.Tree reaches urfave's commands.
type commands struct{}

func (commands) Sub(cmd *cli.Command, name string) (*cli.Command, bool) {
	for _, c := range cmd.Commands {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c, true
		}
	}
	return nil, false
}

func (commands) FlagNames(cmd *cli.Command) iter.Seq[string] { return urfavecli.FlagNames(cmd.Flags) }

func (commands) AddFlag(cmd *cli.Command, f *schema.Flag) func(hidden bool) {
	flag, hide := cliFlag(*f)
	cmd.Flags = append(cmd.Flags, flag)
	return hide
}

func (commands) AddCommand(cmd *cli.Command, sub *schema.Command) (*cli.Command, func(hidden bool)) {
	c := &cli.Command{Name: sub.Name, Usage: sub.Usage, Hidden: sub.Hidden, Aliases: sub.Aliases}
	if sub.Runnable {
		c.Action = func(context.Context, *cli.Command) error { return nil } // never called: the lifecycle runs it
	}
	cmd.Commands = append(cmd.Commands, c)
	return c, func(h bool) { c.Hidden = h }
}

func (commands) Hide(cmd *cli.Command) { cmd.Hidden = true }

func setter(c *cli.Command) adapters.Setter {
	return func(name, value string) error {
		if c.IsSet(name) {
			return nil
		}
		return c.Set(name, value)
	}
}

// cliFlag makes a urfave flag for one of Duet's built-ins, so that help lists
// it. Their values are read by the lifecycle; urfave only has to accept them.
// and a function that hides it in help or shows it.
func cliFlag(f schema.Flag) (cli.Flag, func(hidden bool)) {
	local := !f.Persistent
	var short []string // Duet's -V
	if f.Short != "" {
		short = []string{f.Short}
	}
	// A usage that says its default itself keeps urfave from saying it
	// again, as "(default: 0)".
	said := strings.Contains(f.Usage, "(default")
	switch f.Type {
	case schema.Boolean:
		c := &cli.BoolFlag{Name: f.Name, Aliases: short, Usage: f.Usage, Hidden: f.Hidden, Local: local}
		return c, func(h bool) { c.Hidden = h }
	case schema.Integer:
		v, _ := f.Default.(int)
		c := &cli.IntFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local, Value: v, HideDefault: said}
		return c, func(h bool) { c.Hidden = h }
	case schema.Array:
		c := &cli.StringSliceFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local}
		return c, func(h bool) { c.Hidden = h }
	default:
		v, _ := f.Default.(string)
		c := &cli.StringFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local, Value: v, HideDefault: said}
		return c, func(h bool) { c.Hidden = h }
	}
}

var _ adapters.Framework = (*App)(nil)
