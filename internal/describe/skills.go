package describe

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// SkillFile is one file `tool generate-skills` writes: CONTEXT.md, the
// tool's overview, or SKILL-<command>.md, one command's skill.
type SkillFile struct {
	Name    string // the file's name, such as SKILL-run-spawn.md
	Command string // the command's dot path; "" for the context
	Format  string // "markdown" or "json"
	Content []byte
}

// SkillFormats are the formats of [Skills].
var SkillFormats = []string{"markdown", "json"}

// Skills renders the manifest as agent skill files: a context and one skill
// per runnable command of the app an agent may run — not Duet's own
// built-ins, nor an interactive command (a REPL) or one for a person only,
// which are refused to an agent. A markdown skill is YAML front matter — name, description,
// version, the tool's version and the arguments' JSON Schema — and a body
// of examples, guardrails, patterns and anti-patterns, the layout Claude
// Code and OpenClaw load; a json skill holds the same as one object. Each
// skill has at least three examples: the declared ones, then a minimal
// call, a validation-only call and the schema call.
func Skills(root *schema.Command, m Manifest, format string) ([]SkillFile, error) {
	if !slices.Contains(SkillFormats, format) {
		return nil, fmt.Errorf("describe: skills: format %q is not markdown or json", format)
	}
	var files []SkillFile
	var cmds []*schema.Command
	root.Walk(func(c *schema.Command) {
		// An interactive command (a REPL) and one for a person only are
		// refused to an agent: no skill tells one to run them. A command
		// that hands its arguments to another tool (Delegates) has that
		// tool's interface, which Duet's declarations do not describe.
		if _, listed := m.Commands[c.DotPath()]; listed && c.Runnable && !c.Builtin && !c.Passthrough && !builtinUnder(c) &&
			!c.Meta.Interactive && !c.Meta.RequiresPerson && !c.Delegates() {
			cmds = append(cmds, c)
		}
	})
	slices.SortFunc(cmds, func(a, b *schema.Command) int { return strings.Compare(a.DotPath(), b.DotPath()) })
	for _, c := range cmds {
		s := skillOf(m, c)
		name := "SKILL-" + skillName(m.Tool, c) + ext(format)
		content, err := s.render(format)
		if err != nil {
			return nil, err
		}
		files = append(files, SkillFile{Name: name, Command: c.DotPath(), Format: format, Content: content})
	}
	ctx := contextOf(m, cmds)
	content, err := ctx.render(format)
	if err != nil {
		return nil, err
	}
	return append([]SkillFile{{Name: "CONTEXT" + ext(format), Format: format, Content: content}}, files...), nil
}

func builtinUnder(c *schema.Command) bool {
	for p := c; p != nil; p = p.Parent {
		if p.Builtin {
			return true
		}
	}
	return false
}

func ext(format string) string {
	if format == "json" {
		return ".json"
	}
	return ".md"
}

// skillName is a skill's name as Claude Code wants one: lower-case letters,
// digits and hyphens — the tool's name and the command's path.
func skillName(tool string, c *schema.Command) string {
	words := append([]string{tool}, c.Path...)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.Join(words, "-")) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// skill is one command's skill.
type skill struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Version     string           `json:"version"`
	CLIVersion  string           `json:"cli_version"`
	Command     string           `json:"command"`
	DangerLevel string           `json:"danger_level"`
	Args        schema.Schema    `json:"args"`
	Examples    []schema.Example `json:"examples"`
	Guardrails  []string         `json:"guardrails"`
	Patterns    []string         `json:"patterns"`
	AntiPattern []string         `json:"anti_patterns"`
}

