package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// ArtifactReport is what [CheckArtifact] found in one integration
// artifact: every command and flag it names that the binary's --help does
// not.
type ArtifactReport struct {
	Artifact   string     `json:"artifact"`
	Mismatches []Mismatch `json:"mismatches"`
}

// OK reports whether every name the artifact uses is in --help.
func (r ArtifactReport) OK() bool { return len(r.Mismatches) == 0 }

// quotedCommand is a command line an artifact quotes: in backticks, or as a
// JSON or YAML string.
var quotedCommand = regexp.MustCompile("[`\"]([^`\"\n]+)")

// shellSeparator ends one call of a quoted command line: `a && b`, `a | b`.
var shellSeparator = regexp.MustCompile(`\s*(?:&&|\|\||[|;])\s*`)

// CheckArtifact holds one integration artifact the binary generates — a
// skill file or CONTEXT (markdown or json) of `generate-skills`, the tool
// list of `describe --mcp`, an AGENTS.md — to the CLI Agent Spec's O-045:
// no command name or flag name in it is absent from `<binary> --help`.
// Commands are the command lines it quotes (`tool word ...`, in backticks
// or as a string) and the MCP tools' names (path words joined by _); flags
// are every --name it holds and the properties of the skills' args and the
// tools' inputSchema, each found as --name, or as <name> (an argument), in
// the help of its command, of the root, or of a command the artifact
// names. A target that cannot be run is an error; everything else is a
// mismatch.
func CheckArtifact(ctx context.Context, t Target, name string, content []byte) (ArtifactReport, error) {
	r := ArtifactReport{Artifact: name, Mismatches: []Mismatch{}}
	miss := func(kind, what, detail string) { r.Mismatches = append(r.Mismatches, Mismatch{kind, what, detail}) }
	tool := toolName(t)
	help := newHelpIndex(ctx, t)
	help.of(nil)
	if help.err != nil {
		return r, help.err
	}

	text := string(content)
	props := map[string][]string{} // command (space-joined path) -> input properties
	var doc any
	if json.Unmarshal(content, &doc) == nil {
		collectJSON(doc, tool, props)
		// Its strings as they read, not as JSON escapes them (\u0026\u0026).
		var b strings.Builder
		stringsOf(doc, &b)
		text = b.String()
	} else {
		for _, l := range strings.Split(text, "\n") { // a skill's front matter
			if a, ok := strings.CutPrefix(l, "args: "); ok {
				var s struct{ Properties map[string]any }
				if json.Unmarshal([]byte(a), &s) == nil {
					cmd := frontMatter(text, "command")
					props[strings.TrimSpace(strings.TrimPrefix(cmd, tool))] = slices.Sorted(maps.Keys(s.Properties))
				}
			}
		}
	}

	var paths [][]string
	addPath := func(p []string) {
		if len(p) > 0 && !slices.ContainsFunc(paths, func(q []string) bool { return slices.Equal(p, q) }) {
			paths = append(paths, p)
		}
	}
	var lines []string // the command lines quoted, one call each
	for _, m := range quotedCommand.FindAllStringSubmatch(text, -1) {
		lines = append(lines, shellSeparator.Split(m[1], -1)...)
	}
	for _, l := range lines {
		addPath(commandPath(l, tool))
	}
	for cmd := range props {
		addPath(strings.Fields(cmd))
	}
	for _, path := range paths {
		found := help.resolve(path)
		_, exact := props[strings.Join(path, " ")] // a tool's or skill's command, not a command line
		switch {
		case len(found) == 0:
			miss("command", tool+" "+path[0], fmt.Sprintf("%q is not a command in `%s --help`", path[0], tool))
		case exact && len(found) < len(path):
			miss("command", tool+" "+strings.Join(path, " "), fmt.Sprintf("%q is not a command in `%s --help`", path[len(found)], strings.Join(append([]string{tool}, found...), " ")))
		default:
			help.of(found)
		}
	}
	if help.err != nil {
		return r, help.err
	}
	corpus := help.corpus()

	seen := map[string]bool{}
	for _, m := range mdFlag.FindAllStringSubmatch(text, -1) {
		if flag := m[1]; !seen[flag] {
			seen[flag] = true
			if !containsWord(corpus, flag) {
				miss("flag", flag, "not in --help of the root or of any command the artifact names")
			}
		}
	}
	for _, cmd := range slices.Sorted(maps.Keys(props)) {
		own := help.of(help.resolve(strings.Fields(cmd)))
		for _, p := range props[cmd] {
			if seen["--"+p] || containsWord(corpus, "--"+p) || namesArg(own, p) {
				continue
			}
			miss("flag", "--"+p, fmt.Sprintf("input property of %q is neither a flag nor an argument in --help", strings.TrimSpace(tool+" "+cmd)))
		}
	}
	return r, help.err
}

