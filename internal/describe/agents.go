package describe

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// AgentsInfo is what an AGENTS.md says that the command tree does not.
type AgentsInfo struct {
	// Install is the command that installs this version of the tool
	// without asking anything; "" leaves the Installation section out.
	Install string
	// Env are the variables the app reads itself (WithEnvVar), which
	// EnvVars lists beside Duet's and its flags'.
	Env []EnvVar
	// Ported says the app declares a command to Duet: only then does its
	// root --help name AmbientEnv, so only then does AGENTS.md, whose
	// every variable must be in --help (O-043).
	Ported bool
	// LegacyOutput says the app keeps Duet's earlier --output json and
	// <TOOL>_OUTPUT (adapters.WithLegacyOutput): only then is the variable
	// read, as --format's deprecated default.
	LegacyOutput bool
	// AuditLog is the audit log's path while it is on, or "": the manifest
	// lists it as a log side effect of every command it records (REQ-O-030).
	AuditLog string
}

// AmbientEnv is the sentence that names the variables every Duet tool
// reads besides its own: AGENTS.md says it, and the root --help of an app
// that ports a command ends with it, in these words, so that the two
// cannot drift apart.
const AmbientEnv = "Also read, as by every Duet tool: NO_COLOR, CI, GITHUB_ACTIONS and TERM (no colour); " +
	"CLAUDECODE, CODEX_CI, CODEX_THREAD_ID, GEMINI_CLI, OPENCODE and AI_AGENT (a coding agent's shell: JSON answers); " +
	"HOME and XDG_CONFIG_HOME (where profiles live)."

// WithAgents returns the manifest with what its AGENTS.md adds to it.
func (m Manifest) WithAgents(info AgentsInfo) Manifest {
	m.agents = info
	return m
}

// EnvVar is an environment variable a tool reads, as AGENTS.md lists it.
type EnvVar struct {
	Name        string
	Type        string
	Description string
}

// DuetEnv returns the variables Duet reads for a tool that back none of
// its flags, in the order the manifest's root env_vars lists them: the
// manifest, AGENTS.md and the root's --help name the same ones.
func DuetEnv(tool string) []EnvVar {
	name := func(suffix string) string { return envelope.EnvName(tool, suffix) }
	vars := []EnvVar{
		{name("MAX_OUTPUT_BYTES"), "integer", fmt.Sprintf("the largest envelope written, in bytes (default %d); a larger answer is cut and says so in meta", envelope.DefaultMaxBytes)},
		{name("MAX_STDIN_BYTES"), "integer", "the most bytes a command reads from stdin; a larger payload is refused"},
		{name("CONFIG_DIR"), "path", "the directory the tool keeps its configuration and profiles in, instances/<id> under it per --instance-id (default $XDG_CONFIG_HOME/" + tool + ")"},
		{name("STATE_DIR"), "path", "the directory the tool keeps its jobs and idempotency records in (default $XDG_STATE_HOME/" + tool + ")"},
		{name("AUDIT_LOG"), "string", "1 turns the audit log on, 0 turns it off, an absolute path turns it on at that path"},
		{name("SESSION_ID"), "string", "the agent session the audit log records each call under, verbatim"},
		{name("TRACE_ID"), "string", "the trace id the call reports in meta and passes to the programs it runs"},
	}
	if name("TRACE_ID") != "TOOL_TRACE_ID" { // a tool called "tool" reads it once
		vars = append(vars, EnvVar{"TOOL_TRACE_ID", "string", "the trace id, the spec's shared name; " + name("TRACE_ID") + " overrides it"})
	}
	return vars
}

