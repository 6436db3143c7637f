package envelope_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duet-cli/duet/envelope"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDetect(t *testing.T) {
	type ttys struct{ in, out, err bool }
	all := ttys{true, true, true}
	pipe := ttys{false, false, false}
	person := envelope.Mode{Terminal: true, Format: envelope.Text, Color: true, ErrColor: true, ErrTerminal: true, Interactive: true}
	script := envelope.Mode{Format: envelope.Text}
	agent := envelope.Mode{Agent: true, Format: envelope.JSON}
	named := envelope.Mode{Agent: true, Named: true, Format: envelope.JSON} // the app's detector or an agent's marker said so
	atTerminal := func(m envelope.Mode) envelope.Mode { m.Terminal = true; return m }
	tests := []struct {
		name     string
		tty      ttys
		strict   bool
		format   string
		env      map[string]string
		legacy   bool // Signals.LegacyEnv (WithLegacyOutput)
		detector func(func(string) string) bool
		want     envelope.Mode
	}{
		{name: "a person at a terminal", tty: all, want: person},
		{name: "a script: stdout is a pipe", tty: pipe, want: script},
		{name: "a script with stdin and stderr at a terminal", tty: ttys{true, false, true}, want: envelope.Mode{Format: envelope.Text, ErrColor: true, ErrTerminal: true, Interactive: true}},
		{name: "CI is a script too", tty: pipe, env: map[string]string{"CI": "true"}, want: script},
		{name: "CI at a terminal: a person, without colour", tty: all, env: map[string]string{"CI": "true"}, want: envelope.Mode{Terminal: true, Format: envelope.Text, ErrTerminal: true, Interactive: true}},
		{name: "GITHUB_ACTIONS takes the colour away", tty: all, env: map[string]string{"GITHUB_ACTIONS": "true"}, want: envelope.Mode{Terminal: true, Format: envelope.Text, ErrTerminal: true, Interactive: true}},
		{name: "terminal without a terminal stdin", tty: ttys{false, true, true}, want: envelope.Mode{Terminal: true, Format: envelope.Text, Color: true, ErrColor: true, ErrTerminal: true}},

		{name: "strict: stdout is a pipe", tty: pipe, strict: true, want: agent},
		{name: "strict: stdout piped but stdin and stderr are terminals", tty: ttys{true, false, true}, strict: true, want: agent},
		{name: "strict: CI at a terminal", tty: all, strict: true, env: map[string]string{"CI": "true"}, want: atTerminal(agent)},
		{name: "strict: a person at a terminal", tty: all, strict: true, want: person},
		{name: "strict: NO_COLOR at a terminal is a person without colour", tty: all, strict: true, env: map[string]string{"NO_COLOR": "1"}, want: envelope.Mode{Terminal: true, Format: envelope.Text, ErrTerminal: true, Interactive: true}},
		{name: "strict: --format text into a pipe", tty: pipe, strict: true, format: "text", want: envelope.Mode{Agent: true, Format: envelope.Text}},

		{name: "--format json at a terminal", tty: all, format: "json", want: atTerminal(agent)},
		{name: "--format json into a pipe", tty: pipe, format: "json", want: agent},
		{name: "--format text at a terminal", tty: all, format: "text", want: person},
		{name: "--format text into a pipe", tty: pipe, format: "text", want: script},
		{name: "--format tsv into a pipe", tty: pipe, format: "tsv", want: envelope.Mode{Agent: true, Format: envelope.TSV}},
		{name: "<TOOL>_FORMAT at a terminal", tty: all, env: map[string]string{"MY_TOOL_FORMAT": "jsonl"}, want: atTerminal(envelope.Mode{Agent: true, Format: envelope.JSONL})},
		{name: "--format wins over <TOOL>_FORMAT", tty: all, format: "text", env: map[string]string{"MY_TOOL_FORMAT": "json"}, want: person},
		{name: "<TOOL>_OUTPUT is no longer read", tty: pipe, env: map[string]string{"MY_TOOL_OUTPUT": "json"}, want: script},
		{name: "<TOOL>_OUTPUT read with LegacyEnv", tty: pipe, legacy: true, env: map[string]string{"MY_TOOL_OUTPUT": "json"}, want: agent},
		{name: "<TOOL>_FORMAT wins over a legacy <TOOL>_OUTPUT", tty: all, legacy: true, env: map[string]string{"MY_TOOL_FORMAT": "text", "MY_TOOL_OUTPUT": "json"}, want: person},

		{name: "Claude Code runs it", tty: pipe, env: map[string]string{"CLAUDECODE": "1"}, want: named},
		{name: "Claude Code runs it at a terminal", tty: all, env: map[string]string{"CLAUDECODE": "1"}, want: atTerminal(named)},
		{name: "Codex runs it", tty: pipe, env: map[string]string{"CODEX_CI": "1", "CODEX_THREAD_ID": "0199a213-81c0-7800-8aa1-bbab2a035a53"}, want: named},
		{name: "Codex, by its thread alone", tty: pipe, env: map[string]string{"CODEX_THREAD_ID": "0199a213-81c0-7800-8aa1-bbab2a035a53"}, want: named},
		{name: "Gemini CLI runs it", tty: all, env: map[string]string{"GEMINI_CLI": "1"}, want: atTerminal(named)},
		{name: "OpenCode runs it", tty: pipe, env: map[string]string{"OPENCODE": "1", "AGENT": "1"}, want: named},
		{name: "a terminal a person opened inside OpenCode", tty: all, env: map[string]string{"OPENCODE": "1", "AGENT": "1", "OPENCODE_TERMINAL": "1"}, want: person},
		{name: "an agent that names itself", tty: pipe, env: map[string]string{"AI_AGENT": "claude-code_2-1-197_agent"}, want: named},
		{name: "AGENT alone is too common a name", tty: pipe, env: map[string]string{"AGENT": "1"}, want: script},
		{name: "a marker turned off", tty: pipe, env: map[string]string{"CLAUDECODE": "0", "GEMINI_CLI": "false"}, want: script},
		{name: "--format text for an agent", tty: pipe, format: "text", env: map[string]string{"CLAUDECODE": "1"}, want: envelope.Mode{Agent: true, Named: true, Format: envelope.Text}},

		{
			name:     "the app's detector",
			tty:      all,
			env:      map[string]string{"MERIDIAN_SPACE_ID": "s1"},
			detector: func(getenv func(string) string) bool { return getenv("MERIDIAN_SPACE_ID") != "" },
			want:     atTerminal(named),
		},
		{
			name:     "the app's detector says no",
			tty:      all,
			detector: func(getenv func(string) string) bool { return getenv("MERIDIAN_SPACE_ID") != "" },
			want:     person,
		},
		{name: "NO_COLOR set but empty", tty: all, env: map[string]string{"NO_COLOR": ""}, want: envelope.Mode{Terminal: true, Format: envelope.Text, ErrTerminal: true, Interactive: true}},
		{name: "NO_COLOR=1", tty: all, env: map[string]string{"NO_COLOR": "1"}, want: envelope.Mode{Terminal: true, Format: envelope.Text, ErrTerminal: true, Interactive: true}},
		{name: "TERM=dumb", tty: all, env: map[string]string{"TERM": "dumb"}, want: envelope.Mode{Terminal: true, Format: envelope.Text, Interactive: true}},
		{name: "stderr piped keeps stdout colour only", tty: ttys{true, true, false}, want: envelope.Mode{Terminal: true, Format: envelope.Text, Color: true, Interactive: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := envOf(tt.env)
			got, err := envelope.Detect(envelope.Signals{
				Tool: "my-tool", LookupEnv: lookup,
				StdinTTY: tt.tty.in, StdoutTTY: tt.tty.out, StderrTTY: tt.tty.err,
				Format: tt.format, LegacyEnv: tt.legacy, Detector: tt.detector, Strict: tt.strict,
			})
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(envelope.Mode{}, "Reason")); diff != "" {
				t.Errorf("Detect mismatch (-want +got):\n%s", diff)
			}
			if got.Agent && got.Reason == "" {
				t.Errorf("agent mode without a Reason")
			}
		})
	}
}