// collectJSON gathers the commands a JSON artifact describes with their
// input properties: an MCP tool list's tools ({name, inputSchema}) and a
// skill's {command, args}.
func collectJSON(v any, tool string, props map[string][]string) {
	switch v := v.(type) {
	case map[string]any:
		if name, ok := v["name"].(string); ok {
			if s, ok := v["inputSchema"].(map[string]any); ok {
				p, _ := s["properties"].(map[string]any)
				props[strings.ReplaceAll(name, "_", " ")] = slices.Sorted(maps.Keys(p))
			}
		}
		if cmd, ok := v["command"].(string); ok {
			if s, ok := v["args"].(map[string]any); ok {
				p, _ := s["properties"].(map[string]any)
				props[strings.TrimSpace(strings.TrimPrefix(cmd, tool))] = slices.Sorted(maps.Keys(p))
			}
		}
		for _, e := range v {
			collectJSON(e, tool, props)
		}
	case []any:
		for _, e := range v {
			collectJSON(e, tool, props)
		}
	}
}

// frontMatter is the value of key in a markdown file's YAML front matter.
func frontMatter(text, key string) string {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			var s string
			if json.Unmarshal([]byte(v), &s) == nil {
				return s
			}
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// CheckArtifacts makes the integration artifacts a Duet tool generates —
// `describe --agents-md`, `generate-skills` in markdown and json (into a
// temporary directory), `describe --mcp` — and holds each to --help with
// [CheckArtifact], in that order. An artifact the tool does not make is a
// mismatch of kind "artifact"; a target that cannot be run is an error.
func CheckArtifacts(ctx context.Context, t Target) ([]ArtifactReport, error) {
	run := func(args ...string) runOutcome {
		inv := invocationSpec{Path: t.Path, Args: append(slices.Clone(t.Args), args...)}
		if len(t.Env) > 0 {
			inv.Env = append(os.Environ(), t.Env...)
		}
		return runInvocation(ctx, inv)
	}
	var reports []ArtifactReport
	check := func(name string, content []byte) error {
		r, err := CheckArtifact(ctx, t, name, content)
		reports = append(reports, r)
		return err
	}
	missing := func(name string, out runOutcome) {
		reports = append(reports, ArtifactReport{Artifact: name, Mismatches: []Mismatch{{"artifact", name,
			fmt.Sprintf("the tool did not make it: exit %d: %s", out.Exit, strings.TrimSpace(string(out.Stderr)))}}})
	}
	for _, a := range [][]string{{"describe", "--agents-md", "--format", "text"}, {"describe", "--mcp", "--format", "json"}} {
		name := strings.Join(a[:2], " ")
		out := run(a...)
		if out.Err != nil {
			return reports, fmt.Errorf("conformance: run %s %s: %w", t.Path, name, out.Err)
		}
		if out.Exit != 0 {
			missing(name, out)
			continue
		}
		if err := check(name, out.Stdout); err != nil {
			return reports, err
		}
	}
	dir, err := os.MkdirTemp("", "duet-check-skills-")
	if err != nil {
		return reports, fmt.Errorf("conformance: %w", err)
	}
	defer os.RemoveAll(dir)
	for _, format := range []string{"markdown", "json"} {
		sub := dir + "/" + format
		name := "generate-skills --skill-format " + format
		out := run("generate-skills", "--output-dir", sub, "--skill-format", format, "--format", "json")
		if out.Err != nil {
			return reports, fmt.Errorf("conformance: run %s %s: %w", t.Path, name, out.Err)
		}
		entries, _ := os.ReadDir(sub)
		if out.Exit != 0 || len(entries) == 0 {
			missing(name, out)
			continue
		}
		for _, e := range entries {
			raw, err := os.ReadFile(sub + "/" + e.Name())
			if err != nil {
				return reports, fmt.Errorf("conformance: %w", err)
			}
			if err := check(format+"/"+e.Name(), raw); err != nil {
				return reports, err
			}
		}
	}
	return reports, nil
}

// namesArg reports whether help's usage shows the argument: <name>, [name],
// or either with "...".
func namesArg(help, name string) bool {
	for _, form := range []string{"<%s>", "[%s]", "<%s...>", "[%s...]"} {
		if strings.Contains(help, fmt.Sprintf(form, name)) {
			return true
		}
	}
	return false
}

// stringsOf writes every string in a JSON value, each quoted on a line.
func stringsOf(v any, b *strings.Builder) {
	switch v := v.(type) {
	case string:
		b.WriteString("\"" + strings.ReplaceAll(v, "\n", " ") + "\"\n")
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			stringsOf(v[k], b)
		}
	case []any:
		for _, e := range v {
			stringsOf(e, b)
		}
	}
}
