package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// openCodeCLI is OpenCode 1.18.33: yargs-style options; `opencode run`
// joins its message arguments with spaces and appends stdin when stdin is
// not a terminal; bare `opencode` is the terminal UI.
type openCodeCLI struct{}

var openCodeCommon = []string{"-h,--help", "-v,--version", "--print-logs", "--log-level value DEBUG|INFO|WARN|ERROR", "--pure"}

var (
	openCodeTUIOptions = opts(append(slices.Clone(openCodeCommon),
		"--port value", "--hostname value", "--mdns", "--mdns-domain value", "--cors multi", "-m,--model value",
		"-c,--continue", "-s,--session value", "--fork", "--prompt value", "--agent value", "--auto", "--yolo",
		"--dangerously-skip-permissions", "--mini", "--replay", "--replay-limit value")...)
	openCodeRunOptions = opts(append(slices.Clone(openCodeCommon),
		"--command value", "-c,--continue", "-s,--session value", "--fork", "--share", "-m,--model value",
		"--agent value", "--format value default|json", "-f,--file multi", "--title value", "--attach value",
		"-p,--password value", "-u,--username value", "--dir value", "--port value", "--variant value",
		"--thinking", "-i,--interactive", "--auto", "--yolo", "--dangerously-skip-permissions", "--demo")...)
)

var openCodeCommands = []string{"completion", "acp", "mcp", "attach", "run", "debug", "providers", "auth", "agent",
	"upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github", "pr", "session",
	"plugin", "plug", "db"}

const openCodeRunUsage = `opencode run [message..]

run opencode with a message

Positionals:
  message  message to send                                                     [array] [default: []]

Options:
  -h, --help         show help                                                             [boolean]
  -s, --session      session id to continue                                                 [string]
      --fork         fork the session before continuing (requires --continue or --session) [boolean]
  -m, --model        model to use in the format of provider/model                           [string]
      --format       format: default (formatted) or json (raw JSON events)
                                          [string] [choices: "default", "json"] [default: "default"]
  (fakeharness: the other options of opencode 1.18.33 are accepted too)
`

const openCodeTUIUsage = `Commands:
  opencode [project]           start opencode tui                                          [default]
  opencode run [message..]     run opencode with a message

Positionals:
  project  path to start opencode in                                                        [string]

Options:
  -h, --help          show help                                                            [boolean]
  -m, --model         model to use in the format of provider/model                          [string]
  -s, --session       session id to continue                                                [string]
      --prompt        prompt to use                                                         [string]
  (fakeharness: the other options of opencode 1.18.33 are accepted too)
`

// openCodeSessionID is opencode's id form: ses_ and 26 letters and digits.
func (openCodeCLI) newSessionID() string { return "ses_" + randomID(26) }

func (openCodeCLI) parse(args []string, h host) (*invocation, *failure) {
	isCommand := func(s string) bool { return slices.Contains(openCodeCommands, s) }
	// yargs refuses an unknown option by printing the usage (no message
	// from opencode) and exiting 1.
	top, rest, perr := parseArgs(args, openCodeTUIOptions, isCommand)
	if perr != nil {
		return nil, &failure{stderr: openCodeTUIUsage, code: 1}
	}
	if top.has("version") {
		return &invocation{print: "1.18.33 (fakeharness)\n"}, nil
	}
	if rest == nil {
		if top.has("help") {
			return &invocation{print: openCodeTUIUsage}, nil
		}
		inv := &invocation{interactive: true, prompt: top.last("prompt"), model: top.last("model"),
			resumeID: top.last("session"), fork: top.has("fork")}
		return inv, nil
	}
	if rest[0] != "run" {
		return nil, &failure{stderr: fmt.Sprintf("fakeharness: `opencode %s` is not part of the fake\n", rest[0]), code: 2}
	}
	run, _, perr := parseArgs(rest[1:], openCodeRunOptions, nil)
	if perr != nil {
		return nil, &failure{stderr: openCodeRunUsage, code: 1}
	}
	if run.has("help") {
		return &invocation{print: openCodeRunUsage}, nil
	}
	if run.has("version") {
		return &invocation{print: "1.18.33 (fakeharness)\n"}, nil
	}
	inv := &invocation{
		prompt:   strings.Join(run.positional, " "),
		combine:  joinLines,
		model:    cmpOr(run.last("model"), "anthropic/claude-sonnet-4-6"),
		resumeID: run.last("session"),
		fork:     run.has("fork"),
		format:   "text",
	}
	if run.last("format") == "json" {
		inv.format = "events"
	}
	if inv.fork && inv.resumeID == "" && !run.has("continue") {
		return nil, &failure{stderr: "\x1b[91m\x1b[1mError: \x1b[0m--fork requires --continue or --session\n", code: 1}
	}
	inv.check = func(prompt string) *failure {
		if strings.TrimSpace(prompt) == "" {
			return &failure{stderr: "\x1b[91m\x1b[1mError: \x1b[0mYou must provide a message or a command\n", code: 1}
		}
		return nil
	}
	return inv, nil
}

