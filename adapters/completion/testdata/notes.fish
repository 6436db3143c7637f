# fish completion for notes, made by Duet from its command tree. It is static:
# pressing Tab never runs notes. Install it with
#
#	notes completion fish > ~/.config/fish/completions/notes.fish
#
# and make it again when the commands of notes change.

# __notes_sub STATE WORD prints the command WORD names under command STATE.
function __notes_sub
	switch "$argv[1]:$argv[2]"
		case '0:audit-log'
			echo 1
		case '0:completion'
			echo 2
		case '0:describe'
			echo 3
		case '0:doctor'
			echo 4
		case '0:exec'
			echo 5
		case '0:list' '0:ls'
			echo 6
		case '0:manifest'
			echo 7
		case '0:note'
			echo 8
		case '0:setup'
			echo 12
		case '0:status'
			echo 13
		case '8:add'
			echo 9
		case '8:tag'
			echo 10
		case '10:set'
			echo 11
	end
end

# __notes_flag STATE WORD prints what the flag WORD of command STATE takes (e
# then the values; f for a file; n for something to type), or nothing when it
# takes no value.
function __notes_flag
	switch "$argv[1]:$argv[2]"
		case '*'':--color'
			printf '%s\n' e 'auto' 'always' 'never'
		case '*'':--colour'
			printf '%s\n' e 'auto' 'always' 'never'
		case '*'':--dir'
			echo f
		case '*'':--format'
			printf '%s\n' e 'json' 'jsonl' 'tsv' 'text' 'id' 'plain'
		case '*'':--instance-id'
			echo f
		case '*'':--token-limit'
			echo n
		case '*'':--token-offset'
			echo n
		case '*'':--tokenizer'
			printf '%s\n' e 'estimate'
		case '*'':--width'
			echo n
		case '*'':--command'
			echo f
		case '*'':--cursor'
			echo n
		case '*'':--cwd'
			echo f
		case '*'':--fields'
			echo n
		case '*'':--limit'
			echo n
		case '*'':--output'
			echo f
		case '*'':--since'
			echo f
		case '*'':--timeout'
			echo n
		case '*'':--trace-id'
			echo f
		case '*'':--shell'
			printf '%s\n' e 'bash' 'zsh' 'fish'
		case '*'':--etag'
			echo n
		case '*'':--min-words'
			echo n
		case '*'':-s'
			printf '%s\n' e 'open' 'done' 'all'
		case '*'':--status'
			printf '%s\n' e 'open' 'done' 'all'
	end
end

# __notes_arg STATE N prints, as __notes_flag does, what positional argument N
# (from 0) of command STATE takes.
function __notes_arg
	switch "$argv[1]:$argv[2]"
		case '2:0'
			printf '%s\n' e 'bash' 'zsh' 'fish' 'install'
		case '9:0'
			echo f
		case '11:1'
			printf '%s\n' e 'red' 'green' 'blue'
	end
end

# __notes_commands STATE prints the subcommands of command STATE, and
# __notes_flags its flags, each with its description after a tab.
function __notes_commands
	switch $argv[1]
		case 0
			printf '%s\t%s\n' 'audit-log' 'Query the audit log of this tool\'s invocations, oldest first; --limit keeps the newest' 'completion' 'Print a shell completion script for bash, zsh or fish, or install it' 'describe' 'Describe every command of this tool as JSON (or AGENTS.md)' 'doctor' 'Check what this tool needs to work, and say how to fix what is missing' 'exec' 'Run a JSONL batch of commands from stdin, one answer per line' 'list' 'List notes' 'manifest' 'Print every command of this tool as the CLI Agent Spec\'s manifest' 'note' 'Work on one note' 'setup' 'Set up, for people' 'status' 'Show the files this tool keeps state in and writes to'
		case 8
			printf '%s\t%s\n' 'add' 'Add a note' 'tag' 'Tag a note'
		case 10
			printf '%s\t%s\n' 'set' 'Set a note\'s colour tag'
	end
end

