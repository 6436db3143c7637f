# fish completion for notes, made by Duet from its command tree. It is static:
# pressing Tab never runs notes. Install it with
#
#	notes completion fish > ~/.config/fish/completions/notes.fish
#
# and make it again when the commands of notes change.

# __notes_sub STATE WORD prints the command WORD names under command STATE.
function __notes_sub
	switch "$argv[1]:$argv[2]"
		case '0:completion'
			echo 1
		case '0:describe'
			echo 2
		case '0:list' '0:ls'
			echo 3
		case '0:note'
			echo 4
		case '0:setup'
			echo 8
		case '4:add'
			echo 5
		case '4:tag'
			echo 6
		case '6:set'
			echo 7
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
		case '*'':--instance-id'
			echo f
		case '*'':--output'
			printf '%s\n' e 'json' 'jsonl' 'tsv' 'text' 'id'
		case '*'':--fields'
			echo n
		case '*'':--timeout'
			echo n
		case '*'':--etag'
			echo n
		case '*'':--cursor'
			echo n
		case '*'':--limit'
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
		case '1:0'
			printf '%s\n' e 'bash' 'zsh' 'fish'
		case '5:0'
			echo f
		case '7:1'
			printf '%s\n' e 'red' 'green' 'blue'
	end
end

# __notes_commands STATE prints the subcommands of command STATE, and
# __notes_flags its flags, each with its description after a tab.
function __notes_commands
	switch $argv[1]
		case 0
			printf '%s\t%s\n' 'completion' 'Print a shell completion script for bash, zsh or fish' 'describe' 'Describe every command of this tool as JSON (or AGENTS.md)' 'list' 'List notes' 'note' 'Work on one note' 'setup' 'Set up, for people'
		case 4
			printf '%s\t%s\n' 'add' 'Add a note' 'tag' 'Tag a note'
		case 6
			printf '%s\t%s\n' 'set' 'Set a note\'s colour tag'
	end
end

function __notes_flags
	switch $argv[1]
		case 0
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--verbose' 'debug diagnostics on stderr' '--version' 'print the version'
		case 1
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr'
		case 2
			printf '%s\t%s\n' '--agents-md' 'write an AGENTS.md for this tool instead of JSON' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '--etag' 'the etag of a manifest you hold: answer not_modified when it is current' '--fields' 'comma-separated top-level fields to keep in data' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--mcp' 'list the MCP tools this tool serves (see adapters/mcp), with the etag of the agent manifest' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr'
		case 3
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--cursor' 'continue from meta.pagination.next_cursor of a previous response' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--limit' 'return at most this many items; 0 means all' '--min-words' 'only notes at least this long' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '-s' 'open, done or all' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--status' 'open, done or all' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr'
		case 4
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--verbose' 'debug diagnostics on stderr'
		case 5
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr'
		case 6
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--verbose' 'debug diagnostics on stderr'
		case 7
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr'
		case 8
			printf '%s\t%s\n' '--color' 'when to use colour' '--colour' 'when to use colour' '--dir' 'where the notes are' '--fields' 'comma-separated top-level fields to keep in data' '-h' 'show help' '--help' 'show help' '--instance-id' 'keep this instance\'s state apart from other instances\' (default: $<TOOL>_INSTANCE_ID)' '--no-update-check' 'never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)' '--output' 'output format: json, jsonl, tsv, text or id (default: json for an agent, text otherwise)' '--quiet' 'no progress and no diagnostics but errors' '--schema' 'print this command\'s input and output schema, exit codes and examples, and exit' '--show-config' 'print the value of every flag of this command and where it comes from, and exit' '--timeout' 'give up after this long, e.g. 90s or 5m; 0 means never' '--validate-only' 'validate the input and exit without running' '--verbose' 'debug diagnostics on stderr'
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
