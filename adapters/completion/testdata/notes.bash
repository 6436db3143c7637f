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
	0:'audit-log') s=1 ;;
	0:'completion') s=2 ;;
	0:'describe') s=3 ;;
	0:'doctor') s=4 ;;
	0:'exec') s=5 ;;
	0:'list'|0:'ls') s=6 ;;
	0:'manifest') s=7 ;;
	0:'note') s=8 ;;
	0:'setup') s=12 ;;
	0:'status') s=13 ;;
	8:'add') s=9 ;;
	8:'tag') s=10 ;;
	10:'set') s=11 ;;
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
	*:'--format') v=e e=('json' 'jsonl' 'tsv' 'text' 'id' 'plain') ;;
	*:'--instance-id') v=f ;;
	*:'--token-limit') v=n ;;
	*:'--token-offset') v=n ;;
	*:'--tokenizer') v=e e=('estimate') ;;
	*:'--width') v=n ;;
	*:'--command') v=f ;;
	*:'--cursor') v=n ;;
	*:'--cwd') v=f ;;
	*:'--fields') v=n ;;
	*:'--limit') v=n ;;
	*:'--output') v=f ;;
	*:'--since') v=f ;;
	*:'--timeout') v=n ;;
	*:'--trace-id') v=f ;;
	*:'--shell') v=e e=('bash' 'zsh' 'fish') ;;
	*:'--etag') v=n ;;
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
	2:0) v=e e=('bash' 'zsh' 'fish' 'install') ;;
	9:0) v=f ;;
	11:1) v=e e=('red' 'green' 'blue') ;;
	esac
}

# __notes_words STATE sets c to the subcommands of command STATE and f to its
# flags.
__notes_words() {
	case $1 in
	0) c=('audit-log' 'completion' 'describe' 'doctor' 'exec' 'list' 'manifest' 'note' 'setup' 'status') f=('-V' '--color' '--colour' '--debug' '--dir' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--verbose' '--version' '--warnings-as-errors' '--width') ;;
	1) c=() f=('--color' '--colour' '--command' '--cursor' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--limit' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--since' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--trace-id' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	2) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output-schema' '--quiet' '--schema' '--shell' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	3) c=() f=('--agents-md' '--color' '--colour' '--cwd' '--debug' '--dir' '--etag' '--fields' '--format' '--full' '-h' '--help' '--index' '--instance-id' '--mcp' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	4) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	5) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--dry-run' '--fields' '--format' '-h' '--help' '--ignore-errors' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	6) c=() f=('--color' '--colour' '--cursor' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--limit' '--min-words' '--no-update-check' '--output' '--output-schema' '--quiet' '-s' '--schema' '--show-config' '--stable-output' '--status' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	7) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--etag' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	8) c=('add' 'tag') f=('--color' '--colour' '--debug' '--dir' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--verbose' '--warnings-as-errors' '--width') ;;
	9) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	10) c=('set') f=('--color' '--colour' '--debug' '--dir' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--verbose' '--warnings-as-errors' '--width') ;;
	11) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	12) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
	13) c=() f=('--color' '--colour' '--cwd' '--debug' '--dir' '--fields' '--format' '-h' '--help' '--instance-id' '--no-update-check' '--output' '--output-schema' '--quiet' '--schema' '--show-config' '--show-side-effects' '--show-state-files' '--stable-output' '--stream' '--timeout' '--token-count' '--token-limit' '--token-offset' '--tokenizer' '--unmask' '--validate-only' '--verbose' '--warnings-as-errors' '--width') ;;
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
