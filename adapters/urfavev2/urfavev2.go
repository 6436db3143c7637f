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
	"iter"
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

// declKey is the key of the app's Metadata under which Annotate keeps
// the declarations: a map from each command (nil for the app) to its Meta.
const declKey = "duet.meta"

type declarations = map[*cli.Command]schema.Meta

// Annotate attaches Duet declarations to cmd, a command of app, or to the
// app itself when cmd is nil, and returns cmd.
func Annotate(app *cli.App, cmd *cli.Command, meta schema.Meta) *cli.Command {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	decl, _ := app.Metadata[declKey].(declarations)
	if decl == nil {
		decl = declarations{}
		app.Metadata[declKey] = decl
	}
	decl[cmd] = meta
	return cmd
}

// App is a wrapped urfave/cli v2 app: the app as Wrap prepared it, run
// with the options of the Wrap that returned it.
type App struct {
	*wrapping
	opts []adapters.Option
}

// wrapping is what Wrap does to an app, once per app (kept in its
// Metadata): an app wrapped again — one whose tests run it through
// urfavev2.Exec once per case — keeps what the first Wrap made of it,
// instead of reading Duet's additions as the app's.
type wrapping struct {
	app      *cli.App
	decl     declarations
	root     *cli.Command // stands for the app in nodes and cmds: v2 makes its own when it runs
	tree     *schema.Command
	t        urfavecli.Tree[*cli.Command]
	opts     []adapters.Option // the first Wrap's: those the tree was prepared with
	prepared wrapped.Tree

	usage    map[*cli.Command]cli.OnUsageErrorFunc // the app's own, which a person and a script get
	notFound cli.CommandNotFoundFunc
	exitErr  cli.ExitErrHandlerFunc

	ctx        context.Context      // the invocation Execute runs, for presetFlag
	missing    string               // the command a CommandNotFound was called for
	envHelp    bool                 // the app's help names the variables it declares
	own        map[*cli.Command]int // how many flags are the app's own, of each command Duet equipped
	completing *schema.Command      // a shell asking v2 for completion candidates
}

// wrappingKey is where Wrap keeps its wrapping, in the app's Metadata.
const wrappingKey = "duet.wrapping"

// Wrap prepares app for Duet: it reads the command tree and every
// declaration, adds the built-in flags and commands, and wraps every
// action. It fails, naming the app, when a declaration is broken.
func Wrap(app *cli.App, opts ...adapters.Option) (*App, error) {
	w, _ := app.Metadata[wrappingKey].(*wrapping)
	if w == nil {
		decl, _ := app.Metadata[declKey].(declarations)
		w = &wrapping{app: app, decl: decl, opts: opts,
			usage: map[*cli.Command]cli.OnUsageErrorFunc{}, notFound: app.CommandNotFound, exitErr: app.ExitErrHandler, own: map[*cli.Command]int{},
			root: &cli.Command{Name: app.Name, Usage: app.Usage, Description: app.Description, Subcommands: app.Commands, Flags: app.Flags,
				Action: app.Action, HideHelp: app.HideHelp, HideHelpCommand: app.HideHelpCommand, UseShortOptionHandling: app.UseShortOptionHandling,
				SkipFlagParsing: app.SkipFlagParsing, ArgsUsage: app.ArgsUsage}}
		if app.Metadata == nil {
			app.Metadata = map[string]any{}
		}
		app.Metadata[wrappingKey] = w
	}
	a := &App{wrapping: w, opts: opts}
	if len(a.decl) > 0 {
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
		if a.app.Version != "" && !a.app.HideVersion && cli.VersionFlag != nil && flagNamed(a.root.Flags, cli.VersionFlag.Names()[0]) == nil {
			v := flagOf(cli.VersionFlag) // v2's own, which it adds when it runs
			v.Persistent = false
			a.tree.Flags = append(a.tree.Flags, v)
		}
		a.completing = &schema.Command{Name: completionFlag, Hidden: true, Runnable: true, Passthrough: true, Parent: a.tree, Meta: schema.Meta{Danger: schema.Safe}}
		return a.tree
	}, a.wrapping.opts, func(*schema.Command) { a.install() })
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
// its own main; when Duet answered, the error is an *adapters.ExitError
// carrying the answer's exit code (see adapters.Exec).
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
	a.ctx = ctx
	// What a run sets on the app is for this run only: a later run, Duet's
	// or the app's own app.Run, starts from what the app set.
	defer func(in io.Reader, out, errs io.Writer, notFound cli.CommandNotFoundFunc, exit cli.ExitErrHandlerFunc) {
		app.Reader, app.Writer, app.ErrWriter, app.CommandNotFound, app.ExitErrHandler = in, out, errs, notFound, exit
		for cmd, usage := range a.usage {
			if cmd == a.root {
				app.OnUsageError = usage
			} else {
				cmd.OnUsageError = usage
			}
		}
	}(app.Reader, app.Writer, app.ErrWriter, app.CommandNotFound, app.ExitErrHandler)
	urfavecli.SetStreams(s, &app.Reader, &app.Writer, &app.ErrWriter)
	if s.Builtins {
		a.t.Along(commands{}, a.root, args, a.equip)
	} else {
		defer urfavecli.Withdraw(a.own, func(c *cli.Command) *[]cli.Flag { return &c.Flags })()
	}
	a.t.Show(commands{}, s.Builtins && s.Listing, s.Hide, s.HideFlag)
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
	var missing error
	if a.missing != "" {
		missing = fmt.Errorf("No help topic for '%v'", a.missing)
	}
	return urfavecli.Ran(s, err, missing, errOut)
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
	a.t.Add(cmd, n)
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