func (openCodeCLI) stream(inv *invocation, session string, w *lineWriter) stream {
	if inv.format == "text" {
		return textStream{w: w}
	}
	return &openCodeStream{w: w, session: session}
}

// openCodeStream prints `opencode run --format json` events: one per
// finished message part, each with the sessionID; a step (one model call)
// ends with step_finish carrying its tokens and cost.
type openCodeStream struct {
	w         *lineWriter
	session   string
	messageID string
}

func (s *openCodeStream) now() int64 { return time.Now().UnixMilli() }

func (s *openCodeStream) part(typ string, fields ...any) {
	p := obj{"id", "prt_" + randomID(26), "messageID", s.messageID, "sessionID", s.session, "type", strings.ReplaceAll(typ, "_", "-")}
	s.w.event(obj{"type", typ, "timestamp", s.now(), "sessionID", s.session, "part", append(p, fields...)})
}

// begin opens a step: opencode's first event of a run.
func (s *openCodeStream) begin() {
	s.messageID = "msg_" + randomID(26)
	s.part("step_start")
}

func (s *openCodeStream) bulk(n int, payload string) {
	now := s.now()
	s.w.event(obj{"type", "tool_use", "timestamp", now, "sessionID", s.session, "part", obj{
		"type", "tool", "tool", "read", "callID", fmt.Sprintf("toolu_fake%04d", n), "state", obj{
			"status", "completed", "input", obj{"filePath", fmt.Sprintf("part%d.log", n)}, "output", payload,
			"title", fmt.Sprintf("part%d.log", n), "metadata", obj{}, "time", obj{"start", now, "end", now},
		}, "id", "prt_" + randomID(26), "sessionID", s.session, "messageID", s.messageID,
	}})
}

func (s *openCodeStream) text(t string) {
	now := s.now()
	s.part("text", "text", t, "time", obj{"start", now, "end", now})
}

// progress ends the current step as a tool-calls step with text, then
// opens the next, as a run that used a tool looks.
func (s *openCodeStream) progress(t string) {
	s.text(t)
	s.part("step_finish", "reason", "tool-calls", "tokens", obj{"total", 4, "input", 3, "output", 1, "reasoning", 0,
		"cache", obj{"write", 0, "read", 0}}, "cost", 0)
	s.begin()
}

func (s *openCodeStream) finish(u usage) obj {
	return obj{"type", "step_finish", "timestamp", s.now(), "sessionID", s.session, "part", obj{
		"id", "prt_" + randomID(26), "reason", "stop", "messageID", s.messageID, "sessionID", s.session, "type", "step-finish",
		"tokens", obj{"total", u.input + u.output, "input", u.input, "output", u.output, "reasoning", 0,
			"cache", obj{"write", 0, "read", u.cached}},
		"cost", u.costUSD,
	}}
}

func (s *openCodeStream) succeed(report string, u usage) {
	s.text(report)
	s.w.event(s.finish(u))
}

func (s *openCodeStream) fail(msg string, _ usage) int {
	s.w.event(obj{"type", "error", "timestamp", s.now(), "sessionID", s.session, "error", obj{
		"name", "APIError", "data", obj{"message", msg, "statusCode", 400, "isRetryable", false},
	}})
	return 1
}

func (s *openCodeStream) tornEnd(_ string, u usage) {
	b := s.finish(u).marshal()
	s.w.raw(string(b[:len(b)/2]))
}
