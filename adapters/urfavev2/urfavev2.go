// Package urfavev2 wraps a urfave/cli v2 app so that one binary serves a
// person at a terminal, a script and an agent, as package urfave does for
// v3 apps and package cobra for cobra's.
//
//	urfavev2.Main(app, adapters.WithVersion(version)) // instead of app.Run(os.Args)
//
// v2's commands have no metadata of their own, so Annotate keeps a
// command's declarations in the app's Metadata:
//
//	list := urfavev2.Annotate(app, &cli.Command{Name: "list", Action: ...}, schema.Meta{Danger: schema.Safe})
//
// v2 parses each command's flags with Go's flag package: a command's flags
// come before its arguments and before the name of its subcommand, and the
// app's flags before the first command. A flag of the app that every
// command declares again — how a v2 app makes a flag global — is one
// global flag to Duet.
package urfavev2

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/urfavecli"
	"github.com/duet-cli/duet/adapters/internal/wrapped"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// metaKey is where Annotate keeps the declarations, in the app's Metadata:
// a map from each command (nil for the app itself) to its schema.Meta.
const metaKey = "duet.meta"

type declarations = map[*cli.Command]schema.Meta

// Annotate attaches Duet declarations to cmd, a command of app, or to the
// app itself when cmd is nil, and returns cmd.
func Annotate(app *cli.App, cmd *cli.Command, meta schema.Meta) *cli.Command {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	decl, _ := app.Metadata[metaKey].(declarations)
	if decl == nil {
		decl = declarations{}
		app.Metadata[metaKey] = decl
	}
	decl[cmd] = meta
	return cmd
}

// App is a wrapped urfave/cli v2 app. Like a *cli.App, it runs once.
type App struct {
	app      *cli.App
	decl     declarations
	root     *cli.Command // stands for the app in nodes and cmds: v2 makes its own when it runs
	tree     *schema.Command
	nodes    map[*cli.Command]*schema.Command
	cmds     map[*schema.Command]*cli.Command
	opts     []adapters.Option
	prepared wrapped.Tree

	usage    map[*cli.Command]cli.OnUsageErrorFunc // the app's own, which a person and a script get
	notFound cli.CommandNotFoundFunc
	exitErr  cli.ExitErrHandlerFunc

	builtins   []func(show bool) // shows or hides each of Duet's built-ins in help
	equipped   map[*cli.Command]bool
	ctx        context.Context // the invocation Execute runs, and its command line: for presetFlag
	args       []string
	missing    string          // the command a CommandNotFound was called for
	completing *schema.Command // a shell asking v2 for completion candidates
}

// Wrap prepares app for Duet: it reads the command tree and every
// declaration, adds the built-in flags and commands, and wraps every
// action. It fails, naming the app, when a declaration is broken.
func Wrap(app *cli.App, opts ...adapters.Option) (*App, error) {
	decl, _ := app.Metadata[metaKey].(declarations)
	a := &App{app: app, decl: decl, opts: opts, nodes: map[*cli.Command]*schema.Command{}, cmds: map[*schema.Command]*cli.Command{},
		usage: map[*cli.Command]cli.OnUsageErrorFunc{}, notFound: app.CommandNotFound, exitErr: app.ExitErrHandler,
		root: &cli.Command{Name: app.Name, Usage: app.Usage, Description: app.Description, Subcommands: app.Commands, Flags: app.Flags,
			Action: app.Action, HideHelp: app.HideHelp, HideHelpCommand: app.HideHelpCommand, UseShortOptionHandling: app.UseShortOptionHandling,
			SkipFlagParsing: app.SkipFlagParsing, ArgsUsage: app.ArgsUsage}}
	if len(decl) > 0 {
		if err := a.prepare(); err != nil {
			return nil, fmt.Errorf("duet: %s: %w", app.Name, err)
		}
	}
	return a, nil
}

func (a *App) prepare() error {
	return a.prepared.Prepare(func() *schema.Command {
		a.tree = a.build(a.root, nil)
		a.tree.Version = a.app.Version
		if a.app.Version != "" && !a.app.HideVersion && cli.VersionFlag != nil {
			a.tree.Flags = append(a.tree.Flags, schema.Flag{Name: "version", Short: "v", Type: schema.Boolean, Usage: "print the version"})
		}
		a.completing = &schema.Command{Name: completionFlag, Hidden: true, Runnable: true, Passthrough: true, Parent: a.tree, Meta: schema.Meta{Danger: schema.Safe}}
		return a.tree
	}, a.opts, func(*schema.Command) { a.install() })
}