// TestDetectInvalidFormat: a format that is not one is refused with
// INVALID_FORMAT (field "format"), naming where it came from, and the
// audience is still decided without it.
func TestDetectInvalidFormat(t *testing.T) {
	tests := []struct {
		name   string
		format string
		env    map[string]string
		legacy bool
		tty    bool
		strict bool
		source string
		want   envelope.Mode
	}{
		{"flag into a pipe", "xml", nil, false, false, false, "--format", envelope.Mode{Agent: false, Format: envelope.Text}},
		{"flag into a pipe, strict", "xml", nil, false, false, true, "--format", envelope.Mode{Agent: true, Format: envelope.JSON}},
		{"flag at a terminal", "yaml", nil, false, true, false, "--format", envelope.Mode{Agent: false}},
		{"flag for an agent", "yaml", map[string]string{"CLAUDECODE": "1"}, false, true, false, "--format", envelope.Mode{Agent: true, Format: envelope.JSON}},
		{"environment", "", map[string]string{"MY_TOOL_FORMAT": "html"}, false, false, true, "MY_TOOL_FORMAT", envelope.Mode{Agent: true, Format: envelope.JSON}},
		{"legacy environment", "", map[string]string{"MY_TOOL_OUTPUT": "html"}, true, false, true, "MY_TOOL_OUTPUT", envelope.Mode{Agent: true, Format: envelope.JSON}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := envOf(tt.env)
			got, err := envelope.Detect(envelope.Signals{Tool: "my-tool", LookupEnv: lookup, LegacyEnv: tt.legacy, StdoutTTY: tt.tty, StderrTTY: tt.tty, StdinTTY: tt.tty, Format: tt.format, Strict: tt.strict})
			if err == nil {
				t.Fatal("Detect accepted an unknown format")
			}
			var e *envelope.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *envelope.Error", err)
			}
			if e.Code != "INVALID_FORMAT" || e.Exit != 2 || e.Phase != envelope.Validation || e.Field != "format" {
				t.Errorf("error = %s exit %d phase %q field %q, want INVALID_FORMAT exit 2 phase validation field format", e.Code, e.Exit, e.Phase, e.Field)
			}
			if diff := cmp.Diff([]string{"json", "jsonl", "tsv", "text", "id", "plain"}, e.ValidValues); diff != "" {
				t.Errorf("valid values (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(err.Error(), tt.source+": ") {
				t.Errorf("error %q does not name its source %q", err, tt.source)
			}
			if got.Agent != tt.want.Agent {
				t.Errorf("fallback Agent = %v, want %v", got.Agent, tt.want.Agent)
			}
			if tt.want.Format != "" && got.Format != tt.want.Format {
				t.Errorf("fallback Format = %q, want %q", got.Format, tt.want.Format)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []string{"json", "jsonl", "tsv", "text", "id"} {
		got, err := envelope.ParseFormat(f)
		if err != nil || string(got) != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	// TOON is a feature's: taken when the feature says so.
	if _, err := envelope.ParseFormat("toon"); err == nil {
		t.Errorf("ParseFormat(toon) succeeded without the feature")
	}
	if got, err := envelope.ParseFormat("toon", envelope.TOON); err != nil || got != envelope.TOON {
		t.Errorf("ParseFormat(toon, TOON) = %q, %v", got, err)
	}
	if diff := cmp.Diff([]string{"json", "jsonl", "toon", "tsv", "text", "id", "plain"}, envelope.FormatNames(envelope.TOON)); diff != "" {
		t.Errorf("FormatNames(TOON) (-want +got):\n%s", diff)
	}
	for _, f := range []string{"", "JSON", "csv"} {
		if _, err := envelope.ParseFormat(f); err == nil {
			t.Errorf("ParseFormat(%q) succeeded", f)
		}
	}
	// The CLI Agent Spec's name for text (O-001).
	if got, err := envelope.ParseFormat("plain"); err != nil || got != envelope.Text {
		t.Errorf("ParseFormat(plain) = %q, %v; want text", got, err)
	}
}

func TestEnvName(t *testing.T) {
	tests := map[string]string{"my-tool": "MY_TOOL_FORMAT", "todo": "TODO_FORMAT", "a.b2": "A_B2_FORMAT"}
	for tool, want := range tests {
		if got := envelope.EnvName(tool, "FORMAT"); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", tool, got, want)
		}
	}
}
