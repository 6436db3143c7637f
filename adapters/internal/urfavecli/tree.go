package urfavecli

import (
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/schema"
)

// Framework is how a Tree reaches the framework's commands, of type C.
type Framework[C comparable] interface {
	// Sub returns cmd's subcommand called name, or by one of its aliases.
	Sub(cmd C, name string) (C, bool)
	// FlagNames lists every name of every flag cmd has.
	FlagNames(cmd C) iter.Seq[string]
	// AddFlag gives cmd the framework's flag for the built-in f, and
	// returns what hides it in help or shows it.
	AddFlag(cmd C, f *schema.Flag) (hide func(bool))
	// AddCommand gives cmd the framework's command for the built-in sub,
	// which runs nothing (the lifecycle runs it), and returns it and what
	// hides it in help or shows it.
	AddCommand(cmd C, sub *schema.Command) (C, func(hide bool))
	// Hide hides cmd in help.
	Hide(cmd C)
}

// Tree is what an urfave adapter keeps of its app's commands: each one's
// node and back, and Duet's built-in flags and commands it has given them
// so that the framework accepts and lists them (the lifecycle reads their
// values and runs the commands itself). A command is given its built-ins
// only once a command line reaches it — read (Parse) or run (Execute) — so
// an app made anew for each call pays for the path, not the whole tree.
type Tree[C comparable] struct {
	Nodes    map[C]*schema.Command
	Cmds     map[*schema.Command]C
	equipped map[C]bool
	shows    []func(show bool, hideFlag func(*schema.Flag) bool)
}

// Add records that cmd is node.
func (t *Tree[C]) Add(cmd C, node *schema.Command) {
	if t.Nodes == nil {
		t.Nodes, t.Cmds, t.equipped = map[C]*schema.Command{}, map[*schema.Command]C{}, map[C]bool{}
	}
	t.Nodes[cmd], t.Cmds[node] = node, cmd
}

// Equip gives cmd, once, the built-in flags of flags its own do not name,
// and its node's built-in subcommands.
func (t *Tree[C]) Equip(fw Framework[C], cmd C, flags iter.Seq[*schema.Flag]) {
	n := t.Nodes[cmd]
	if n == nil || t.equipped[cmd] {
		return
	}
	t.equipped[cmd] = true
	taken := map[string]bool{} // asked once per flag: urfave's Names allocates
	for name := range fw.FlagNames(cmd) {
		taken[name] = true
	}
	for f := range flags {
		if f.Builtin && !taken[f.Name] {
			hide := fw.AddFlag(cmd, f)
			t.shows = append(t.shows, func(show bool, hideFlag func(*schema.Flag) bool) { hide(f.Hidden || !show || hideFlag(f)) })
		}
	}
	for _, sub := range n.Commands {
		if _, ok := t.Cmds[sub]; ok || !sub.Builtin {
			continue
		}
		c, hide := fw.AddCommand(cmd, sub)
		t.shows = append(t.shows, func(show bool, _ func(*schema.Flag) bool) { hide(sub.Hidden || !show) })
		t.Add(c, sub)
	}
}

// Along calls equip with root and each command args may reach from it:
// each word that names a subcommand of the one reached so far (a flag's
// value that happens to name one equips one more, which costs nothing but
// time).
func (t *Tree[C]) Along(fw Framework[C], root C, args []string, equip func(C)) {
	cmd := root
	equip(cmd)
	for _, w := range args {
		if w == "--" {
			return
		}
		if sub, ok := fw.Sub(cmd, w); ok {
			cmd = sub
			equip(cmd)
		}
	}
}

// Show shows the built-ins in help, or hides them, and hides the commands
// hide names and the built-in flags hideFlag names (nil: none).
func (t *Tree[C]) Show(fw Framework[C], show bool, hide func(*schema.Command) bool, hideFlag func(*schema.Flag) bool) {
	if hideFlag == nil {
		hideFlag = func(*schema.Flag) bool { return false }
	}
	for _, s := range t.shows {
		s(show, hideFlag)
	}
	for cmd, node := range t.Nodes {
		if node.Parent != nil && hide(node) {
			fw.Hide(cmd)
		}
	}
}

// Help is urfave's help, asked for with its help command or flag, on
// p.Node: for the subcommand the first of pos names, when there is one —
// found by sub, and nil when it is not in the tree. A word that names no
// subcommand is refused unless the app handles CommandNotFound.
func Help(p adapters.Parsed, pos []string, sub func(string) (*schema.Command, bool), notFound bool) adapters.Parsed {
	p.Args, p.Help = nil, true
	if len(pos) == 0 || pos[0] == "" {
		return p
	}
	switch target, ok := sub(pos[0]); {
	case !ok && !notFound:
		p.Help, p.Err = false, fmt.Errorf("No help topic for '%v'", pos[0])
	case target != nil:
		p.Node = target
	}
	return p
}

// Ran is what Execute returns once urfave has run: a command nobody found,
// for the lifecycle to report, when it answers; otherwise err, printed as
// an app's main prints what Run returns, unless urfave printed it already
// or the app's main does.
func Ran(s adapters.Streams, err, missing error, errOut io.Writer) error {
	switch {
	case s.Answer && err == nil && missing != nil:
		return missing
	case !s.Answer && !s.AppMain && err != nil && !Reported(err):
		fmt.Fprintln(errOut, err)
	}
	return err
}

// FlagNames lists every name of every one of flags: what a Framework's
// FlagNames returns of a command's flags, in v2 and v3 alike.
func FlagNames[F interface{ Names() []string }](flags []F) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, f := range flags {
			for _, name := range f.Names() {
				if !yield(name) {
					return
				}
			}
		}
	}
}

// FlagNamed returns the flag of flags one of whose names is name.
func FlagNamed[F interface{ Names() []string }](flags []F, name string) (F, bool) {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f, true
		}
	}
	var none F
	return none, false
}

// Withdraw takes Duet's built-in flags out of the commands own counts the
// app's flags of — Duet's follow them in each command's flags — until the
// returned func puts them back: a run of a command nobody ported, for a
// person or a script, is the app's alone, and refuses Duet's words as the
// app without Duet does (`--output json` is the app's unknown flag, not a
// file named json). urfave reads a command's flags anew on every run.
func Withdraw[C comparable, F any](own map[C]int, flags func(C) *[]F) (restore func()) {
	kept := map[C][]F{}
	for cmd, n := range own {
		if fs := flags(cmd); len(*fs) > n {
			kept[cmd], *fs = *fs, (*fs)[:n:n]
		}
	}
	return func() {
		for cmd, fs := range kept {
			*flags(cmd) = fs
		}
	}
}
