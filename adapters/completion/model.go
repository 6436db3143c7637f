package completion

import (
	"cmp"
	"slices"
	"strings"

	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// model is what every script needs of the tree: the commands a person can
// complete, numbered, with the words each offers and how each word typed
// before the cursor is read. The shells differ only in how they say it.
type model struct {
	tool  string  // the root's name: the command the script completes
	fn    string  // prefix of the script's own functions: "__todo"
	nodes []*node // the root first, then parents before their children
	arms  []arm   // how the flags that take a value are read
}

// node is one command a person can complete; its id is its index in nodes
// and the "state" of the scripts' walk down the command line.
type node struct {
	id       int
	usage    string
	subs     []sub
	flags    []word // every spelling a person may type, long and short
	args     []value
	variadic bool // the last of args repeats
}

type sub struct {
	names []string // the name, then its aliases: each descends
	node  *node
}

// word is a candidate with the usage a shell shows beside it; a flag's has
// what its value takes, nil when it takes none.
type word struct {
	text, usage string
	value       *value
}

// value is what completes a flag's value or a positional argument.
type value struct {
	kind byte     // 'e': one of enum; 'f': a file; 'n': nothing to offer
	enum []string //
}

func (v value) key() string { return string(v.kind) + strings.Join(v.enum, "\x00") }

// arm reads one spelling of a flag that takes a value, in the commands of
// states, or in every command when states is nil (the spelling means the same
// wherever it is accepted, so one pattern serves).
type arm struct {
	spelling string
	states   []int
	value    value
}

// shown reports whether a person's completion offers c: a person's help
// leaves out hidden commands, those for agents only, and the framework's
// pass-through ones (cobra's __complete).
func shown(c *schema.Command) bool {
	return !c.Hidden && !c.Passthrough && c.VisibleTo(false)
}

// shellName is name with every byte a shell function's name cannot hold
// as _. (Not a package-level regexp: compiling one costs every start of
// every app, completing or not.)
func shellName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

func newModel(root *schema.Command) *model {
	m := &model{tool: root.Name, fn: "__" + shellName(root.Name)}
	// meanings[spelling][value key, "" for a flag without value] lists the
	// states where the spelling has that meaning, in order of appearance.
	type meaning struct {
		key    string
		value  *value
		states []int
	}
	meanings := map[string][]*meaning{}
	var spellings []string
	mean := func(n *node, spelling string, v *value) {
		k := ""
		if v != nil {
			k = v.key()
		}
		ms := meanings[spelling]
		if ms == nil {
			spellings = append(spellings, spelling)
		}
		i := slices.IndexFunc(ms, func(m *meaning) bool { return m.key == k })
		if i < 0 {
			ms = append(ms, &meaning{key: k, value: v})
			meanings[spelling], i = ms, len(ms)-1
		}
		ms[i].states = append(ms[i].states, n.id)
	}

	var add func(c *schema.Command) *node
	add = func(c *schema.Command) *node {
		n := &node{id: len(m.nodes), usage: firstLine(c.Usage)}
		m.nodes = append(m.nodes, n)
		seen := map[string]bool{}
		offer := func(spelling, usage string, v *value) {
			if seen[spelling] {
				return
			}
			seen[spelling] = true
			n.flags = append(n.flags, word{spelling, usage, v})
		}
		for f := range c.Accepted() {
			if f.Hidden {
				continue
			}
			var v *value
			if f.TakesValue() {
				v = &value{}
				*v = valueOf(f.Type, f.Items, f.Format, f.Enum, f.ID || duetName(f))
			}
			usage := firstLine(f.Usage)
			for _, name := range f.Names() {
				offer(spell(name), usage, v)
			}
			if f.Short != "" {
				offer("-"+f.Short, usage, v)
			}
		}
		// The lifecycle answers these on every command (and --version on
		// the root) without declaring them as flags.
		offer("--help", "show help", nil)
		offer("-h", "show help", nil)
		if c.Parent == nil {
			offer("--version", "print the version", nil)
		}
		// By name, whatever order the framework keeps flags in (pflag
		// sorts, urfave does not): the script is the same on either.
		slices.SortStableFunc(n.flags, func(a, b word) int {
			return cmp.Or(strings.Compare(strings.TrimLeft(a.text, "-"), strings.TrimLeft(b.text, "-")), strings.Compare(a.text, b.text))
		})
		for _, w := range n.flags {
			mean(n, w.text, w.value)
		}
		for _, a := range c.Args {
			n.args = append(n.args, valueOf(a.Type, "", "", a.Enum, a.ID || c.Builtin))
			n.variadic = a.Variadic
		}
		for _, s := range c.Commands {
			if shown(s) {
				n.subs = append(n.subs, sub{names: append([]string{s.Name}, s.Aliases...), node: add(s)})
			}
		}
		return n
	}
	add(root)

	for _, sp := range spellings {
		ms := meanings[sp]
		for _, mn := range ms {
			if mn.value == nil {
				continue // a flag without a value is read as any unknown word is
			}
			a := arm{spelling: sp, value: *mn.value}
			if len(ms) > 1 {
				a.states = mn.states
			}
			m.arms = append(m.arms, a)
		}
	}
	return m
}

// valueOf says what completes a value: one of its enum; nothing for numbers,
// booleans, durations, times, key=value pairs and names (resource ids, and
// the values of Duet's own flags and commands: fields, cursors, profiles),
// which no file name can be; a file for any other string, as shells do by
// default.
func valueOf(t, items schema.Type, format string, enum []string, name bool) value {
	if t == schema.Array {
		t = items
	}
	switch {
	case len(enum) > 0:
		return value{kind: 'e', enum: enum}
	case name || format != "" || (t != schema.String && t != ""):
		return value{kind: 'n'}
	}
	return value{kind: 'f'}
}

// duetName reports whether f is one of Duet's own flags whose value is a
// name, not a file. (profile save's copies of the app's flags are built-in
// too, and take what the app's flags take.)
func duetName(f *schema.Flag) bool {
	switch f.Name {
	case flagname.Profile, flagname.Etag, flagname.Cursor, flagname.Fields:
		return f.Builtin
	}
	return false
}

// spell is how a flag's name is typed: -v for a one-letter name, --verbose
// for the rest.
func spell(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// firstLine is a usage as a shell shows it beside a candidate: one line,
// no tabs.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.ReplaceAll(strings.TrimSpace(s), "\t", " ")
}
