package envelope

import (
	"fmt"
	"slices"
	"strings"
)

// Format is a rendering of the result, chosen with --output.
type Format string

// The formats every wrapped app accepts.
const (
	JSON  Format = "json"  // one envelope
	JSONL Format = "jsonl" // one line per item, then the envelope as a summary line
	TSV   Format = "tsv"   // a header row, then one row per record
	Text  Format = "text"  // the human rendering
	ID    Format = "id"    // one id per line
)

// Formats lists every [Format] in the order help shows them.
var Formats = []Format{JSON, JSONL, TSV, Text, ID}

// FormatNames returns the names of [Formats].
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return names
}

// ParseFormat returns the format named s, or an ARG_ERROR listing the valid ones.
func ParseFormat(s string) (Format, error) {
	f := Format(s)
	if slices.Contains(Formats, f) {
		return f, nil
	}
	valid := FormatNames()
	return "", Validationf("INVALID_OUTPUT_FORMAT", "--output %q is not a format; use one of %s", s, strings.Join(valid, ", ")).
		WithField("output", valid...)
}

// Machine reports whether f is meant for a program rather than a person.
func (f Format) Machine() bool { return f != Text && f != "" }

// Mode is who an invocation is talking to and how.
type Mode struct {
	Agent       bool   // a program reads stdout: JSON, no prompts, no colour, help on stderr
	Format      Format // how the result is rendered on stdout
	Color       bool   // stdout may carry ANSI colour
	ErrColor    bool   // stderr may carry ANSI colour
	ErrTerminal bool   // a person watches stderr: progress may redraw one line in place
	Interactive bool   // a person can be asked a question on stdin
	Reason      string // why agent mode is on, for --verbose diagnostics
}

// Signals is what audience detection looks at. Every field is a plain value so
// that detection is a pure function a test can drive.
type Signals struct {
	Tool      string                      // the tool's name, for <TOOL>_OUTPUT
	LookupEnv func(string) (string, bool) // the environment
	StdoutTTY bool
	StderrTTY bool
	StdinTTY  bool
	Output    string // the value of --output, if given
	Detector  func(getenv func(string) string) bool
}

// EnvName returns the environment variable name for a tool-specific setting:
// EnvName("my-tool", "OUTPUT") is "MY_TOOL_OUTPUT".
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

// Detect decides the audience. Agent mode is on when stdout is not a terminal,
// --output names a machine format, <TOOL>_OUTPUT is set, CI is set, or the
// app's detector says so. Colour is off in agent mode and whenever NO_COLOR is
// set (even empty), CI is set or TERM is dumb.
func Detect(s Signals) (Mode, error) {
	lookup := s.LookupEnv
	getenv := func(k string) string { v, _ := lookup(k); return v }
	var m Mode
	choice, source := s.Output, "--output"
	if choice == "" {
		choice, source = getenv(EnvName(s.Tool, "OUTPUT")), EnvName(s.Tool, "OUTPUT")
	}
	if choice != "" {
		f, err := ParseFormat(choice)
		if err != nil {
			return Mode{Agent: !s.StdoutTTY, Format: JSON}, fmt.Errorf("%s: %w", source, err)
		}
		m.Format = f
	}
	switch {
	case !s.StdoutTTY:
		m.Agent, m.Reason = true, "stdout is not a terminal"
	case s.Output != "" && m.Format.Machine():
		m.Agent, m.Reason = true, "--output "+s.Output
	case s.Output == "" && m.Format.Machine():
		m.Agent, m.Reason = true, EnvName(s.Tool, "OUTPUT")+" is set"
	case getenv("CI") != "":
		m.Agent, m.Reason = true, "CI is set"
	case s.Detector != nil && s.Detector(getenv):
		m.Agent, m.Reason = true, "the app's detector"
	}
	if m.Format == "" {
		m.Format = Text
		if m.Agent {
			m.Format = JSON
		}
	}
	_, noColor := lookup("NO_COLOR")
	plain := noColor || getenv("CI") != "" || getenv("TERM") == "dumb"
	m.Color = !m.Agent && !plain && s.StdoutTTY
	m.ErrColor = !m.Agent && !plain && s.StderrTTY
	m.ErrTerminal = !m.Agent && s.StderrTTY && getenv("TERM") != "dumb"
	m.Interactive = !m.Agent && s.StdinTTY
	return m, nil
}
