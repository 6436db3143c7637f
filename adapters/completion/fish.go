package completion

import (
	"fmt"
	"strconv"
	"strings"
)

// fishQuote quotes s for fish: inside single quotes only \ and ' are special.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishPattern quotes s as a case pattern matching s only: fish's case still
// expands * and ? inside quotes.
func fishPattern(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, `*`, `\*`, `?`, `\?`).Replace(s) + "'"
}

func fishQuoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fishQuote(s)
	}
	return strings.Join(q, " ")
}

func fish(m *model, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# fish completion for %[1]s, made by Duet from its command tree. It is static:
# pressing Tab never runs %[1]s. Install it with
#
#	%[2]s > ~/.config/fish/completions/%[1]s.fish
#
# and make it again when the commands of %[1]s change.

# %[3]s_sub STATE WORD prints the command WORD names under command STATE.
function %[3]s_sub
	switch "$argv[1]:$argv[2]"
`, m.tool, load, m.fn)
	for _, n := range m.nodes {
		for _, s := range n.subs {
			pats := make([]string, len(s.names))
			for i, name := range s.names {
				pats[i] = fishPattern(strconv.Itoa(n.id) + ":" + name)
			}
			fmt.Fprintf(&b, "\t\tcase %s\n\t\t\techo %d\n", strings.Join(pats, " "), s.node.id)
		}
	}
	fmt.Fprintf(&b, `	end
end

# %[1]s_flag STATE WORD prints what the flag WORD of command STATE takes (e
# then the values; f for a file; n for something to type), or nothing when it
# takes no value.
function %[1]s_flag
	switch "$argv[1]:$argv[2]"
`, m.fn)
	for _, a := range m.arms {
		var pats []string
		if a.states == nil {
			pats = []string{"'*'" + fishPattern(":"+a.spelling)}
		}
		for _, st := range a.states {
			pats = append(pats, fishPattern(strconv.Itoa(st)+":"+a.spelling))
		}
		fmt.Fprintf(&b, "\t\tcase %s\n\t\t\t%s\n", strings.Join(pats, " "), fishPrint(a.value))
	}
	fmt.Fprintf(&b, `	end
end

# %[1]s_arg STATE N prints, as %[1]s_flag does, what positional argument N
# (from 0) of command STATE takes.
function %[1]s_arg
	switch "$argv[1]:$argv[2]"
`, m.fn)
	for _, n := range m.nodes {
		last := len(n.args) - 1
		for i, v := range n.args {
			switch {
			case i == last && n.variadic && v.kind != 'n':
				fmt.Fprintf(&b, "\t\tcase '%d:*'\n\t\t\t%s\n", n.id, fishPrint(v)) // after the fixed ones: the first match wins
			case v.kind != 'n' || (n.variadic && n.args[last].kind != 'n'):
				fmt.Fprintf(&b, "\t\tcase '%d:%d'\n\t\t\t%s\n", n.id, i, fishPrint(v))
			}
		}
	}
	b.WriteString("\tend\nend\n\n")

	fmt.Fprintf(&b, `# %[1]s_commands STATE prints the subcommands of command STATE, and
# %[1]s_flags its flags, each with its description after a tab.
function %[1]s_commands
	switch $argv[1]
`, m.fn)
	for _, n := range m.nodes {
		if len(n.subs) == 0 {
			continue
		}
		var words []string
		for _, s := range n.subs {
			words = append(words, s.names[0], s.node.usage)
		}
		fmt.Fprintf(&b, "\t\tcase %d\n\t\t\tprintf '%%s\\t%%s\\n' %s\n", n.id, fishQuoteAll(words))
	}
	fmt.Fprintf(&b, `	end
end

function %[1]s_flags
	switch $argv[1]
`, m.fn)
	for _, n := range m.nodes {
		var words []string
		for _, w := range n.flags {
			words = append(words, w.text, w.usage)
		}
		fmt.Fprintf(&b, "\t\tcase %d\n\t\t\tprintf '%%s\\t%%s\\n' %s\n", n.id, fishQuoteAll(words))
	}

	// The same walk as bash's (see there), over fish's tokens, which keep
	// --flag=value as one. Fish matches what it prints against the token
	// at the cursor itself.
	fmt.Fprintf(&b, `	end
end

function %[1]s_complete
	set -l words (commandline -opc)
	set -l cur (commandline -ct)
	set -l state 0
	set -l n 0
	set -l skip
	set -l only
	set -l r
	for w in $words[2..-1]
		if set -q skip[1]
			set skip
			continue
		end
		if not set -q only[1]; and string match -q -- '-?*' "$w"
			if test "$w" = --
				set only 1
				continue
			end
			string match -q -- '*=*' "$w"; and continue
			set r (%[1]s_flag $state "$w")
			set -q r[1]; and set skip 1
			continue
		end
		if test $n -eq 0; and not set -q only[1]
			set r (%[1]s_sub $state "$w")
			if set -q r[1]
				set state $r
				continue
			end
		end
		set n (math $n + 1)
	end
	set -l pre
	if set -q skip[1]
		set r (%[1]s_flag $state "$words[-1]")
	else if not set -q only[1]; and string match -q -- '-*=*' "$cur"
		set pre (string split -m 1 = -- "$cur")[1]=
		set cur (string split -m 1 = -- "$cur")[2]
		set r (%[1]s_flag $state (string trim -r -c = -- "$pre"))
	else if not set -q only[1]; and string match -q -- '-*' "$cur"
		%[1]s_flags $state
		return
	else
		if test $n -eq 0; and not set -q only[1]
			%[1]s_commands $state
		end
		set r (%[1]s_arg $state $n)
	end
	switch "$r[1]"
		case e
			for v in $r[2..-1]
				echo "$pre$v"
			end
		case f
			for p in (__fish_complete_path "$cur")
				echo "$pre$p"
			end
	end
end

complete -c %[2]s -e
complete -c %[2]s -f -a '(%[1]s_complete)'
`, m.fn, fishQuote(m.tool))
	return b.String()
}

// fishPrint is the command that prints what completes v.
func fishPrint(v value) string {
	if v.kind == 'e' {
		return "printf '%s\\n' e " + fishQuoteAll(v.enum)
	}
	return "echo " + string(v.kind)
}
