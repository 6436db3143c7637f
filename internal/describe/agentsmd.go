package describe

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// AgentsMD renders the manifest as an AGENTS.md: how to call the tool, the
// contract its answers follow, and every command with its flags, arguments,
// danger and examples.
func AgentsMD(m Manifest) string {
	var b strings.Builder
	tool := m.Tool
	writeAgentsHead(&b, m)
	b.WriteString("## Calling it\n\n")
	fmt.Fprintf(&b, "- Run from a coding agent's shell (Claude Code, Codex, Gemini CLI, OpenCode), or with `--format json` or `%s=json`, "+
		"every call prints exactly one JSON envelope: `{\"ok\", \"data\", \"error\", \"warnings\", \"meta\"}`. Branch on the exit code and `error.code`, never on message text.\n",
		envelope.EnvName(tool, "FORMAT"))
	b.WriteString("- Exit codes: 0 success, 2 invalid input (nothing changed; `error.errors` lists every problem), " +
		"4 precondition (`PERSON_REQUIRED`: hand it to a person), 5 not found, 6 conflict, 10 timeout, 14 incomplete (the work goes on: run `data.continue_command`), 130/143 cancelled. `error.retryable` says whether the same call may succeed.\n")
	fmt.Fprintf(&b, "- `%s describe --index` lists every command in a line, `%s describe <command>` gives what one takes and answers (by its key, such as `%s`), "+
		"`%s describe` all of them with what they share said once, and `%s <command> --schema` one command's whole input and output schema; "+
		"`%s describe --etag <etag>` answers `meta.not_modified` when this file is current.\n", tool, tool, m.exampleKey(), tool, tool, tool)
	if m.flagNames()["yes"] { // discovery: name no flag the tool lacks (O-046)
		b.WriteString("- Destructive commands need `--yes`; run them with `--dry-run` first. Mutating commands run unasked and report `meta.effect`.\n")
	} else {
		b.WriteString("- Mutating commands run unasked and report `meta.effect`.\n")
	}
	b.WriteString("- List commands return 20 items by default: pass `--limit N` (0 = all) and `--cursor` from `meta.pagination.next_cursor`. `--fields a,b` keeps only those fields.\n")
	b.WriteString("- `--validate-only` checks a call without running it; `--timeout 5m` bounds it.\n")
	fmt.Fprintf(&b, "- `--instance-id ID` (or `%s`) keeps your state apart from other agents'; `--no-update-check` is implied where no terminal is.\n", envelope.EnvName(tool, "INSTANCE_ID"))
	writeAgentsCalling(&b, m)
	b.WriteString("## Commands\n")
	for _, path := range slices.Sorted(maps.Keys(m.Commands)) {
		d := m.Commands[path]
		if !d.Runnable {
			continue
		}
		fmt.Fprintf(&b, "\n### `%s %s`\n\n", tool, strings.ReplaceAll(path, ".", " "))
		if d.Description != "" {
			b.WriteString(d.Description + "\n\n")
		}
		traits := []string{string(d.DangerLevel)}
		if d.List {
			traits = append(traits, "list")
		}
		if d.RequiresConfirmation {
			traits = append(traits, "needs --yes")
		}
		fmt.Fprintf(&b, "- %s\n", strings.Join(traits, ", "))
		for _, a := range d.Arguments {
			req := "optional"
			if a.Required {
				req = "required"
			}
			fmt.Fprintf(&b, "- argument `<%s>` (%s)%s\n", a.Name, req, dash(a.Usage))
		}
		for _, name := range slices.Sorted(maps.Keys(d.Flags)) {
			f := d.Flags[name]
			if isCommonFlag(name) {
				continue
			}
			fmt.Fprintf(&b, "- `--%s` %s%s%s\n", name, flagType(f), requiredMark(f), dash(f.Description))
		}
		for _, ex := range d.Examples {
			fmt.Fprintf(&b, "- example: `%s %s` — %s\n", tool, ex.Command, ex.Description)
		}
	}
	return b.String()
}

// isCommonFlag leaves out the built-ins every command has; the contract
// section above explains them once.
func isCommonFlag(name string) bool {
	switch name {
	case "format", "output", "schema", "quiet", "verbose", "timeout", "validate-only", "fields",
		"output-schema", "stable-output", "stream", "token-count", "token-limit", "token-offset", "tokenizer",
		"instance-id", "no-update-check": // auth, trust and safety (issue 16)
		return true
	}
	return false
}

func flagType(f schema.FlagEntry) string {
	if len(f.EnumValues) > 0 {
		return "(" + strings.Join(f.EnumValues, "|") + ")"
	}
	return "(" + f.Type + ")"
}

func requiredMark(f schema.FlagEntry) string {
	if f.Required {
		return " required"
	}
	return ""
}

func dash(s string) string {
	if s == "" {
		return ""
	}
	return " — " + s
}

// exampleKey is a key to show describe <command> with: the first runnable
// command under a group, else the first runnable one.
func (m Manifest) exampleKey() string {
	key := ""
	for _, path := range slices.Sorted(maps.Keys(m.Commands)) {
		d := m.Commands[path]
		switch {
		case !d.Runnable || path == m.Tool:
		case strings.Contains(path, "."):
			return path
		case key == "":
			key = path
		}
	}
	return cmp.Or(key, "describe")
}
