#compdef notes
# zsh completion for notes, made by Duet from its command tree. It is static:
# pressing Tab never runs notes. Load it from ~/.zshrc, after compinit, with
#
#	source <(notes completion zsh)
#
# or save it as _notes in a directory of $fpath; make it again when the
# commands of notes change.

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
# flags, each as name:description.
__notes_words() {
	case $1 in
	0) c=('completion:Print a shell completion script for bash, zsh or fish' 'describe:Describe every command of this tool as JSON (or AGENTS.md)' 'list:List notes' 'note:Work on one note' 'setup:Set up, for people') f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--verbose:debug diagnostics on stderr' '--version:print the version') ;;
	1) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	2) c=() f=('--agents-md:write an AGENTS.md for this tool instead of JSON' '--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--etag:the etag of a manifest you hold: answer not_modified when it is current' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--mcp:list the MCP tools this tool serves (see adapters/mcp), with the etag of the agent manifest' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	3) c=() f=('--color:when to use colour' '--colour:when to use colour' '--cursor:continue from meta.pagination.next_cursor of a previous response' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--limit:return at most this many items; 0 means all' '--min-words:only notes at least this long' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '-s:open, done or all' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--status:open, done or all' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	4) c=('add:Add a note' 'tag:Tag a note') f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--verbose:debug diagnostics on stderr') ;;
	5) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	6) c=('set:Set a note'\''s colour tag') f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--verbose:debug diagnostics on stderr') ;;
	7) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	8) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--instance-id:keep this instance'\''s state apart from other instances'\'' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check:never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	esac
}

_notes() {
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
	if [[ -n $skip ]]; then
		__notes_flag $state "${words[CURRENT-1]}"
	elif [[ -z $only && $cur == -*=* ]]; then
		__notes_flag $state "${cur%%=*}"
		compset -P '*='
	elif [[ -z $only && $cur == -* ]]; then
		__notes_words $state
		_describe -t options option f
		return
	else
		if ((n == 0)) && [[ -z $only ]]; then
			__notes_words $state
			(($#c)) && _describe -t commands command c
		fi
		__notes_arg $state $n
	fi
	case $v in
	e) compadd -a e ;;
	f) _files ;;
	esac
}

# Autoloaded from $fpath, this file is the body of _notes: it defines the
# functions, then completes. Sourced, it registers them.
if [[ $funcstack[1] == _notes ]]; then
	_notes "$@"
else
	compdef _notes 'notes'
fi
