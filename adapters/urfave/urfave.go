// Package urfave wraps a urfave/cli v3 app so that one binary serves a person
// at a terminal and an agent reading a pipe.
//
//	urfave.Annotate(list, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]Item]()})
//	urfave.Main(root, urfave.WithVersion(version))
//
// Commands stay ordinary *cli.Command values; their actions find the result
// handle with envelope.From(ctx). Duet's built-in flags (--output, --dry-run,
// --yes, --limit, --cursor, --timeout ...) are the lifecycle's: urfave never
// parses them, so an action reads them through that handle (DryRun, Window)
// rather than with cmd.Bool. An app flag of the same name is the app's own.
// The lifecycle itself lives in package adapters and is shared with the cobra
// adapter.
package urfave

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// metaKey is where Annotate keeps a command's declarations: in the command's
// own Metadata, so no registry outlives the app.
const metaKey = "duet.meta"

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

// Annotate attaches Duet declarations to a command and returns it.
func Annotate(cmd *cli.Command, meta schema.Meta) *cli.Command {
	if cmd.Metadata == nil {
		cmd.Metadata = map[string]any{}
	}
	cmd.Metadata[metaKey] = meta
	return cmd
}

// App is a wrapped urfave/cli app. Like a *cli.Command, it runs once.
type App struct {
	root  *cli.Command
	tree  *schema.Command
	nodes map[*cli.Command]*schema.Command
	opts  []Option

	notFound string // set by CommandNotFound, which cannot return an error
}

// Wrap prepares root for Duet: it reads the command tree and every
// declaration, adds the built-in flags and the describe command, and wraps
// every action. It fails, naming the command, when a declaration is broken.
func Wrap(root *cli.Command, opts ...Option) (*App, error) {
	a := &App{root: root, nodes: map[*cli.Command]*schema.Command{}, opts: opts}
	a.tree = a.build(root, nil)
	if err := adapters.Prepare(a.tree, opts...); err != nil {
		return nil, fmt.Errorf("duet: %s: %w", root.Name, err)
	}
	a.install(root, a.tree)
	root.ExitErrHandler = func(context.Context, *cli.Command, error) {} // never os.Exit behind our back
	return a, nil
}

// Run wraps root and runs one invocation with args (without the program name),
// returning the exit code.
func Run(ctx context.Context, root *cli.Command, args []string, opts ...Option) int {
	return adapters.WrapAndRun(ctx, func() (*App, error) { return Wrap(root, opts...) }, args)
}

// Main runs the app with the process's arguments and exits with its code. A
// declaration that does not hold is reported on stderr with exit code 1.
func Main(root *cli.Command, opts ...Option) {
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

// Execute lets urfave parse and dispatch.
func (a *App) Execute(ctx context.Context, args []string, s adapters.Streams) error {
	a.root.Reader, a.root.Writer, a.root.ErrWriter = s.Stdin, s.Help, s.Stderr
	if s.HelpFor != nil || s.Complete {
		a.addBuiltins(a.root, a.tree, s)
	}
	for cmd, node := range a.nodes {
		if node.Parent != nil && s.Hide(node) {
			cmd.Hidden = true
		}
		if s.Shows(node) {
			for _, f := range node.Flags {
				if f.Builtin {
					cmd.Flags = append(cmd.Flags, cliFlag(f))
				}
			}
		}
	}
	err := a.root.Run(ctx, append([]string{a.root.Name}, args...))
	if err == nil && a.notFound != "" {
		return fmt.Errorf("unknown command %q", a.notFound)
	}
	return err
}

// Classify turns urfave's own errors into ARG_ERRORs. urfave's parse errors
// are plain strings, so anything that reaches here before an action ran is a
// usage error.
func (a *App) Classify(err error) *envelope.Error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	code := "USAGE_ERROR"
	switch {
	case strings.Contains(msg, "flag provided but not defined"):
		code = "UNKNOWN_FLAG"
	case strings.Contains(msg, "invalid value"):
		code = "INVALID_FLAG_VALUE"
	case strings.Contains(msg, "Required flag"):
		code = "MISSING_REQUIRED_FLAG"
	case strings.Contains(msg, "unknown command"):
		code = "UNKNOWN_COMMAND"
	}
	return envelope.Invalid([]envelope.FieldError{{Code: code, Message: msg}})
}

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
		n.Meta = m
	}
	n.Flags = make([]schema.Flag, 0, len(cmd.Flags))
	for _, f := range cmd.Flags {
		sf := flagOf(f)
		if len(sf.Env) > 0 {
			detachEnv(f)
		}
		n.Flags = append(n.Flags, sf)
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
	a.nodes[cmd] = n
	for _, sub := range cmd.Commands {
		n.Commands = append(n.Commands, a.build(sub, n))
	}
	return n
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
// given — the process's, or WithEnv's — before urfave checks required flags.
// urfave would read the process's itself, behind a WithEnv. Each of f's
// environment sources becomes a lifecycleEnv, which keeps the variable's name
// for help; other sources (files, maps) stay as they are.
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

// install wraps every action of the urfave app with the lifecycle. Duet's
// built-in commands and flags are the lifecycle's, which runs them itself:
// urfave is given them only to render help (see Execute and addBuiltins).
func (a *App) install(cmd *cli.Command, n *schema.Command) {
	for _, sub := range cmd.Commands {
		a.install(sub, a.nodes[sub])
	}
	if orig := cmd.Action; orig != nil && !n.Builtin {
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
	cmd.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error { return err }
	cmd.CommandNotFound = func(_ context.Context, _ *cli.Command, name string) { a.notFound = name }
}

// addBuiltins gives urfave Duet's built-in commands under cmd, so that help
// lists them — their own subcommands only where help or completion goes;
// the lifecycle runs them without urfave.
func (a *App) addBuiltins(cmd *cli.Command, n *schema.Command, s adapters.Streams) {
	for _, sub := range n.Commands {
		if sub.Builtin {
			c := &cli.Command{Name: sub.Name, Usage: sub.Usage, Hidden: sub.Hidden}
			cmd.Commands = append(cmd.Commands, c)
			a.nodes[c] = sub
			if s.Shows(sub) {
				a.addBuiltins(c, sub, s)
			}
		}
	}
}

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
func cliFlag(f schema.Flag) cli.Flag {
	local := !f.Persistent
	switch f.Type {
	case schema.Boolean:
		return &cli.BoolFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local}
	case schema.Integer:
		v, _ := f.Default.(int)
		return &cli.IntFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local, Value: v}
	case schema.Array:
		return &cli.StringSliceFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local}
	default:
		v, _ := f.Default.(string)
		return &cli.StringFlag{Name: f.Name, Usage: f.Usage, Hidden: f.Hidden, Local: local, Value: v}
	}
}

var _ adapters.Framework = (*App)(nil)