// Run wraps app and runs one invocation with args (without the program's
// name), returning the exit code.
func Run(ctx context.Context, app *cli.App, args []string, opts ...adapters.Option) int {
	return adapters.WrapAndRun(ctx, func() (*App, error) { return Wrap(app, opts...) }, args)
}

// Main runs the app with the process's arguments and exits with its code,
// as urfave.Main does.
func Main(app *cli.App, opts ...adapters.Option) {
	adapters.Main(func() (*App, error) { return Wrap(app, opts...) }, os.Args[1:])
}

// Exec is a drop-in for app.RunContext(ctx, osArgs), for an app that keeps
// its own main (see adapters.Exec).
func Exec(ctx context.Context, app *cli.App, osArgs []string, opts ...adapters.Option) error {
	return adapters.Exec(ctx, func() (*App, error) { return Wrap(app, opts...) }, osArgs[min(1, len(osArgs)):])
}

// Run runs one invocation and returns its exit code.
func (a *App) Run(ctx context.Context, args []string) int { return adapters.Run(ctx, a, args) }

// Options returns the options the app was wrapped with.
func (a *App) Options() []adapters.Option { return a.opts }

// Name returns the tool's name.
func (a *App) Name() string { return a.app.Name }

// Declared reports whether the app declares anything to Duet.
func (a *App) Declared() bool { return len(a.decl) > 0 }

// Tree returns the neutral command tree.
func (a *App) Tree() *schema.Command {
	a.prepare()
	return a.tree
}

// Classify turns urfave's own errors into ARG_ERRORs.
func (a *App) Classify(err error) *envelope.Error { return urfavecli.Classify(err) }

// Execute lets urfave parse and dispatch.
func (a *App) Execute(ctx context.Context, args []string, s adapters.Streams) error {
	app := a.app
	a.ctx, a.args = ctx, args
	if s.Stdin != nil {
		app.Reader = s.Stdin
	}
	if out := cmp.Or(s.Help, s.Stdout); out != nil {
		app.Writer = out
	}
	if s.Stderr != nil {
		app.ErrWriter = s.Stderr
	}
	if s.Builtins {
		a.equipAlong(args)
	}
	for _, show := range a.builtins {
		show(s.Builtins)
	}
	for cmd, node := range a.nodes {
		if node.Parent != nil && s.Hide(node) {
			cmd.Hidden = true
		}
	}
	// When the lifecycle answers, it reports every error and nothing may
	// exit behind its back: v2's HandleExitCoder calls os.Exit.
	errOut := cmp.Or[io.Writer](s.Stderr, os.Stderr)
	a.missing = ""
	for cmd, usage := range a.usage {
		if s.Answer {
			usage = func(_ *cli.Context, err error, _ bool) error { return err }
		}
		if cmd == a.root {
			app.OnUsageError = usage
		} else {
			cmd.OnUsageError = usage
		}
	}
	switch {
	case s.Answer:
		app.CommandNotFound = func(_ *cli.Context, name string) { a.missing = name }
		app.ExitErrHandler = func(*cli.Context, error) {}
	case a.exitErr != nil || s.AppMain:
		app.CommandNotFound, app.ExitErrHandler = a.notFound, a.exitErr // the app's own, or urfave's
	default:
		app.CommandNotFound = a.notFound
		app.ExitErrHandler = func(_ *cli.Context, err error) { urfavecli.ReportExit(errOut, err) }
	}
	app.Commands, app.Flags, app.Action = a.root.Subcommands, a.root.Flags, a.root.Action
	err := app.RunContext(ctx, append([]string{app.Name}, args...))
	switch {
	case s.Answer && err == nil && a.missing != "":
		return fmt.Errorf("No help topic for '%v'", a.missing)
	case !s.Answer && !s.AppMain && err != nil && !urfavecli.Reported(err):
		fmt.Fprintln(errOut, err) // as an app's main does with what Run returns
	}
	return err
}