// EnvVars returns every environment variable the tool reads, each once, in
// name order: those the manifest homes on a flag (Duet's global options'
// and the commands'), the secrets and tokens commands read, Duet's own
// ([DuetEnv]) and those the app declares (AgentsInfo.Env) — every name the
// manifest gives, so that AGENTS.md lists them all (O-043).
func (m Manifest) EnvVars() []EnvVar {
	var vars []EnvVar
	seen := map[string]bool{}
	add := func(v EnvVar) {
		if !seen[v.Name] {
			seen[v.Name] = true
			vars = append(vars, v)
		}
	}
	fromFlag := func(e, name string, f schema.FlagEntry) EnvVar {
		desc := f.Description
		if desc != "" {
			desc += "; "
		}
		typ := f.Type
		if typ == "enum" {
			typ = "string: " + strings.Join(f.EnumValues, ", ")
		}
		return EnvVar{e, typ, desc + "the same as --" + name}
	}
	add(EnvVar{envelope.EnvName(m.Tool, "FORMAT"), "string", "the answer's format when --format is not given: " + m.formatList() + "; a machine format answers as to an agent"})
	for _, g := range m.globals {
		for _, e := range globalEnv(m.Tool, g.name, m.agents.LegacyOutput) {
			v := fromFlag(e.Name, g.name, g.entry)
			if e.Deprecated {
				v.Description = "deprecated: " + v.Description
			}
			add(v)
		}
	}
	for _, path := range m.SortedPaths() {
		d := m.Commands[path]
		for _, name := range slices.Sorted(maps.Keys(d.Flags)) {
			for _, e := range d.Flags[name].Env {
				add(fromFlag(e, name, d.Flags[name]))
			}
		}
		for _, e := range slices.Concat(d.SecretEnvVars, d.TokenEnvVars) {
			add(EnvVar{e, "string, secret", "a credential `" + strings.TrimSpace(m.Tool+" "+commandWords(m.Tool, path)) + "` reads; never given as a flag"})
		}
	}
	for _, v := range slices.Concat(DuetEnv(m.Tool), m.agents.Env) {
		add(v)
	}
	slices.SortFunc(vars, func(a, b EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return vars
}

// nonInteractive are the flags that let an agent run a tool headless, in
// the order AGENTS.md lists them, with what each does.
var nonInteractive = [...][2]string{
	{"format", "`--format json` answers with one JSON envelope: no prompts, no pager, no colour"},
	{"yes", "confirms a command that would ask first (destructive ones): without it, where nobody can be asked, the call is refused with CONFIRMATION_REQUIRED"},
	{"confirm-destructive", "the same as `--yes`, by the name the CLI Agent Spec gives it: confirms a destructive run"},
	{"non-interactive", "never asks: a call that would ask a question exits 4 with the flag that answers it"},
	{"dry-run", "shows what a changing command would do, and changes nothing"},
	{"validate-only", "checks a call's input without running it"},
	{"timeout", "bounds a call (`--timeout 5m`; 0 means never)"},
	{"quiet", "no progress and no diagnostics but errors on stderr"},
	{"no-stream", "answers a command that streams by default with one envelope"},
}

// writeAgentsHead writes the head of an AGENTS.md: the version it was made
// for on line 1, the title, and the sections the CLI Agent Spec requires of
// one (O-043, O-044, O-046).
func writeAgentsHead(b *strings.Builder, m Manifest) {
	tool := m.Tool
	fmt.Fprintf(b, "<!-- cli-version: %s -->\n", m.FrameworkVersion)
	fmt.Fprintf(b, "# AGENTS.md — %s\n\n", tool)
	fmt.Fprintf(b, "Generated by `%s describe --agents-md` from the same declarations as `--schema` (manifest etag `%s`).\n\n", tool, m.Etag)

	b.WriteString("## Canonical Invocation\n\n")
	fmt.Fprintf(b, "```\n%s <command> [arguments] [flags]\n```\n\n", tool)
	fmt.Fprintf(b, "From a coding agent's shell every call answers with one JSON envelope unasked; anywhere else add `--format json` or set `%s=json`. `%s manifest` lists every command.\n\n",
		envelope.EnvName(tool, "FORMAT"), tool)

	b.WriteString("## Non-Interactive Flags\n\n")
	nonInteractiveFlags := m.flagNames()
	for _, f := range nonInteractive {
		if nonInteractiveFlags[f[0]] {
			fmt.Fprintf(b, "- `--%s`%s: %s\n", f[0], m.takenBy(f[0]), f[1])
		}
	}
	listed := map[string]bool{}
	for _, f := range nonInteractive {
		listed[f[0]] = true
	}
	for _, path := range m.SortedPaths() { // a command's own confirmation flag (its confirm_flag)
		if name := m.Commands[path].ConfirmFlag; name != "" && !listed[name] {
			fmt.Fprintf(b, "- `--%s` (on `%s`): confirms it, as `--yes` does elsewhere\n", name, strings.TrimSpace(tool+" "+commandWords(tool, path)))
		}
	}
	b.WriteString("\nNothing prompts when stdin is not a terminal: a call that would ask is refused with the flag that answers it.\n\n")

	b.WriteString("## Environment Variables\n\n")
	for _, v := range m.EnvVars() {
		fmt.Fprintf(b, "- `%s` (%s, optional): %s\n", v.Name, v.Type, v.Description)
	}
	b.WriteString("\n")
	if m.agents.Ported {
		b.WriteString(AmbientEnv + "\n\n")
	}

	b.WriteString("## Input Conventions\n\n")
	flags := m.flagNames()
	if !flags[flagname.InputFile] {
		fmt.Fprintf(b, "Input is passed as flags and positional arguments, never read from stdin, except by `%s exec`, which reads a JSONL batch of `{\"_cmd\": \"<dot path>\", ...}` requests. ", tool)
	} else {
		// Commands that declare a stdin payload say so here too: the
		// section must hold for every command of the binary (O-043).
		fmt.Fprintf(b, "Input is passed as flags and positional arguments. Stdin is read by `%s exec`, which reads a JSONL batch of `{\"_cmd\": \"<dot path>\", ...}` requests, "+
			"and by the commands that take `--%s`%s, whose payload comes from stdin or from `--%s <path>`. ", tool, flagname.InputFile, m.takenBy(flagname.InputFile), flagname.InputFile)
	}
	if flags[flagname.RawPayload] {
		fmt.Fprintf(b, "`--%s '<json>'`%s passes every input of a command as one JSON object. ", flagname.RawPayload, m.takenBy(flagname.RawPayload))
	}
	fmt.Fprintf(b, "A list flag takes a comma-separated list or repeats; `--` ends the options. `%s <command> --schema` gives a command's input as JSON Schema, and `--validate-only` checks a call.\n\n", tool)

	if m.agents.Install != "" {
		b.WriteString("## Installation\n\n")
		fmt.Fprintf(b, "```bash\n%s    # non-interactive, idempotent\n%s --version    # verify: prints \"%s %s\", exits 0\n```\n\n", m.agents.Install, tool, tool, m.FrameworkVersion)
	}

	b.WriteString("## CI Validation\n\n")
	fmt.Fprintf(b, "`duet-check agents-md AGENTS.md -- %s` fails when this file's cli-version is not what `%s --version` prints, or when a flag, command or environment variable it names is not in `%s --help`; "+
		"`%s describe --agents-md > AGENTS.md` regenerates it.\n\n", tool, tool, tool, tool)
}

// takenBy names, for a flag only a few commands take, up to three of them
// as " (on `tool a b`, ...)", so that a reader — and duet-check agents-md,
// which looks for the flag in the help of the commands AGENTS.md shows —
// knows where it applies; "" for a flag most commands take.
func (m Manifest) takenBy(flag string) string {
	var on []string
	for _, path := range m.SortedPaths() {
		if _, ok := m.Commands[path].Flags[flag]; ok {
			on = append(on, path)
		}
	}
	if len(on) == 0 || 2*len(on) >= len(m.Commands) {
		return ""
	}
	more := ""
	if len(on) > 3 {
		more = fmt.Sprintf(" and %d more", len(on)-3)
		on = on[:3]
	}
	for i, path := range on {
		if path == m.Tool {
			on[i] = "`" + m.Tool + "`"
		} else {
			on[i] = "`" + m.Tool + " " + strings.ReplaceAll(path, ".", " ") + "`"
		}
	}
	return " (on " + strings.Join(on, ", ") + more + ")"
}

// flagNames is every flag name of the manifest's commands.
func (m Manifest) flagNames() map[string]bool {
	names := map[string]bool{}
	for _, d := range m.Commands {
		for name := range d.Flags {
			names[name] = true
		}
	}
	return names
}

// writeAgentsCalling adds the discovery built-ins to AGENTS.md's list of
// how to call the tool, and ends it.
func writeAgentsCalling(b *strings.Builder, m Manifest) {
	tool := m.Tool
	fmt.Fprintf(b, "- `%s exec` runs a JSONL batch of commands from stdin in one call, one envelope per line with `meta._cmd` and `meta._line`.\n", tool)
	b.WriteString("- `--token-limit N` keeps `data` within N tokens (cut at whole items, `meta.truncated`); `--token-count` answers with `meta.token_count` alone; `--stable-output` gives the same bytes for the same state.\n")
	fmt.Fprintf(b, "- `%s doctor` checks what the tool needs; `%s status` lists its state files", tool, tool)
	if _, ok := m.Commands["changelog"]; ok { // a feature's (feature/changelog)
		fmt.Fprintf(b, "; `%s changelog --since <version>` lists what changed", tool)
	}
	b.WriteString(".\n\n")
}

// formatList is what the tool's --format takes, as a sentence.
func (m Manifest) formatList() string {
	for _, g := range m.globals {
		if g.name == "format" && len(g.entry.EnumValues) > 0 {
			return FormatSentence(g.entry.EnumValues)
		}
	}
	return FormatSentence(envelope.FormatNames())
}

// FormatSentence words the formats --format takes (envelope.FormatNames):
// "json, jsonl, tsv, text (or plain) or id" — plain, the spec's name for
// text, said beside it.
func FormatSentence(names []string) string {
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "plain" })
	for i, n := range names {
		if n == string(envelope.Text) {
			names[i] = n + " (or plain)"
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
