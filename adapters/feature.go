package adapters

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"slices"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// A Feature is one capability beyond the core that an app opts into by
// passing it to Wrap (or Main, or Run) with [WithFeatures]: the built-in
// flags it gives commands, what it checks of their declarations when the
// app is wrapped, and what it does around a command's run. It lives in a
// package of its own (feature/idempotency), which only an app that passes
// it links; feature/level3 bundles every feature the CLI Agent Spec's
// Level 3 asks for.
//
// The lifecycle calls a feature's methods in the order features were
// given. A feature keeps no state between invocations: what one run needs
// to carry from Begin to End it keeps in the [Invocation] (Set, Get).
type Feature interface {
	// Flags returns the built-in flags the feature gives command c, or nil:
	// they are added after the core's, unless c has a flag of that name.
	Flags(c *schema.Command) []schema.Flag
	// Check reports what in c's declarations the feature cannot keep its
	// promise with; Wrap fails with it, naming the command.
	Check(c *schema.Command) error
	// Begin runs once the call is confirmed, before the command: answered
	// true ends the invocation with what it wrote to the Output, and an
	// error ends it with that error, the command not run. A dry run, and
	// the detached run of a job, begin without features: they are neither
	// replayed nor recorded.
	Begin(ctx context.Context, inv *Invocation) (answered bool, err error)
	// End runs when a command Begin let run has ended, before its answer
	// is written: fail is how it failed, nil when it succeeded.
	End(inv *Invocation, fail *envelope.Error)
	// State lists what the feature keeps for the tool of command tree root
	// under its state directory dir, for status and cleanup.
	State(root *schema.Command, dir string) []State
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
	return func(c *config) { c.features = append(c.features, fs...) }
}

// Invocation is the run a feature takes part in.
type Invocation struct {
	inv *invocation
}

// Command returns the command the invocation runs.
func (i *Invocation) Command() *schema.Command { return i.inv.call.node }

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

// featureStates is what the features keep under the tool's state
// directory, none when it has none.
func (inv *invocation) featureStates() []State {
	dir, err := inv.stateDir()
	if err != nil {
		return nil
	}
	var states []State
	for _, f := range inv.cfg.features {
		states = append(states, f.State(inv.root, dir)...)
	}
	return states
}

// featureFlags appends the flags the features give c.
func featureFlags(flags []schema.Flag, c *schema.Command, fs []Feature) []schema.Flag {
	for _, f := range fs {
		flags = append(flags, f.Flags(c)...)
	}
	return flags
}

// checkFeatures is what the features find in c's declarations.
func checkFeatures(c *schema.Command, fs []Feature) []error {
	var errs []error
	for _, f := range fs {
		if err := f.Check(c); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// beginFeatures begins the features in order; the first that answers or
// fails ends the invocation, and those begun before it end with it.
func (inv *invocation) beginFeatures(ctx context.Context) (code int, done bool) {
	v := &Invocation{inv: inv}
	for n, f := range inv.cfg.features {
		answered, err := f.Begin(ctx, v)
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
		inv.cfg.features[n].End(v, fail)
	}
	inv.begun = 0
}