// flagNamed returns the flag of flags one of whose names is name, or nil.
func flagNamed(flags []cli.Flag, name string) cli.Flag {
	f, _ := urfavecli.FlagNamed(flags, name)
	return f
}

// flagOf reads one v2 flag, through the interfaces v2's own flags have.
func flagOf(f cli.Flag) schema.Flag {
	names := f.Names()
	sf := schema.Flag{Name: names[0]}
	typeOf(f, &sf)
	for _, alias := range names[1:] {
		if len(alias) == 1 && sf.Short == "" {
			sf.Short = alias
		} else {
			sf.Aliases = append(sf.Aliases, alias)
		}
	}
	if d, ok := f.(cli.DocGenerationFlag); ok {
		sf.Usage, sf.Env = d.GetUsage(), d.GetEnvVars()
	}
	if r, ok := f.(cli.RequiredFlag); ok {
		sf.Required = r.IsRequired()
	}
	if v, ok := f.(cli.VisibleFlag); ok {
		sf.Hidden = !v.IsVisible()
	}
	return sf
}

// typeOf reads the type of f's values into sf, with f's default as JSON
// carries it, and returns a value of Go's flag package that parses a
// command line's text as f's own does (see Parse).
func typeOf(f cli.Flag, sf *schema.Flag) flag.Value {
	s := flag.NewFlagSet("", flag.ContinueOnError)
	switch f := f.(type) {
	case *cli.BoolFlag:
		sf.Type, sf.Default = schema.Boolean, f.Value
		s.Bool("v", false, "")
	case *cli.IntFlag:
		sf.Type, sf.Default = schema.Integer, f.Value
		s.Int("v", 0, "")
	case *cli.Int64Flag:
		sf.Type, sf.Default = schema.Integer, f.Value
		s.Int64("v", 0, "")
	case *cli.UintFlag:
		sf.Type, sf.Default = schema.Integer, f.Value
		s.Uint("v", 0, "")
	case *cli.Uint64Flag:
		sf.Type, sf.Default = schema.Integer, f.Value
		s.Uint64("v", 0, "")
	case *cli.Float64Flag:
		sf.Type, sf.Default = schema.Number, f.Value
		s.Float64("v", 0, "")
	case *cli.DurationFlag:
		sf.Type, sf.Format, sf.Default = schema.String, "duration", f.Value.String()
		s.Duration("v", 0, "")
	case *cli.StringSliceFlag, *cli.IntSliceFlag, *cli.Int64SliceFlag, *cli.Float64SliceFlag, *cli.UintSliceFlag, *cli.Uint64SliceFlag:
		sf.Type, sf.Items = schema.Array, schema.String // items are checked by the flag when v2 runs
		s.String("v", "", "")
	default:
		d, ok := f.(cli.DocGenerationFlag)
		if ok && !d.TakesValue() {
			sf.Type, sf.Default = schema.Boolean, false
			s.Bool("v", false, "")
			break
		}
		sf.Type = schema.String
		if ok && d.GetValue() != "" {
			sf.Default = d.GetValue()
		}
		s.String("v", "", "")
	}
	return s.Lookup("v").Value
}