// build translates one v2 command, and its subcommands, into the tree.
func (a *App) build(cmd *cli.Command, parent *schema.Command) *schema.Command {
	n := &schema.Command{Name: cmd.Name, Aliases: cmd.Aliases, Usage: cmd.Usage, Description: cmd.Description,
		Hidden: cmd.Hidden, Runnable: cmd.Action != nil, Parent: parent}
	key := cmd
	if parent == nil {
		key = nil
	}
	n.Meta, n.Declared = a.decl[key]
	for _, f := range cmd.Flags {
		if parent != nil && a.global(f.Names()[0]) {
			continue // the root's, which this command declares again
		}
		sf := flagOf(f)
		sf.Persistent = parent == nil && a.global(sf.Name)
		n.Flags = append(n.Flags, sf)
	}
	if n.Meta.Args == nil && cmd.ArgsUsage != "" {
		n.Args = []schema.Arg{{Name: "args", Type: schema.String, Variadic: true, Usage: cmd.ArgsUsage}}
	}
	a.nodes[cmd], a.cmds[n] = n, cmd
	for _, sub := range cmd.Subcommands {
		n.Commands = append(n.Commands, a.build(sub, n))
	}
	return n
}

// global reports whether the app's flag called name is one every command
// declares again, so that it is taken before and after any command's name.
func (a *App) global(name string) bool {
	if flagNamed(a.root.Flags, name) == nil || len(a.root.Subcommands) == 0 {
		return false
	}
	var every func(cmds []*cli.Command) bool
	every = func(cmds []*cli.Command) bool {
		return !slices.ContainsFunc(cmds, func(c *cli.Command) bool { return flagNamed(c.Flags, name) == nil || !every(c.Subcommands) })
	}
	return every(a.root.Subcommands)
}

// flagNamed returns the flag of flags one of whose names is name.
func flagNamed(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// flagOf reads one v2 flag, through the interfaces v2's own flags have.
func flagOf(f cli.Flag) schema.Flag {
	names := f.Names()
	sf := schema.Flag{Name: names[0], Type: kindOf(f)}
	for _, alias := range names[1:] {
		if len(alias) == 1 && sf.Short == "" {
			sf.Short = alias
		} else {
			sf.Aliases = append(sf.Aliases, alias)
		}
	}
	if sf.Type == schema.Array {
		sf.Items = schema.String
	}
	if _, ok := f.(*cli.DurationFlag); ok {
		sf.Format = "duration"
	}
	if d, ok := f.(cli.DocGenerationFlag); ok {
		sf.Usage, sf.Env = d.GetUsage(), d.GetEnvVars()
		if v := d.GetValue(); v != "" && v != "[]" || sf.Type == schema.Boolean {
			sf.Default = defaultOf(f, v)
		}
	}
	if r, ok := f.(cli.RequiredFlag); ok {
		sf.Required = r.IsRequired()
	}
	if v, ok := f.(cli.VisibleFlag); ok {
		sf.Hidden = !v.IsVisible()
	}
	return sf
}

// kindOf is the type of a v2 flag's values.
func kindOf(f cli.Flag) schema.Type {
	switch f.(type) {
	case *cli.BoolFlag:
		return schema.Boolean
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		return schema.Integer
	case *cli.Float64Flag:
		return schema.Number
	case *cli.StringSliceFlag, *cli.IntSliceFlag, *cli.Int64SliceFlag, *cli.Float64SliceFlag, *cli.UintSliceFlag, *cli.Uint64SliceFlag:
		return schema.Array
	}
	if d, ok := f.(cli.DocGenerationFlag); ok && !d.TakesValue() {
		return schema.Boolean
	}
	return schema.String
}

// defaultOf is a flag's default as JSON carries it: a number for a number.
func defaultOf(f cli.Flag, text string) any {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return f.Value
	case *cli.IntFlag:
		return f.Value
	case *cli.Int64Flag:
		return f.Value
	case *cli.UintFlag:
		return f.Value
	case *cli.Uint64Flag:
		return f.Value
	case *cli.Float64Flag:
		return f.Value
	}
	return text
}

// install wraps every action of the app with the lifecycle, gives every
// command the flag that presets its values, and keeps the app's own usage
// hooks for a person and a script.
func (a *App) install() {
	for cmd, node := range a.nodes {
		if orig := cmd.Action; orig != nil {
			cmd.Action = func(c *cli.Context) error {
				return adapters.Invoke(c.Context, func(ctx context.Context) error { c.Context = ctx; return orig(c) })
			}
		}
		usage := cmd.OnUsageError
		if cmd == a.root {
			usage = a.app.OnUsageError
		}
		a.usage[cmd] = usage
		cmd.Flags = append(slices.Clip(cmd.Flags), &presetFlag{a: a, node: node})
	}
}

