package completion

import (
	"fmt"
	"strings"
)

func zsh(m *model, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `#compdef %[1]s
# zsh completion for %[1]s, made by Duet from its command tree. It is static:
# pressing Tab never runs %[1]s. Load it from ~/.zshrc, after compinit, with
#
#	%[2]s
#
# or save it as _%[1]s in a directory of $fpath; make it again when the
# commands of %[1]s change.

`, m.tool, load)
	writeTables(&b, m)
	fmt.Fprintf(&b, `# %[1]s_words STATE sets c to the subcommands of command STATE and f to its
# flags, each as name:description.
%[1]s_words() {
	case $1 in
`, m.fn)
	for _, n := range m.nodes {
		var c, f []string
		for _, s := range n.subs {
			c = append(c, described(s.names[0], s.node.usage))
		}
		for _, w := range n.flags {
			f = append(f, described(w.text, w.usage))
		}
		fmt.Fprintf(&b, "\t%d) c=(%s) f=(%s) ;;\n", n.id, sqAll(c), sqAll(f))
	}
	b.WriteString("\tesac\n}\n\n")

	// The same walk as bash's (see there), over zsh's words and CURRENT,
	// which keep --flag=value as one word. It runs under the options the
	// completion system sets (extendedglob and others its functions need):
	// no emulate here.
	fmt.Fprintf(&b, `_%[2]s() {
	local cur=${words[CURRENT]} state=0 n=0 i w s v skip= only=
	local -a e c f
	for ((i = 2; i < CURRENT; i++)); do
		w=${words[i]}
		if [[ -n $skip ]]; then
			skip=
			continue
		fi
		if [[ -z $only && $w == -?* ]]; then
			if [[ $w == -- ]]; then
				only=1
				continue
			fi
			[[ $w == *=* ]] && continue
			%[1]s_flag $state "$w"
			[[ -n $v ]] && skip=1
			continue
		fi
		if ((n == 0)) && [[ -z $only ]]; then
			%[1]s_sub $state "$w"
			if [[ -n $s ]]; then
				state=$s
				continue
			fi
		fi
		n=$((n + 1))
	done
	if [[ -n $skip ]]; then
		%[1]s_flag $state "${words[CURRENT-1]}"
	elif [[ -z $only && $cur == -*=* ]]; then
		%[1]s_flag $state "${cur%%%%=*}"
		compset -P '*='
	elif [[ -z $only && $cur == -* ]]; then
		%[1]s_words $state
		_describe -t options option f
		return
	else
		if ((n == 0)) && [[ -z $only ]]; then
			%[1]s_words $state
			(($#c)) && _describe -t commands command c
		fi
		%[1]s_arg $state $n
	fi
	case $v in
	e) compadd -a e ;;
	f) _files ;;
	esac
}

# Autoloaded from $fpath, this file is the body of _%[2]s: it defines the
# functions, then completes. Sourced, it registers them.
if [[ $funcstack[1] == _%[2]s ]]; then
	_%[2]s "$@"
else
	compdef _%[2]s %[3]s
fi
`, m.fn, m.fn[2:], sq(m.tool))
	return b.String()
}

// described is a candidate as _describe reads it: a colon in the name is
// escaped, the first bare one starts the description.
func described(name, usage string) string {
	name = strings.ReplaceAll(name, ":", `\:`)
	if usage == "" {
		return name
	}
	return name + ":" + usage
}