// install wraps every action of the app with the lifecycle, gives every
// command the flag that presets its values, and keeps the app's own usage
// hooks for a person and a script.
func (a *App) install() {
	for cmd, node := range a.t.Nodes {
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
// sets the others before the command line is parsed. The lifecycle has
// read that command line, and presets no flag it gives: it reads every
// command line of an app whose tree is built, and only such an app has
// this flag (install).
type presetFlag struct {
	a    *App
	node *schema.Command
}

func (p *presetFlag) Apply(set *flag.FlagSet) error {
	if p.a.ctx == nil {
		return nil
	}
	return adapters.Preset(p.a.ctx, p.node, func(name, value string) error {
		return set.Set(name, value)
	})
}

// The rest of cli.Flag: the flag has no name of its own, so that no help,
// completion or suggestion shows it.
func (p *presetFlag) Names() []string { return nil }
func (p *presetFlag) IsSet() bool     { return false }
func (p *presetFlag) String() string  { return "" }

// equip gives cmd Duet's built-in flags and commands (urfavecli.Tree):
// every built-in flag it accepts, as v2 has no inherited flags.
func (a *App) equip(cmd *cli.Command) {
	a.prepare()
	if !a.envHelp {
		a.envHelp = true // the root's help names the variables the app reads (O-043)
		if s := adapters.RootEnvHelp(a.tree, a.Declared(), a.opts...); s != "" {
			a.app.Description = strings.TrimLeft(a.app.Description+"\n\n"+s, "\n")
		}
	}
	if n := a.t.Nodes[cmd]; n != nil {
		if _, ok := a.own[cmd]; !ok {
			a.own[cmd] = len(cmd.Flags) // Duet's follow the app's (see urfavecli.Withdraw)
		}
		a.t.Equip(commands{}, cmd, func(yield func(*schema.Flag) bool) {
			for f := range n.Accepted() {
				if !yield(f) {
					return
				}
			}
			// The line a person's help shows for the rest, on every
			// command: v2 lists a command's own flags only.
			yield(adapters.HelpAllFlag())
		})
	}
}

// commands is how urfavecli.Tree reaches v2's commands.
type commands struct{}

func (commands) Sub(cmd *cli.Command, name string) (*cli.Command, bool) {
	c := cmd.Command(name)
	return c, c != nil
}

func (commands) FlagNames(cmd *cli.Command) iter.Seq[string] { return urfavecli.FlagNames(cmd.Flags) }

func (commands) AddCommand(cmd *cli.Command, sub *schema.Command) (*cli.Command, func(hidden bool)) {
	c := &cli.Command{Name: sub.Name, Usage: sub.Usage, Hidden: sub.Hidden, Aliases: sub.Aliases}
	if sub.Runnable {
		c.Action = func(*cli.Context) error { return nil } // never called: the lifecycle runs it
	}
	cmd.Subcommands = append(cmd.Subcommands, c)
	return c, func(h bool) { c.Hidden = h }
}

func (commands) Hide(cmd *cli.Command) { cmd.Hidden = true }

// AddFlag gives cmd a v2 flag for one of Duet's built-ins, so that help
// lists it.
func (commands) AddFlag(cmd *cli.Command, f *schema.Flag) (hide func(bool)) {
	var short []string
	if f.Short != "" {
		short = []string{f.Short}
	}
	var flag cli.Flag
	switch f.Type {
	case schema.Boolean:
		c := &cli.BoolFlag{Name: f.Name, Aliases: short, Usage: f.Usage, Hidden: f.Hidden}
		flag, hide = c, func(h bool) { c.Hidden = h }
	case schema.Integer:
		v, _ := f.Default.(int)
		c := &cli.IntFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Value: v}
		flag, hide = c, func(h bool) { c.Hidden = h }
	case schema.Array:
		c := &cli.StringSliceFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden}
		flag, hide = c, func(h bool) { c.Hidden = h }
	default:
		v, _ := f.Default.(string)
		c := &cli.StringFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Value: v}
		flag, hide = c, func(h bool) { c.Hidden = h }
	}
	cmd.Flags = append(cmd.Flags, flag)
	return hide
}

var _ adapters.Framework = (*App)(nil)
