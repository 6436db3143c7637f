package completion

import (
	"fmt"
	"strconv"
	"strings"
)

// The bash and zsh scripts share their tables: both shells read the same
// case statements, arrays and [[ ]] tests, and a function there sets its
// caller's locals. Only the words with their usage, and the function that
// walks the command line, differ.

// sq quotes s for bash and zsh: inside single quotes nothing is special, and
// a quoted case pattern matches itself only.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func sqAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = sq(s)
	}
	return strings.Join(q, " ")
}

// writeTables writes the functions the walk asks: which subcommand a word
// names, what a flag's value and a positional argument take.
func writeTables(b *strings.Builder, m *model) {
	fmt.Fprintf(b, `# %[1]s_sub STATE WORD sets s to the command WORD names under command STATE,
# or to nothing.
%[1]s_sub() {
	case $1:$2 in
`, m.fn)
	for _, n := range m.nodes {
		for _, s := range n.subs {
			pats := make([]string, len(s.names))
			for i, name := range s.names {
				pats[i] = strconv.Itoa(n.id) + ":" + sq(name)
			}
			fmt.Fprintf(b, "\t%s) s=%d ;;\n", strings.Join(pats, "|"), s.node.id)
		}
	}
	b.WriteString("\t*) s= ;;\n\tesac\n}\n\n")

	fmt.Fprintf(b, `# %[1]s_flag STATE WORD sets v to what the flag WORD of command STATE takes
# (e: one of the values e; f: a file; n: something to type), or to nothing
# when it takes no value.
%[1]s_flag() {
	v= e=()
	case $1:$2 in
`, m.fn)
	for _, a := range m.arms {
		var pats []string
		if a.states == nil {
			pats = []string{"*:" + sq(a.spelling)}
		}
		for _, st := range a.states {
			pats = append(pats, strconv.Itoa(st)+":"+sq(a.spelling))
		}
		fmt.Fprintf(b, "\t%s) %s ;;\n", strings.Join(pats, "|"), assign(a.value))
	}
	b.WriteString("\tesac\n}\n\n")

	fmt.Fprintf(b, `# %[1]s_arg STATE N sets v and e, as %[1]s_flag does, for positional
# argument N (from 0) of command STATE.
%[1]s_arg() {
	v=n e=()
	case $1:$2 in
`, m.fn)
	for _, n := range m.nodes {
		last := len(n.args) - 1
		for i, v := range n.args {
			switch {
			case i == last && n.variadic && v.kind != 'n':
				fmt.Fprintf(b, "\t%d:*) %s ;;\n", n.id, assign(v)) // after the fixed ones: the first match wins
			case v.kind != 'n' || (n.variadic && n.args[last].kind != 'n'):
				fmt.Fprintf(b, "\t%d:%d) %s ;;\n", n.id, i, assign(v))
			}
		}
	}
	b.WriteString("\tesac\n}\n\n")
}

func assign(v value) string {
	if v.kind == 'e' {
		return "v=e e=(" + sqAll(v.enum) + ")"
	}
	return "v=" + string(v.kind)
}
