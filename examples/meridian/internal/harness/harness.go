// Package harness knows the coding-agent CLIs Meridian launches ("harnesses":
// Claude Code, Codex, OpenCode, Gemini CLI): how to start each one for a
// Request (its argv, what goes on its stdin, extra environment), which
// Request fields it has no flag for, how to read its JSON event stream
// (session id, final report, cost, tokens, failure), and where it keeps the
// id of a session run on a terminal (FindSession).
//
// The package never starts a process; the caller does, with the Command that
// Build returns. Every command line built here was run against the real CLIs
// (claude 2.1.197, codex 0.169.0, opencode 1.18.33, gemini 0.61.0, installed
// from npm); README.md next to this file records what was run and what each
// CLI did, and realcli_test.go re-checks the argv against installed CLIs.
package harness

import (
	"reflect"
)

// Harness names, as Meridian's configuration and run records spell them.
const (
	Claude   = "claude"
	Codex    = "codex"
	OpenCode = "opencode"
	Gemini   = "gemini"
)

// Request is one launch of a harness.
type Request struct {
	Model              string   // model id as Meridian's catalog names it (e.g. "claude-opus-4-6", "gpt-5.3-codex", "opencode-anthropic/claude-sonnet-4-5" or "anthropic/claude-sonnet-4-5", "gemini-2.5-pro")
	Prompt             string   // the composed prompt; sent on stdin wherever the CLI reads its prompt from stdin
	AppendSystemPrompt string   // extra system prompt text
	SystemPrompt       string   // the system prompt itself, in place of the harness's own
	Sandbox            string   // "", "read-only", "workspace-write", "full-access"
	ResumeID           string   // harness session id to continue; "" starts a new conversation
	SessionID          string   // a new conversation's id, chosen by Meridian, for a CLI that takes one (see NewSessionID); ignored with ResumeID
	Fork               bool     // with ResumeID: continue in a fork of the conversation
	ReportPath         string   // absolute file where the harness should write its final message, if it can (codex -o)
	Interactive        bool     // launched on a person's terminal (no print/exec/json mode; prompt, if any, as the CLI's interactive initial prompt)
	Extra              []string // passed through verbatim
}

// Command is how to start the harness.
type Command struct {
	Args  []string // Args[0] is the executable as given to Build
	Stdin string   // written to the child's stdin, which is then closed; "" = stdin gets EOF at once (ignored when Interactive)
	Env   []string // KEY=value added to the inherited environment
}

// Unsupported names a requested field the harness has no flag for: it is
// ignored, and the caller warns
// `WARNING [UNSUPPORTED_FLAG]: <Message()>. Next: remove this flag or switch to a harness that supports it. Flag ignored.`
type Unsupported struct{ Flag, Harness string } // Flag like "--append-system-prompt", Harness the display name

// Message is the warning's cause: "--append-system-prompt is not supported by Codex".
func (u Unsupported) Message() string {
	return u.Flag + " is not supported by " + u.Harness
}

// Harness is one coding-agent CLI.
type Harness struct {
	name    string
	display string
	install string
	// policy says, for every Field, what the CLI does with it; Build clears
	// the fields it does not support before argv() sees the request, so argv
	// cannot emit a flag the table says the CLI lacks.
	policy    map[Field]Policy
	argv      func(exe string, req Request) Command
	newParser func() Parser
	// findSession reads the CLI's own files for FindSession.
	findSession func(s sessionSearch) (string, error)
}

// harnesses is built on every call: a table, not state a test could change.
func harnesses() []*Harness {
	return []*Harness{claudeHarness(), codexHarness(), openCodeHarness(), geminiHarness()}
}

// Lookup returns the harness named name (Claude, Codex, OpenCode, Gemini).
func Lookup(name string) (*Harness, bool) {
	for _, h := range harnesses() {
		if h.name == name {
			return h, true
		}
	}
	return nil, false
}

// All returns every harness, in the order claude, codex, opencode, gemini.
func All() []*Harness { return harnesses() }

// Name is the harness's name: "codex".
func (h *Harness) Name() string { return h.name }

// Display is the name people know it by: "Codex".
func (h *Harness) Display() string { return h.display }

// Install is the exact command that installs the CLI: "npm install -g @openai/codex".
func (h *Harness) Install() string { return h.install }

// Supports reports whether the CLI does something with field f.
func (h *Harness) Supports(f Field) bool { return h.policy[f].Supported }

// Policy says what the CLI does with field f.
func (h *Harness) Policy(f Field) Policy { return h.policy[f] }

// Build returns how to start the CLI at exe for req, and the fields req sets
// that the CLI has no flag for (those are left out of the command). Build
// trusts req: check it with Request.Validate first; a Sandbox value Validate
// rejects adds no flag.
func (h *Harness) Build(exe string, req Request) (Command, []Unsupported) {
	var warn []Unsupported
	v := reflect.ValueOf(&req).Elem()
	for _, f := range Fields() {
		p := h.policy[f]
		field := v.FieldByName(string(f))
		if p.Supported || field.IsZero() {
			continue
		}
		if p.Warn {
			warn = append(warn, Unsupported{Flag: f.Flag(), Harness: h.display})
		}
		field.SetZero()
	}
	cmd := h.argv(exe, req)
	if req.Interactive {
		cmd.Stdin = ""
	}
	return cmd, warn
}

// NewParser returns a parser for one run's stdout.
func (h *Harness) NewParser() Parser { return h.newParser() }