// presetFlag gives a command's flags the values the lifecycle resolved for
// those the command line leaves out (adapters.Preset). v2 checks required
// flags right after parsing, before any hook an app can set, so this is
// done where v2 defines the command's flags: a flag defined last, that
// sets the others, which the command line then overrides.
type presetFlag struct {
	a    *App
	node *schema.Command
}

func (p *presetFlag) Apply(set *flag.FlagSet) error {
	if p.a.ctx == nil {
		return nil
	}
	return adapters.Preset(p.a.ctx, p.node, func(name, value string) error {
		if f := p.node.Flag(name); f == nil || p.a.given(f) {
			return nil
		}
		return set.Set(name, value)
	})
}

// given reports whether the command line names f, before any "--". The
// lifecycle presets only flags its reading of the command line left out;
// this guards a run it did not read, where a value the command line gives
// a repeatable flag would otherwise add to the preset one.
func (a *App) given(f *schema.Flag) bool {
	for _, w := range a.args {
		if w == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if strings.HasPrefix(w, "-") && (name == f.Name || name == f.Short || slices.Contains(f.Aliases, name)) {
			return true
		}
	}
	return false
}

// The rest of cli.Flag: the flag has no name of its own, so that no help,
// completion or suggestion shows it.
func (p *presetFlag) Names() []string { return nil }
func (p *presetFlag) IsSet() bool     { return false }
func (p *presetFlag) String() string  { return "" }

// equip gives cmd Duet's built-in flags and commands, once, so that v2
// accepts and lists them (the lifecycle reads their values and runs the
// commands itself). v2 has no inherited flags: each command gets them all.
func (a *App) equip(cmd *cli.Command) {
	a.prepare()
	n := a.nodes[cmd]
	if n == nil || a.equipped[cmd] {
		return
	}
	if a.equipped == nil {
		a.equipped = map[*cli.Command]bool{}
	}
	a.equipped[cmd] = true
	for f := range n.Accepted() {
		if f.Builtin && flagNamed(cmd.Flags, f.Name) == nil {
			flag, hide := cliFlag(*f)
			cmd.Flags = append(cmd.Flags, flag)
			a.builtins = append(a.builtins, func(show bool) { hide(f.Hidden || !show) })
		}
	}
	for _, sub := range n.Commands {
		if !sub.Builtin || a.cmds[sub] != nil {
			continue
		}
		c := &cli.Command{Name: sub.Name, Usage: sub.Usage, Hidden: sub.Hidden, Aliases: sub.Aliases}
		a.builtins = append(a.builtins, func(show bool) { c.Hidden = sub.Hidden || !show })
		if sub.Runnable {
			c.Action = func(*cli.Context) error { return nil } // never called: the lifecycle runs it
		}
		cmd.Subcommands = append(cmd.Subcommands, c)
		a.nodes[c], a.cmds[sub] = sub, c
	}
}

// cliFlag makes a v2 flag for one of Duet's built-ins, so that help lists
// it, and a function that hides it in help or shows it.
func cliFlag(f schema.Flag) (cli.Flag, func(hidden bool)) {
	var short []string
	if f.Short != "" {
		short = []string{f.Short}
	}
	switch f.Type {
	case schema.Boolean:
		c := &cli.BoolFlag{Name: f.Name, Aliases: short, Usage: f.Usage, Hidden: f.Hidden}
		return c, func(h bool) { c.Hidden = h }
	case schema.Integer:
		v, _ := f.Default.(int)
		c := &cli.IntFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Value: v}
		return c, func(h bool) { c.Hidden = h }
	case schema.Array:
		c := &cli.StringSliceFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden}
		return c, func(h bool) { c.Hidden = h }
	default:
		v, _ := f.Default.(string)
		c := &cli.StringFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Value: v}
		return c, func(h bool) { c.Hidden = h }
	}
}

var _ adapters.Framework = (*App)(nil)

// equipAlong equips the commands args may reach from the root: each word
// that names a command of the one reached so far.
func (a *App) equipAlong(args []string) {
	cmd := a.root
	a.equip(cmd)
	for _, w := range args {
		if w == "--" {
			return
		}
		if sub := cmd.Command(w); sub != nil {
			cmd = sub
			a.equip(cmd)
		}
	}
}
