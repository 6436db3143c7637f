package conformance

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// The sections the CLI Agent Spec requires of an AGENTS.md: O-043's four,
// O-044's Installation and O-046's CI Validation.
var agentsSections = []string{
	"Canonical Invocation", "Non-Interactive Flags", "Environment Variables", "Input Conventions",
	"Installation", "CI Validation",
}

var (
	cliVersionLine = regexp.MustCompile(`^<!--\s*cli-version:\s*(\S+)\s*-->\s*$`)
	mdFlag         = regexp.MustCompile(`(?:^|[^\w-])(--[a-z][a-z0-9-]*)`)
	mdEnvItem      = regexp.MustCompile("^\\s*[-*]\\s+`([A-Z][A-Z0-9_]*)`")
	mdCode         = regexp.MustCompile("`([^`\n]+)`")
	commandWord    = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// Mismatch is one thing an AGENTS.md says that the binary does not bear out.
type Mismatch struct {
	Kind   string `json:"kind"` // version, section, flag, command or env
	Name   string `json:"name"` // what AGENTS.md names
	Detail string `json:"detail"`
}

// AgentsMDReport is what [CheckAgentsMD] found: the version line 1
// declares, the one the binary prints, and every mismatch.
type AgentsMDReport struct {
	DocVersion    string     `json:"doc_version"`
	BinaryVersion string     `json:"binary_version"`
	Mismatches    []Mismatch `json:"mismatches"`
}

// OK reports whether the AGENTS.md matches the binary.
func (r AgentsMDReport) OK() bool { return len(r.Mismatches) == 0 }

// WriteDiff writes the report diff-style, one line per mismatch: "-" what
// AGENTS.md says, and why the binary disagrees.
func (r AgentsMDReport) WriteDiff(w io.Writer) error {
	if r.OK() {
		_, err := fmt.Fprintf(w, "PASS: AGENTS.md matches the binary %s\n", r.BinaryVersion)
		return err
	}
	for _, m := range r.Mismatches {
		if _, err := fmt.Fprintf(w, "- %s %s: %s\n", m.Kind, m.Name, m.Detail); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "FAIL: %d mismatches between AGENTS.md and the binary\n", len(r.Mismatches))
	return err
}

// CheckAgentsMD holds an AGENTS.md to the binary it documents, as the CLI
// Agent Spec's O-043 and O-046 ask a CI step to: its line 1 is
// `<!-- cli-version: X -->` with X the version `<binary> --version` prints
// (its last word: `tool 1.2.3` and `1.2.3` both declare 1.2.3); it has the
// required sections; and every flag it names, every command it shows
// (`tool word ...` in code), and every variable its Environment Variables
// section lists appears in the binary's --help — the root's, or that of a
// command it shows. A target that cannot be run is an error; everything
// else is a mismatch.
func CheckAgentsMD(ctx context.Context, t Target, agentsMD []byte) (AgentsMDReport, error) {
	r := AgentsMDReport{Mismatches: []Mismatch{}}
	miss := func(kind, name, detail string) { r.Mismatches = append(r.Mismatches, Mismatch{kind, name, detail}) }
	run := func(args ...string) (runOutcome, error) {
		inv := invocationSpec{Path: t.Path, Args: append(slices.Clone(t.Args), args...)}
		if len(t.Env) > 0 {
			inv.Env = append(os.Environ(), t.Env...)
		}
		out := runInvocation(ctx, inv)
		return out, out.Err
	}
	text := string(agentsMD)
	lines := strings.Split(text, "\n")

	out, err := run("--version")
	if err != nil {
		return r, fmt.Errorf("conformance: run %s --version: %w", t.Path, err)
	}
	if f := strings.Fields(strings.TrimSpace(string(out.Stdout))); len(f) > 0 {
		r.BinaryVersion = strings.TrimPrefix(f[len(f)-1], "v")
	}
	if m := cliVersionLine.FindStringSubmatch(lines[0]); m == nil {
		miss("version", "line 1", "line 1 is not <!-- cli-version: X.Y.Z -->")
	} else {
		r.DocVersion = strings.TrimPrefix(m[1], "v")
		if out.Exit != 0 || r.DocVersion != r.BinaryVersion {
			miss("version", r.DocVersion, fmt.Sprintf("AGENTS.md cli-version (%s) != binary version (%s)", r.DocVersion, r.BinaryVersion))
		}
	}

	sections := map[string]bool{}
	for _, l := range lines {
		if title, ok := strings.CutPrefix(l, "## "); ok {
			sections[strings.TrimSpace(title)] = true
		}
	}
	for _, s := range agentsSections {
		if !sections[s] {
			miss("section", s, "no `## "+s+"` section")
		}
	}

	// The help of the root and of every command AGENTS.md shows.
	tool := toolName(t)
	help := newHelpIndex(ctx, t)
	help.of(nil)
	var paths [][]string
	for _, m := range mdCode.FindAllStringSubmatch(text, -1) {
		path := commandPath(m[1], tool)
		if len(path) > 0 && !slices.ContainsFunc(paths, func(p []string) bool { return slices.Equal(p, path) }) {
			paths = append(paths, path)
		}
	}
	for _, path := range paths {
		found := help.resolve(path)
		if len(found) == 0 {
			miss("command", tool+" "+path[0], fmt.Sprintf("%q is not a command in `%s --help`", path[0], tool))
			continue
		}
		help.of(found)
	}
	corpus := help.corpus()

	seen := map[string]bool{}
	for _, m := range mdFlag.FindAllStringSubmatch(text, -1) {
		flag := m[1]
		if seen[flag] {
			continue
		}
		seen[flag] = true
		if !containsWord(corpus, flag) {
			miss("flag", flag, "not in --help of the root or of any command AGENTS.md shows")
		}
	}
	inEnv := false
	for _, l := range lines {
		if strings.HasPrefix(l, "## ") {
			inEnv = strings.TrimSpace(strings.TrimPrefix(l, "## ")) == "Environment Variables"
			continue
		}
		if !inEnv {
			continue
		}
		if m := mdEnvItem.FindStringSubmatch(l); m != nil && !containsWord(corpus, m[1]) {
			miss("env", m[1], "not in --help of the root or of any command AGENTS.md shows")
		}
	}
	return r, nil
}

// toolName is the name a target is called by: its program's base name.
func toolName(t Target) string {
	name := t.Path
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// helpLists reports whether help lists the command word: a line that
// starts with it, after indentation, as help's list of commands does.
func helpLists(help, word string) bool {
	for _, l := range strings.Split(help, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, word) && (len(t) == len(word) || strings.ContainsRune(" ,\t", rune(t[len(word)]))) {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds w not as part of a longer name.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(w)
		before := at == 0 || !isNameByte(s[at-1])
		after := end == len(s) || !isNameByte(s[end])
		if before && after {
			return true
		}
		i = at + 1
	}
}

func isNameByte(b byte) bool {
	return b == '-' || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
