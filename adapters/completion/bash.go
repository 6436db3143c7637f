package completion

import (
	"fmt"
	"strings"
)

func bash(m *model, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# bash completion for %[1]s, made by Duet from its command tree. It is static:
# pressing Tab never runs %[1]s. Load it from ~/.bashrc with
#
#	%[2]s
#
# and make it again when the commands of %[1]s change.

`, m.tool, load)
	writeTables(&b, m)
	fmt.Fprintf(&b, `# %[1]s_words STATE sets c to the subcommands of command STATE and f to its
# flags.
%[1]s_words() {
	case $1 in
`, m.fn)
	for _, n := range m.nodes {
		var c, f []string
		for _, s := range n.subs {
			c = append(c, s.names[0])
		}
		for _, w := range n.flags {
			f = append(f, w.text)
		}
		fmt.Fprintf(&b, "\t%d) c=(%s) f=(%s) ;;\n", n.id, sqAll(c), sqAll(f))
	}
	b.WriteString("\tesac\n}\n\n")

	// The walk reads the words before the cursor as the lifecycle's parser
	// does: a word names a subcommand only before the first positional
	// argument, a flag that takes a value takes the next word, and -- ends
	// the flags. COMP_WORDBREAKS holds = by default, so bash hands
	// --flag=value over as three words: --flag, = and value.
	fmt.Fprintf(&b, `%[1]s_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} pre= state=0 n=0 i w s v skip= only=
	local -a e c f
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == = ]]; then
			skip=1
			continue
		fi
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
	if [[ -n $skip || $cur == = ]]; then
		w=${COMP_WORDS[COMP_CWORD-1]}
		[[ $w == = ]] && w=${COMP_WORDS[COMP_CWORD-2]}
		[[ $cur == = ]] && cur=
		%[1]s_flag $state "$w"
	elif [[ -z $only && $cur == -*=* ]]; then
		pre=${cur%%%%=*}=
		%[1]s_flag $state "${cur%%%%=*}"
		cur=${cur#*=}
	elif [[ -z $only && $cur == -* ]]; then
		%[1]s_words $state
		for w in "${f[@]}"; do
			[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
		done
		return 0
	else
		if ((n == 0)) && [[ -z $only ]]; then
			%[1]s_words $state
			for w in "${c[@]}"; do
				[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
			done
		fi
		%[1]s_arg $state $n
	fi
	case $v in
	e)
		for w in "${e[@]}"; do
			[[ $w == "$cur"* ]] && COMPREPLY+=("$pre$w")
		done
		;;
	f)
		# compopt (bash 4 and later) quotes the names and marks directories.
		[[ -z $pre ]] && compopt -o filenames 2>/dev/null
		while IFS= read -r w; do
			COMPREPLY+=("$pre$w")
		done < <(compgen -f -- "$cur")
		;;
	esac
	return 0
}

complete -F %[1]s_complete %[2]s
`, m.fn, sq(m.tool))
	return b.String()
}