function __notes_flags
	switch $argv[1]
		case 0
			printf '%s\t%s\n' '-V' 'print the version, as: tool 1.2.3' '--color' 'when to use colour' '--colour' 'when to use colour' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--verbose' 'debug diagnostics on stderr' '--version' 'print the version, as: tool 1.2.3' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 1
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--command' 'only entries of this command and those under it (config set, or config.set)' '--cursor' 'continue from meta.pagination.next_cursor of a previous response' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--limit' 'return at most this many items; 0 means all' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--since' 'only entries since this long ago (30s, 15m, 1h, 7d) or this time (2026-03-17T14:00:00Z)' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--trace-id' 'only entries with this trace id' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 2
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--shell' 'with install: the shell to install for (default: $SHELL\'s)' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 3
			printf '%s\t%s\n' '--agents-md' 'write an AGENTS.md for this tool instead of JSON' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--etag' 'the etag of a manifest you hold: answer not_modified when it is current' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '--full' 'every command\'s whole document, as <command> --schema gives it without its input schema' '-h' 'show help' '--help' 'show help' '--index' 'only each command\'s key and one line; <command> --schema gives the rest' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--mcp' 'list the MCP tools this tool serves (see adapters/mcp), with the etag of the agent manifest' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 4
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 5
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--dry-run' 'pass --dry-run to every line whose command implements it' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--ignore-errors' 'go on after a line fails (by default the batch stops at the first failure)' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 6
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cursor' 'continue from meta.pagination.next_cursor of a previous response' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--limit' 'return at most this many items; 0 means all' '--min-words' 'only notes at least this long' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '-s' 'open, done or all' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--status' 'open, done or all' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 7
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--etag' 'the etag of a manifest you hold: answer not_modified when it is current' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 8
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 9
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 10
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 11
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 12
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
		case 13
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cwd' 'resolve relative paths against this directory instead of the working directory (which does not change)' '--debug' 'the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted; $NOTES_DEBUG sets it' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '--format' 'the answer\'s format: json, jsonl, tsv, text (or plain) or id (default: json for an agent, text otherwise); $NOTES_FORMAT sets it, $NOTES_MAX_OUTPUT_BYTES caps an answer\'s bytes' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $NOTES_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set NOTES_NO_UPDATE=1)' '--output' 'write the answer to this file, in the --format representation, instead of stdout, which then says what was written' '--output-schema' 'print the JSON Schema of this command\'s data on success, and exit' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--show-side-effects' 'list the paths the tool writes to, with their sizes' '--show-state-files' 'list the files that hold the tool\'s state, with a summary of each' '--stable-output' 'the same bytes for the same state: arrays sorted, no request_id, duration_ms 0' '--stream' 'the same as --format jsonl: items as they come, then a summary line' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--token-count' 'run the command, and answer only with the tokens its data would take (meta.token_count)' '--token-limit' 'keep data within this many tokens, cut at whole items, and say so in meta; 0 means no limit' '--token-offset' 'start data this many tokens in (with --token-limit: the next window)' '--tokenizer' 'the tokenizer --token-limit, --token-offset and --token-count count with' '--unmask' 'show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr' '--warnings-as-errors' 'fail with exit 1 when the command warns; the warnings stay in the answer' '--width' 'wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal\'s width when a person watches stderr, else 0)'
	end
end

function __notes_complete
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
			set r (__notes_flag $state "$w")
			set -q r[1]; and set skip 1
			continue
		end
		if test $n -eq 0; and not set -q only[1]
			set r (__notes_sub $state "$w")
			if set -q r[1]
				set state $r
				continue
			end
		end
		set n (math $n + 1)
	end
	set -l pre
	if set -q skip[1]
		set r (__notes_flag $state "$words[-1]")
	else if not set -q only[1]; and string match -q -- '-*=*' "$cur"
		set pre (string split -m 1 = -- "$cur")[1]=
		set cur (string split -m 1 = -- "$cur")[2]
		set r (__notes_flag $state (string trim -r -c = -- "$pre"))
	else if not set -q only[1]; and string match -q -- '-*' "$cur"
		__notes_flags $state
		return
	else
		if test $n -eq 0; and not set -q only[1]
			__notes_commands $state
		end
		set r (__notes_arg $state $n)
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

complete -c 'notes' -e
complete -c 'notes' -f -a '(__notes_complete)'
