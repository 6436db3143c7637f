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
	0:'changelog') s=1 ;;
	0:'completion') s=2 ;;
	0:'describe') s=3 ;;
	0:'doctor') s=4 ;;
	0:'exec') s=5 ;;
	0:'generate-skills') s=6 ;;
	0:'list'|0:'ls') s=7 ;;
	0:'manifest') s=8 ;;
	0:'mcp-validate') s=9 ;;
	0:'note') s=10 ;;
	0:'setup') s=14 ;;
	0:'status') s=15 ;;
	10:'add') s=11 ;;
	10:'tag') s=12 ;;
	12:'set') s=13 ;;
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
	*:'--output') v=e e=('json' 'jsonl' 'tsv' 'text' 'id' 'plain') ;;
	*:'--token-limit') v=n ;;
	*:'--token-offset') v=n ;;
	*:'--tokenizer') v=e e=('cl100k_base' 'o200k_base') ;;
	*:'--fields') v=n ;;
	*:'--since') v=f ;;
	*:'--timeout') v=n ;;
	*:'--etag') v=n ;;
	*:'--format') v=e e=('markdown' 'json') ;;
	*:'--output-dir') v=f ;;
	*:'--cursor') v=n ;;
	*:'--limit') v=n ;;
	*:'--min-words') v=n ;;
	*:'-s') v=e e=('open' 'done' 'all') ;;
	*:'--status') v=e e=('open' 'done' 'all') ;;
	*:'--mcp-schema-file') v=f ;;
	*:'--mcp-server-url') v=f ;;
	esac
}

# __notes_arg STATE N sets v and e, as __notes_flag does, for positional
# argument N (from 0) of command STATE.
__notes_arg() {
	v=n e=()
	case $1:$2 in
	2:0) v=e e=('bash' 'zsh' 'fish') ;;
	11:0) v=f ;;
	13:1) v=e e=('red' 'green' 'blue') ;;
	esac
}

# __notes_words STATE sets c to the subcommands of command STATE and f to its
# flags, each as name:description.
__notes_words() {
	case $1 in
	0) c=('changelog:List the changes to this tool'\''s commands and output, newest first' 'completion:Print a shell completion script for bash, zsh or fish' 'describe:Describe every command of this tool as JSON (or AGENTS.md)' 'doctor:Check what this tool needs to work, and say how to fix what is missing' 'exec:Run a JSONL batch of commands from stdin, one answer per line' 'generate-skills:Write agent skill files for every command: CONTEXT.md and one SKILL-<command>.md each' 'list:List notes' 'manifest:Print every command of this tool as the CLI Agent Spec'\''s manifest' 'mcp-validate:Compare an MCP tool list with this tool'\''s commands, and report the drift' 'note:Work on one note' 'setup:Set up, for people' 'status:Show the files this tool keeps state in and writes to') f=('-V:print the version, as: tool 1.2.3' '--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--verbose:debug diagnostics on stderr' '--version:print the version, as: tool 1.2.3') ;;
	1) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--since:only the versions after this one, such as 1.0.0' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	2) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	3) c=() f=('--agents-md:write an AGENTS.md for this tool instead of JSON' '--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--etag:the etag of a manifest you hold: answer not_modified when it is current' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--mcp:list the MCP tools this tool serves (see adapters/mcp), with the etag of the agent manifest' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	4) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	5) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--dry-run:pass --dry-run to every line whose command implements it' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--ignore-errors:go on after a line fails (by default the batch stops at the first failure)' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	6) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--dry-run:report what would change and change nothing' '--fields:comma-separated top-level fields to keep in data' '--format:the files'\'' format' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-dir:the directory to write the files to' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	7) c=() f=('--color:when to use colour' '--colour:when to use colour' '--cursor:continue from meta.pagination.next_cursor of a previous response' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--limit:return at most this many items; 0 means all' '--min-words:only notes at least this long' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '-s:open, done or all' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--status:open, done or all' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	8) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--etag:the etag of a manifest you hold: answer not_modified when it is current' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	9) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--mcp-schema-file:a file holding the MCP tools: a tools/list result, or describe --mcp'\''s answer' '--mcp-server-url:an MCP server'\''s streamable HTTP endpoint to ask for its tools' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	10) c=('add:Add a note' 'tag:Tag a note') f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--verbose:debug diagnostics on stderr') ;;
	11) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	12) c=('set:Set a note'\''s colour tag') f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--verbose:debug diagnostics on stderr') ;;
	13) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	14) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
	15) c=() f=('--color:when to use colour' '--colour:when to use colour' '--dir:where the notes are' '--fields:comma-separated top-level fields to keep in data' '-h:show help' '--help:show help' '--output:output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise); $NOTES_OUTPUT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer'\''s bytes' '--output-schema:print the JSON Schema of this command'\''s data on success, and exit' '--quiet:no progress and no diagnostics but errors' '--schema:print this command'\''s input and output schema, exit codes and examples, and exit' '--show-config:print the value of every flag of this command and where it comes from, and exit' '--show-side-effects:list the paths the tool writes to, with their sizes' '--show-state-files:list the files that hold the tool'\''s state, with a summary of each' '--stable-output:the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream:the same as --output jsonl: items as they come, then a summary line' '--timeout:give up after this long, e.g. 90s or 5m; 0 means never' '--token-count:run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit:keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset:start data this many tokens in (with --token-limit: the next window)' '--tokenizer:the tokenizer --token-limit, --token-offset and --token-count count with' '--validate-only:validate the input and exit without running' '--verbose:debug diagnostics on stderr') ;;
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