func skillOf(m Manifest, c *schema.Command) skill {
	d := m.Commands[c.DotPath()]
	line := fullCommand(m.Tool, commandWords(m.Tool, c.DotPath()))
	s := skill{
		Name:        skillName(m.Tool, c),
		Description: cmpOr(d.Description, "Run "+line),
		Version:     m.FrameworkVersion,
		CLIVersion:  m.FrameworkVersion,
		Command:     line,
		DangerLevel: string(d.DangerLevel),
		Args:        c.InputSchema(),
	}
	for _, ex := range d.Examples {
		s.Examples = append(s.Examples, schema.Example{Description: ex.Description, Command: fullCommand(m.Tool, ex.Command)})
	}
	minimal := minimalCall(line, c)
	s.Examples = append(s.Examples,
		schema.Example{Description: "the minimal call: required arguments and flags only", Command: minimal},
		schema.Example{Description: "check a call without running it", Command: minimal + " --validate-only"},
		schema.Example{Description: "the full input and output schema", Command: line + " --schema"},
	)
	switch d.DangerLevel {
	case schema.Safe:
		s.Guardrails = append(s.Guardrails, "Reads only: safe to run and to retry.")
	case schema.Mutating:
		s.Guardrails = append(s.Guardrails, "Changes state and reports meta.effect (created, updated, noop): read it rather than running it again.")
	case schema.Destructive:
		s.Guardrails = append(s.Guardrails, "Destructive: run it with --dry-run first and read meta.would_affect, then again with --yes.")
	default:
		s.Guardrails = append(s.Guardrails, "Its danger is not declared: treat it as destructive, and confirm with the user before running it.")
	}
	if d.RequiresConfirmation {
		s.Guardrails = append(s.Guardrails, "Needs --yes where nobody can be asked; without it the call is refused with CONFIRMATION_REQUIRED and nothing changes.")
	}
	s.Guardrails = append(s.Guardrails, exitGuardrail(d.ExitCodes))
	if d.TimeoutMS > 0 {
		s.Guardrails = append(s.Guardrails, fmt.Sprintf("Gives up after %s unless --timeout says otherwise (exit 10, TIMEOUT).", msText(d.TimeoutMS)))
	}
	s.Patterns = []string{
		"Read the one JSON envelope on stdout: data on success, error.code and error.suggestion on failure.",
		"Branch on the exit code and error.code, never on the message's words.",
	}
	if d.List {
		s.Patterns = append(s.Patterns, "Page with --limit N and --cursor from meta.pagination.next_cursor; --fields a,b keeps only what you need.")
	}
	if d.SupportsStreaming {
		s.Patterns = append(s.Patterns, "--format jsonl gives one item per line as they come, then a summary line.")
	}
	s.AntiPattern = []string{
		"Do not guess ids or values: list them first, or read valid_values from a validation error.",
		"Do not retry a failure whose error.retryable is false without changing the call.",
		"Do not parse the text a person sees: ask for the envelope (--format json).",
	}
	if d.OptionPlacement == schema.Strict {
		s.AntiPattern = append(s.AntiPattern, "Do not put options after the first argument: this command takes them only before it.")
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func msText(ms int64) string {
	if ms%1000 == 0 {
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}

// minimalCall is the command with its required arguments and flags, as
// placeholders.
func minimalCall(line string, c *schema.Command) string {
	words := []string{line}
	for _, a := range c.Args {
		if a.Required {
			words = append(words, "<"+a.Name+">")
		}
	}
	for f := range c.Accepted() {
		if f.Required && !f.Hidden {
			words = append(words, "--"+f.Name, "<"+f.Name+">")
		}
	}
	return strings.Join(words, " ")
}

func exitGuardrail(t exitcode.Table) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(t)) {
		e := t[code]
		retry := ""
		if e.Retryable {
			retry = ", retryable"
		}
		parts = append(parts, fmt.Sprintf("%d %s%s", code, e.Name, retry))
	}
	return "Exit codes: " + strings.Join(parts, "; ") + "."
}

// render writes the skill as markdown with front matter, or as JSON. The
// front matter's values are JSON, which YAML reads as it is.
func (s skill) render(format string) ([]byte, error) {
	if format == "json" {
		return jsonIndent(s)
	}
	var b strings.Builder
	b.WriteString("---\n")
	for _, kv := range [][2]any{{"name", s.Name}, {"description", s.Description}, {"version", s.Version}, {"cli_version", s.CLIVersion},
		{"command", s.Command}, {"danger_level", s.DangerLevel}, {"args", s.Args}} {
		raw, err := json.Marshal(kv[1])
		if err != nil {
			return nil, fmt.Errorf("describe: skill %s: %w", s.Name, err)
		}
		fmt.Fprintf(&b, "%s: %s\n", kv[0], raw)
	}
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", s.Command, s.Description)
	b.WriteString("## Examples\n\n")
	for _, ex := range s.Examples {
		fmt.Fprintf(&b, "- %s:\n  `%s`\n", ex.Description, ex.Command)
	}
	for _, sec := range [...]struct {
		title string
		items []string
	}{{"Guardrails", s.Guardrails}, {"Common patterns", s.Patterns}, {"Anti-patterns", s.AntiPattern}} {
		fmt.Fprintf(&b, "\n## %s\n\n", sec.title)
		for _, it := range sec.items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	return []byte(b.String()), nil
}

// skillContext is the tool's overview.
type skillContext struct {
	Tool       string         `json:"tool"`
	CLIVersion string         `json:"cli_version"`
	Etag       string         `json:"etag"`
	Commands   []contextEntry `json:"commands"`
	Guidance   []string       `json:"guidance"`
}

type contextEntry struct {
	Command     string `json:"command"`
	Description string `json:"description"`
	DangerLevel string `json:"danger_level"`
	Skill       string `json:"skill"`
}

func contextOf(m Manifest, cmds []*schema.Command) skillContext {
	c := skillContext{Tool: m.Tool, CLIVersion: m.FrameworkVersion, Etag: m.Etag, Commands: []contextEntry{}}
	for _, cmd := range cmds {
		d := m.Commands[cmd.DotPath()]
		c.Commands = append(c.Commands, contextEntry{
			Command: fullCommand(m.Tool, commandWords(m.Tool, cmd.DotPath())), Description: d.Description,
			DangerLevel: string(d.DangerLevel), Skill: "SKILL-" + skillName(m.Tool, cmd),
		})
	}
	c.Guidance = []string{
		"Every call prints exactly one JSON envelope on stdout when an agent runs it: {ok, data, error, warnings, meta}.",
		"Exit codes: 0 success, 2 invalid input (nothing changed), 4 precondition, 5 not found, 6 conflict, 10 timeout, 14 incomplete (run data.continue_command), 130/143 cancelled.",
		fmt.Sprintf("`%s manifest` lists every command with its flags and exit codes; `%s <command> --schema` gives one command's input and output schema.", m.Tool, m.Tool),
		fmt.Sprintf("`%s exec` runs a JSONL batch of commands in one call; `%s doctor` checks what the tool needs.", m.Tool, m.Tool),
		"--token-limit N keeps an answer within N tokens; --token-count says how many it would take.",
	}
	return c
}

func (c skillContext) render(format string) ([]byte, error) {
	if format == "json" {
		return jsonIndent(c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- cli-version: %s -->\n# %s — context for agents\n\n", c.CLIVersion, c.Tool)
	fmt.Fprintf(&b, "Generated by `%s generate-skills` (manifest etag `%s`).\n\n## Commands\n\n", c.Tool, c.Etag)
	for _, e := range c.Commands {
		fmt.Fprintf(&b, "- `%s` (%s) — %s See %s.md.\n", e.Command, e.DangerLevel, strings.TrimRight(e.Description, ".")+".", e.Skill)
	}
	b.WriteString("\n## Guidance\n\n")
	for _, g := range c.Guidance {
		fmt.Fprintf(&b, "- %s\n", g)
	}
	return []byte(b.String()), nil
}

func jsonIndent(v any) ([]byte, error) {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("describe: skills: %w", err)
	}
	return append(raw, '\n'), nil
}
