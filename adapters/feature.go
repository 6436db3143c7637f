package adapters

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// A Feature is one capability beyond the core that an app opts into by
// passing it to Wrap (or Main, or Run) with [WithFeatures]. It lives in a
// package of its own (feature/idempotency), which only an app that passes
// it links; feature/level3 bundles every feature the CLI Agent Spec's
// Level 3 asks for.
//
// A feature does what the interfaces it implements say, as an
// http.ResponseWriter that is an http.Flusher flushes: [Flagger] gives
// commands built-in flags, [Checker] checks their declarations when the app
// is wrapped, [Hook] acts around a command's run, [Commander] adds built-in
// commands, [Formatter] adds formats of the answer, [JSONReader] reads the
// JSON a command takes, and [StateKeeper] lists the files it keeps, for
// status and cleanup. The lifecycle calls features in the order they were given. A
// feature keeps no state between invocations: what one run carries from
// Begin to End it keeps in the [Invocation] (Set, Get).
type Feature interface {
	// Name identifies the feature: given again under one name, a feature
	// replaces the one given before it, in its place — an app passes
	// changelog.New(entries...) after level3.Features(), whose changelog
	// has none.
	Name() string
}

// A Flagger gives commands built-in flags.
type Flagger interface {
	// Flags returns the flags the feature gives command c, or nil: they
	// are added after the core's, unless c has a flag of that name.
	Flags(c *schema.Command) []schema.Flag
}

// A Checker checks a command's declarations when the app is wrapped.
type Checker interface {
	// Check reports what in c's declarations the feature cannot keep its
	// promise with; Wrap fails with it, naming the command.
	Check(c *schema.Command) error
}

// A Hook acts around a command's run.
type Hook interface {
	// Begin runs once the call is confirmed, before the command: answered
	// true ends the invocation with what it wrote to the Output, and an
	// error ends it with that error, the command not run. A dry run, and
	// the detached run of a job, begin without features: they are neither
	// replayed nor recorded.
	Begin(ctx context.Context, inv *Invocation) (answered bool, err error)
	// End runs when a command Begin let run has ended, before its answer
	// is written: fail is how it failed, nil when it succeeded.
	End(inv *Invocation, fail *envelope.Error)
}

// A Commander adds built-in commands under the root.
type Commander interface {
	// Commands returns the commands, made anew on each call.
	Commands() []Command
}

// A JSONReader reads what a command takes as JSON — a flag declared JSON,
// --raw-payload — more leniently than the core, which takes strict JSON
// alone.
type JSONReader interface {
	// ReadJSON returns src as strict JSON, or the error to answer with
	// (INVALID_JSON, with the corrected input when it has one).
	ReadJSON(src []byte) ([]byte, error)
}

// A Formatter adds formats of the answer: --format takes their names, and
// the envelope, encoded as JSON, is re-encoded in them.
type Formatter interface {
	// Formats returns each format the feature adds with what appends the
	// envelope, given as JSON, to dst in it.
	Formats() map[envelope.Format]func(dst, envelope []byte) ([]byte, error)
}

// A StateKeeper keeps files for the tool.
type StateKeeper interface {
	// State lists what the feature keeps for the tool of command tree root
	// under its state directory dir.
	State(root *schema.Command, dir string) []State
}

// Command is a built-in command a feature adds: its declaration, put under
// the root (marked built-in, its flags too) unless the app has a command of
// that name, and the action that answers it as a ported command answers,
// through the Output. A command the lifecycle runs like any other: its
// flags are parsed and validated, and --help, --schema and describe answer
// for it.
type Command struct {
	Node *schema.Command
	Run  func(ctx context.Context, inv *Invocation) error
}

// State is one file or directory a feature keeps: what status reports of
// it (REQ-O-028) and what cleanup may remove of it.
type State struct {
	Name   string // what it is, for a message: "the idempotency store"
	File   StateFile
	Effect SideEffect
	// Scope is the cleanup --scope that removes what Expired lists.
	Scope string
	// Expired lists what cleanup may remove at now: nothing in use,
	// nothing younger than minAge.
	Expired func(minAge time.Duration, now time.Time) ([]Removable, error)
}

// Removable is what cleanup may remove: paths that go together, and the
// bytes they free.
type Removable struct {
	Paths []string
	Bytes int64
}

// WithFeatures adds features to the app (see [Feature]).
func WithFeatures(fs ...Feature) Option {
	return func(c *config) {
		for _, f := range fs {
			if f == nil {
				continue // a feature left out, as an app building its list may
			}
			i := slices.IndexFunc(c.features, func(g Feature) bool { return g.Name() == f.Name() })
			if i < 0 {
				c.features = append(c.features, f)
			} else {
				c.features[i] = f
			}
		}
		c.featured = index(c.features)
	}
}

