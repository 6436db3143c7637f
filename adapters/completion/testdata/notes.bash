# bash completion for notes, made by Duet from its command tree. It is static:
# pressing Tab never runs notes. Load it from ~/.bashrc with
#
#	source <(notes completion bash)
#
# and make it again when the commands of notes change.

# __notes_sub STATE WORD sets s to the command WORD names under command STATE,
# or to nothing.
__notes_sub() {
	case $1:$2 in
	0:'completion') s=1 ;;
	0:'describe') s=2 ;;
	0:'list'|0:'ls') s=3 ;;
	0:'note') s=4 ;;
	0:'setup') s=8 ;;
	4:'add') s=5 ;;
	4:'tag') s=6 ;;
	6:'set') s=7 ;;
	*) s= ;;
	esac
}

# __notes_flag STATE WORD sets v to what the flag WORD of command STATE takes
# (e: one of the values e; f: a file; n: something to type), or to nothing
# when it takes no value.
__notes_flag() {
	v= e=()
	case $1:$2 in
	*:'--color') v=e e=('auto' 'always' 'never') ;;
	*:'--colour') v=e e=('auto' 'always' 'never') ;;
	*:'--dir') v=f ;;
	*:'--instance-id') v=f ;;
	*:'--output') v=e e=('json' 'jsonl' 'tsv' 'text' 'id') ;;
	*:'--fields') v=n ;;
	*:'--timeout') v=n ;;
	*:'--etag') v=n ;;
	*:'--cursor') v=n ;;
	*:'--limit') v=n ;;
	*:'--min-words') v=n ;;
	*:'-s') v=e e=('open' 'done' 'all') ;;
	*:'--status') v=e e=('open' 'done' 'all') ;;
	esac
}

# __notes_arg STATE N sets v and e, as __notes_flag does, for positional
# argument N (from 0) of command STATE.
__notes_arg() {
	v=n e=()
	case $1:$2 in
	1:0) v=e e=('bash' 'zsh' 'fish') ;;
	5:0) v=f ;;
	7:1) v=e e=('red' 'green' 'blue') ;;
	esac
}

# __notes_words STATE sets c to the subcommands of command STATE and f to its
# flags.
__notes_words() {
	case $1 in
	0) c=('completion' 'describe' 'list' 'note' 'setup') f=('--color' '--colour' '--dir' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--verbose' '--version') ;;
	1) c=() f=('--color' '--colour' '--dir' '--fields' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--timeout' '--validate-only' '--verbose') ;;
	2) c=() f=('--agents-md' '--color' '--colour' '--dir' '--etag' '--fields' '-h' '--help' '--instance-id' '--mcp' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--timeout' '--validate-only' '--verbose') ;;
	3) c=() f=('--color' '--colour' '--cursor' '--dir' '--fields' '-h' '--help' '--instance-id' '--limit' '--min-words' '--no-update-check' '--output' '--quiet' '-s' '--schema' '--show-config' '--status' '--timeout' '--validate-only' '--verbose') ;;
	4) c=('add' 'tag') f=('--color' '--colour' '--dir' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--verbose') ;;
	5) c=() f=('--color' '--colour' '--dir' '--fields' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--timeout' '--validate-only' '--verbose') ;;
	6) c=('set') f=('--color' '--colour' '--dir' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--verbose') ;;
	7) c=() f=('--color' '--colour' '--dir' '--fields' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--timeout' '--validate-only' '--verbose') ;;
	8) c=() f=('--color' '--colour' '--dir' '--fields' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--quiet' '--schema' '--show-config' '--timeout' '--validate-only' '--verbose') ;;
	esac
}

__notes_complete() {
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
			__notes_flag $state "$w"
			[[ -n $v ]] && skip=1
			continue
		fi
		if ((n == 0)) && [[ -z $only ]]; then
			__notes_sub $state "$w"
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
		__notes_flag $state "$w"
	elif [[ -z $only && $cur == -*=* ]]; then
		pre=${cur%%=*}=
		__notes_flag $state "${cur%%=*}"
		cur=${cur#*=}
	elif [[ -z $only && $cur == -* ]]; then
		__notes_words $state
		for w in "${f[@]}"; do
			[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
		done
		return 0
	else
		if ((n == 0)) && [[ -z $only ]]; then
			__notes_words $state
			for w in "${c[@]}"; do
				[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
			done
		fi
		__notes_arg $state $n
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

complete -F __notes_complete 'notes'
