package envelope

import (
	"fmt"
	"slices"
	"strings"
)

// Format is a rendering of the result, chosen with --format.
type Format string

// The formats of an answer: every wrapped app takes all but TOON, whose
// encoder is a feature's (feature/toon; see Settings.Encoders).
const (
	JSON  Format = "json"  // one envelope
	JSONL Format = "jsonl" // one line per item, then the envelope as a summary line
	TOON  Format = "toon"  // the envelope in Token-Oriented Object Notation: lists of records as tables
	TSV   Format = "tsv"   // a header row, then one row per record
	Text  Format = "text"  // the human rendering
	ID    Format = "id"    // one id per line
)

// formats returns the formats --format takes, the core's and extra, in the
// order help lists them.
func formats(extra []Format) []Format {
	var out []Format
	for _, f := range [...]Format{JSON, JSONL, TOON, TSV, Text, ID} {
		if f != TOON || slices.Contains(extra, f) {
			out = append(out, f)
		}
	}
	for _, f := range extra {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// FormatNames returns the names of the formats --format takes — the
// core's, and extra, those of features (TOON) — and the CLI Agent Spec's
// name for Text, "plain", which --format accepts as well.
func FormatNames(extra ...Format) []string {
	fs := formats(extra)
	names := make([]string, len(fs), len(fs)+1)
	for i, f := range fs {
		names[i] = string(f)
	}
	return append(names, plainName)
}

// plainName is the CLI Agent Spec's name for the [Text] format.
const plainName = "plain"

// ParseFormat returns the format named s among the core's and extra, or
// an ARG_ERROR listing the valid ones.
func ParseFormat(s string, extra ...Format) (Format, error) {
	f := Format(s)
	if slices.Contains(formats(extra), f) {
		return f, nil
	}
	if s == plainName {
		return Text, nil
	}
	valid := FormatNames(extra...)
	return "", Validationf("INVALID_FORMAT", "--format %q is not a format; use one of %s", s, strings.Join(valid, ", ")).
		WithField("format", valid...)
}

// Machine reports whether f is meant for a program rather than a person.
func (f Format) Machine() bool { return f != Text && f != "" }

// Mode is who an invocation is talking to and how. There are three
// audiences: an agent (Agent set), a person at a terminal (Terminal set),
// and a script — a pipe with no agent behind it.
type Mode struct {
	Agent       bool   // a program reads stdout: JSON, no prompts, no colour, help on stderr
	Terminal    bool   // stdout is a terminal
	Format      Format // how the result is rendered on stdout
	Color       bool   // stdout may carry ANSI colour
	ErrColor    bool   // stderr may carry ANSI colour
	ErrTerminal bool   // a person watches stderr: progress may redraw one line in place
	Interactive bool   // a person can be asked a question on stdin
	Reason      string // why agent mode is on, for --verbose diagnostics
	// Named says the agent is known, not inferred: the app's detector or
	// a coding agent's own marker named it, where a pipe, CI or a machine
	// format may as well be a person's script.
	Named bool
}

// Signals is what audience detection looks at. Every field is a plain value so
// that detection is a pure function a test can drive.
type Signals struct {
	Tool      string                      // the tool's name, for <TOOL>_FORMAT
	LookupEnv func(string) (string, bool) // the environment
	StdoutTTY bool
	StderrTTY bool
	StdinTTY  bool
	Format    string // the value of --format, if given
	// Formats are the formats beyond the core's that --format takes: a
	// feature's (TOON).
	Formats []Format
	// LegacyEnv reads <TOOL>_OUTPUT when <TOOL>_FORMAT is unset, as Duet
	// did before the CLI Agent Spec v1.8 renamed it (WithLegacyOutput).
	LegacyEnv bool
	Detector  func(getenv func(string) string) bool
	// Strict takes a stdout that is not a terminal, or CI set, for an
	// agent, as the CLI Agent Spec's F-003 does (a tool built for agents
	// first); otherwise they make a script.
	Strict bool
}

// EnvName returns the environment variable name for a tool-specific setting:
// EnvName("my-tool", "FORMAT") is "MY_TOOL_FORMAT".
func EnvName(tool, setting string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(tool) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + "_" + setting
}

// Detect decides the audience. An agent is reading when --format names a
// machine format, <TOOL>_FORMAT does, the app's detector says so, or a
// coding agent's CLI runs the tool (it sets a variable of its own, such as
// CLAUDECODE); and, with s.Strict, when stdout is not a terminal or a CI
// runner is named (CI, GITHUB_ACTIONS, JENKINS_URL), as the CLI Agent
// Spec's F-003 criteria want. Otherwise a person is at the terminal, or a
// script reads the pipe. NO_COLOR says how to write, never who reads: it
// turns colour off and nothing else (F-003's prose names it; its criteria
// do not, and a person who sets it still reads at the terminal). Colour is
// off for an agent, and wherever [ColorOff] says.
func Detect(s Signals) (Mode, error) {
	lookup := s.LookupEnv
	getenv := func(k string) string { v, _ := lookup(k); return v }
	m := Mode{Terminal: s.StdoutTTY}
	choice, source := s.Format, "--format"
	if choice == "" {
		choice, source = getenv(EnvName(s.Tool, "FORMAT")), EnvName(s.Tool, "FORMAT")
	}
	if choice == "" && s.LegacyEnv {
		choice, source = getenv(EnvName(s.Tool, "OUTPUT")), EnvName(s.Tool, "OUTPUT")
	}
	var bad error
	if choice != "" {
		f, err := ParseFormat(choice, s.Formats...)
		if err != nil {
			bad = fmt.Errorf("%s: %w", source, err) // answered in the audience found without it
		}
		m.Format = f
	}
	switch {
	case m.Format.Machine():
		m.Agent, m.Reason = true, source+" "+choice
		m.Named = s.Detector != nil && s.Detector(getenv) || agentMarker(getenv) != ""
	case s.Detector != nil && s.Detector(getenv):
		m.Agent, m.Named, m.Reason = true, true, "the app's detector"
	case agentMarker(getenv) != "":
		m.Agent, m.Named, m.Reason = true, true, agentMarker(getenv)+" is set"
	case s.Strict && !s.StdoutTTY:
		m.Agent, m.Reason = true, "stdout is not a terminal"
	case s.Strict && ciName(getenv) != "":
		m.Agent, m.Reason = true, ciName(getenv)+" is set"
	}
	if m.Format == "" {
		m.Format = Text
		if m.Agent {
			m.Format = JSON
		}
	}
	plain := ColorOff(lookup)
	m.Color = !m.Agent && !plain && s.StdoutTTY
	m.ErrColor = !m.Agent && !plain && s.StderrTTY
	m.ErrTerminal = !m.Agent && s.StderrTTY && getenv("TERM") != "dumb"
	m.Interactive = !m.Agent && s.StdinTTY
	return m, bad
}

// agentMarkers are the environment variables that coding agents' CLIs set
// for the shell commands they run, most specific first. Each was seen in
// the environment of a real tool call (README.md, "Who is reading", has the
// evidence): Claude Code 2.1 sets CLAUDECODE=1 and AI_AGENT; Codex 0.169
// CODEX_CI=1 and CODEX_THREAD_ID in every sandbox mode; Gemini CLI 0.61
// GEMINI_CLI=1; OpenCode 1.18 OPENCODE=1 (and AGENT=1, too generic a name to
// trust alone).
var agentMarkers = [...]string{"CLAUDECODE", "CODEX_CI", "CODEX_THREAD_ID", "GEMINI_CLI", "OPENCODE", "AI_AGENT"}

// agentMarker returns the first of the variables that a coding agent's CLI
// sets for the commands it runs — Claude Code, Codex, Gemini CLI, OpenCode —
// that getenv finds set, or "". A value of 0 or false counts as unset, so a
// person can opt out (CLAUDECODE=0). OpenCode marks the terminals a person
// opens inside it with OPENCODE_TERMINAL: its marker does not count there.
func agentMarker(getenv func(string) string) string {
	for _, name := range agentMarkers {
		v := getenv(name)
		if v == "" || v == "0" || strings.EqualFold(v, "false") {
			continue
		}
		if name == "OPENCODE" && getenv("OPENCODE_TERMINAL") != "" {
			continue
		}
		return name
	}
	return ""
}