// Invocation is the run a feature takes part in.
type Invocation struct {
	inv *invocation
}

// Command returns the command the invocation runs.
func (i *Invocation) Command() *schema.Command { return i.inv.call.node }

// Root returns the root of the tool's command tree, Duet's built-ins
// included.
func (i *Invocation) Root() *schema.Command { return i.inv.root }

// Version returns the tool's version (see WithVersion).
func (i *Invocation) Version() string { return i.inv.cfg.version }

// Flag returns the value the command line gave one of the command's flags,
// and whether it gave one.
func (i *Invocation) Flag(name string) (string, bool) { return i.inv.call.opt(name) }

// Output returns the handle the command answers with.
func (i *Invocation) Output() *envelope.Output { return i.inv.out }

// Meta returns the answer's meta, for the feature to add to.
func (i *Invocation) Meta() *envelope.Meta { return &i.inv.meta }

// StateDir returns where the tool keeps its state: $<TOOL>_STATE_DIR, else
// $XDG_STATE_HOME/<tool>, else ~/.local/state/<tool>. It fails, with the
// error to answer, when there is none.
func (i *Invocation) StateDir() (string, error) {
	dir, err := i.inv.stateDir()
	if err != nil {
		return "", noStateDir(i.inv.root.Name, err)
	}
	return dir, nil
}

// Fingerprint identifies the call's input: the command, its arguments, and
// the values of its own flags, from the command line, the environment or a
// profile. Duet's flags (--output, --timeout, --yes ...) shape the answer,
// not the call, and are left out — but a built-in command's own flags
// (cleanup's --scope, the flags profile save saves) are its input.
func (i *Invocation) Fingerprint() string {
	inv := i.inv
	c := inv.call
	flags := map[string][]string{}
	own := inv.builtinInputs(c.node)
	for f := range c.node.Accepted() {
		if (!f.Builtin || own[f.Name]) && c.has(f.Name) {
			flags[f.Name] = c.values[f.Name]
		}
	}
	for _, p := range inv.presets(c.node) {
		if _, set := flags[p.name]; !set {
			flags[p.name] = []string{p.value}
		}
	}
	raw, _ := json.Marshal(struct {
		Command string              `json:"command"`
		Args    []string            `json:"args"`
		Flags   map[string][]string `json:"flags"`
	}{c.node.DotPath(), slices.Concat(c.args, inv.deleg.forwarded), flags})
	h := fnv.New128a() // tells one call's input from another's; not a secret
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}

// Set keeps v for the rest of the invocation under key, for End to find
// what Begin began.
func (i *Invocation) Set(key, v any) {
	if i.inv.featureValues == nil {
		i.inv.featureValues = map[any]any{}
	}
	i.inv.featureValues[key] = v
}

// Get returns what Set kept under key, or nil.
func (i *Invocation) Get(key any) any { return i.inv.featureValues[key] }

// builtinInputs are the names of a built-in command's own flags, its input:
// those of its own that are not the flags Duet gives every command of its
// kind (commandFlags, discoveryCommandFlags). nil for an app's command,
// whose input flags are those not marked Builtin.
func (inv *invocation) builtinInputs(node *schema.Command) map[string]bool {
	if !node.Builtin {
		return nil
	}
	given := map[string]bool{}
	for _, f := range commandFlags(nil, node, inv.cfg.features) {
		given[f.Name] = true
	}
	for _, f := range discoveryCommandFlags(node) {
		given[f.Name] = true
	}
	own := map[string]bool{}
	for _, f := range node.Flags {
		if !f.Persistent && !given[f.Name] {
			own[f.Name] = true
		}
	}
	return own
}

// featureIndex is what the features add, found once when they are given:
// every run asks it, and the plain fast path for every word of the command
// line.
type featureIndex struct {
	commands []Command // each with its declaration and its action, in order
	broken   []error   // commands declared without one of them: Wrap fails
	formats  []envelope.Format
	encoders map[envelope.Format]func(dst, envelope []byte) ([]byte, error) // the first feature's, where two add one
}

func index(fs []Feature) featureIndex {
	var x featureIndex
	for _, f := range fs {
		if c, ok := f.(Commander); ok {
			for _, fc := range c.Commands() {
				if fc.Node == nil || fc.Node.Name == "" || fc.Run == nil {
					x.broken = append(x.broken, fmt.Errorf("feature %q: a command needs a Node with a name and a Run", f.Name()))
					continue
				}
				x.commands = append(x.commands, fc)
			}
		}
		if fm, ok := f.(Formatter); ok {
			for name, enc := range fm.Formats() {
				if x.encoders == nil {
					x.encoders = map[envelope.Format]func(dst, envelope []byte) ([]byte, error){}
				}
				if _, taken := x.encoders[name]; !taken {
					x.encoders[name] = enc
					x.formats = append(x.formats, name)
				}
			}
		}
	}
	slices.Sort(x.formats) // envelope.FormatNames orders them for help
	return x
}

// featureNodes adds the features' commands the app has no command of that
// name for, built-in, unless one is declared without its declaration or its
// action: that is reported instead.
func featureNodes(root *schema.Command, x featureIndex) []error {
	if len(x.broken) > 0 {
		return x.broken
	}
	for _, c := range x.commands {
		if root.Sub(c.Node.Name) != nil {
			continue
		}
		c.Node.Walk(func(n *schema.Command) {
			n.Builtin = true
			for i := range n.Flags {
				n.Flags[i].Builtin = true
			}
		})
		root.Commands = append(root.Commands, c.Node)
	}
	return nil
}

// featureAction returns the action of a feature's command, or nil.
func (inv *invocation) featureAction(node *schema.Command) func(context.Context) error {
	if !node.Builtin || node.Parent == nil {
		return nil
	}
	for _, c := range inv.cfg.featured.commands {
		if at(c.Node, node.Path) {
			return func(ctx context.Context) error { return c.Run(ctx, &Invocation{inv: inv}) }
		}
	}
	return nil
}

// at reports whether path, from the root's child, names n or a command
// under it.
func at(n *schema.Command, path []string) bool {
	if len(path) == 0 || path[0] != n.Name {
		return false
	}
	for _, name := range path[1:] {
		if n = n.Sub(name); n == nil {
			return false
		}
	}
	return true
}

// featureCommand reports whether name is a command a feature adds.
func (c *config) featureCommand(name string) bool {
	return slices.ContainsFunc(c.featured.commands, func(fc Command) bool { return fc.Node.Name == name })
}

// readJSON reads a JSON value a command takes: as the first feature that
// reads JSON does (feature/json5), else as strict JSON.
func (c *config) readJSON(src []byte) ([]byte, error) {
	for _, f := range c.features {
		if r, ok := f.(JSONReader); ok {
			return r.ReadJSON(src)
		}
	}
	var v any
	err := json.Unmarshal(src, &v)
	if err == nil {
		return src, nil
	}
	return nil, envelope.Validationf("INVALID_JSON", "input is not valid JSON: %v", err).
		WithFix("reissue with strict JSON (RFC 8259): double-quoted keys and strings, no comments or trailing commas", "").
		WithSuggestion("send strict JSON")
}

// featureStates is what the features keep under the tool's state
// directory dir.
func (inv *invocation) featureStates(dir string) []State {
	var states []State
	for _, f := range inv.cfg.features {
		if k, ok := f.(StateKeeper); ok {
			states = append(states, k.State(inv.root, dir)...)
		}
	}
	return states
}

// featureFlags appends the flags the features give c.
func featureFlags(flags []schema.Flag, c *schema.Command, fs []Feature) []schema.Flag {
	for _, f := range fs {
		if g, ok := f.(Flagger); ok {
			flags = append(flags, g.Flags(c)...)
		}
	}
	return flags
}

// checkFeatures is what the features find in c's declarations.
func checkFeatures(c *schema.Command, fs []Feature) []error {
	var errs []error
	for _, f := range fs {
		if k, ok := f.(Checker); ok {
			if err := k.Check(c); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// beginFeatures begins the features in order; the first that answers or
// fails ends the invocation, and those begun before it end with it.
func (inv *invocation) beginFeatures(ctx context.Context) (code int, done bool) {
	v := &Invocation{inv: inv}
	for n, f := range inv.cfg.features {
		h, ok := f.(Hook)
		if !ok {
			continue
		}
		answered, err := h.Begin(ctx, v)
		if !answered && err == nil {
			continue
		}
		inv.begun = n // those before it end; it and those after never began
		if err != nil {
			return inv.finish(envelope.As(err)), true
		}
		return inv.finish(nil), true
	}
	inv.begun = len(inv.cfg.features)
	return 0, false
}

// endFeatures ends the features begun, in reverse order, as deferred calls
// run.
func (inv *invocation) endFeatures(fail *envelope.Error) {
	v := &Invocation{inv: inv}
	for n := inv.begun - 1; n >= 0; n-- {
		if h, ok := inv.cfg.features[n].(Hook); ok {
			h.End(v, fail)
		}
	}
	inv.begun = 0
}
