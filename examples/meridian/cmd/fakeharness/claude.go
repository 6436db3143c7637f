package main

import (
	"fmt"
	"slices"
	"strings"
)

// claudeCLI is Claude Code 2.1.197: commander-style options, print mode
// (-p) reading the prompt from its argument and/or stdin.
type claudeCLI struct{}

var claudeOptions = opts(
	"--add-dir multi", "--agent value", "--agents value", "--allow-dangerously-skip-permissions",
	"--allowedTools,--allowed-tools multi", "--append-system-prompt value", "--append-system-prompt-file value",
	"--ax-screen-reader", "--bg,--background", "--bare", "--betas multi", "--brief", "--chrome",
	"-c,--continue", "--dangerously-skip-permissions", "-d,--debug optional", "--debug-file value",
	"--disable-slash-commands", "--disallowedTools,--disallowed-tools multi",
	"--effort value low|medium|high|xhigh|max", "--exclude-dynamic-system-prompt-sections",
	"--fallback-model value", "--file multi", "--fork-session", "--from-pr optional", "-h,--help", "--ide",
	"--include-hook-events", "--include-partial-messages", "--input-format value text|stream-json",
	"--json-schema value", "--max-budget-usd value", "--mcp-config multi", "--model value", "-n,--name value",
	"--no-chrome", "--no-session-persistence", "--output-format value text|json|stream-json",
	"--permission-mode value acceptEdits|auto|bypassPermissions|default|dontAsk|plan",
	"--plugin-dir value", "--plugin-url value", "-p,--print", "--prompt-suggestions optional",
	"--remote-control optional", "--remote-control-session-name-prefix value", "--replay-user-messages",
	"-r,--resume optional", "--safe-mode", "--session-id value", "--setting-sources value", "--settings value",
	"--strict-mcp-config", "--system-prompt value", "--system-prompt-file value", "--tmux", "--tools multi",
	"--verbose", "-v,--version", "-w,--worktree optional",
)

var claudeCommands = []string{"agents", "auth", "auto-mode", "doctor", "gateway", "install", "mcp", "plugin", "plugins", "project", "setup-token", "ultrareview", "update", "upgrade"}

func (claudeCLI) newSessionID() string { return newUUID() }

func (claudeCLI) parse(args []string, h host) (*invocation, *failure) {
	p, _, perr := parseArgs(args, claudeOptions, nil)
	if perr != nil {
		return nil, &failure{stderr: commanderError(perr), code: 1}
	}
	if p.has("version") {
		return &invocation{print: "2.1.197 (Claude Code; fakeharness)\n"}, nil
	}
	if p.has("help") {
		return &invocation{print: "Usage: claude [options] [command] [prompt]\n\nClaude Code (fakeharness)\n"}, nil
	}
	if len(p.positional) > 0 && slices.Contains(claudeCommands, p.positional[0]) {
		return nil, &failure{stderr: fmt.Sprintf("fakeharness: `claude %s` is not part of the fake\n", p.positional[0]), code: 2}
	}
	if len(p.positional) > 1 {
		return nil, &failure{stderr: fmt.Sprintf("error: too many arguments. Expected 1 argument but got %d.\n", len(p.positional)), code: 1}
	}
	inv := &invocation{
		model:     p.last("model"),
		resumeID:  p.last("resume"),
		fork:      p.has("fork-session"),
		sessionID: p.last("session-id"),
		format:    cmpOr(p.last("output-format"), "text"),
	}
	if inv.sessionID != "" {
		if !uuidForm.MatchString(inv.sessionID) {
			return nil, &failure{stderr: "Error: Invalid session ID. Must be a valid UUID.\n", code: 1}
		}
		if (inv.resumeID != "" || p.has("continue")) && !inv.fork {
			return nil, &failure{stderr: "Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.\n", code: 1}
		}
	}
	if len(p.positional) == 1 {
		inv.prompt = p.positional[0]
	}
	print := p.has("print")
	if !print && h.stdinIsTTY {
		inv.interactive = true
		return inv, nil
	}
	// Without -p and without a terminal claude answers like print mode.
	verbose := p.has("verbose")
	inv.combine = joinLines
	inv.check = func(prompt string) *failure {
		if strings.TrimSpace(prompt) == "" {
			return &failure{stderr: "Error: Input must be provided either through stdin or as a prompt argument when using --print\n", code: 1}
		}
		if inv.format == "stream-json" && !verbose {
			return &failure{stderr: "Error: When using --print, --output-format=stream-json requires --verbose\n", code: 1}
		}
		return nil
	}
	if inv.model == "" {
		inv.model = "claude-sonnet-4-6"
	}
	inv.permissionMode = cmpOr(p.last("permission-mode"), "default")
	return inv, nil
}

// joinLines joins a prompt argument and stdin the way claude and opencode
// do: the argument, a newline, then stdin.
func joinLines(arg, stdin string) string {
	switch {
	case arg == "":
		return stdin
	case stdin == "":
		return arg
	}
	return arg + "\n" + stdin
}

func cmpOr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// commanderError is commander's message for a refused argument.
func commanderError(e *argError) string {
	switch e.kind {
	case "missing":
		return fmt.Sprintf("error: option '%s <value>' argument missing\n", strings.Join(e.opt.names, ", "))
	case "choice":
		return fmt.Sprintf("error: option '%s <value>' argument '%s' is invalid. Allowed choices are %s.\n",
			strings.Join(e.opt.names, ", "), e.value, strings.Join(e.opt.choices, ", "))
	}
	return fmt.Sprintf("error: unknown option '%s'\n", e.arg)
}

func (claudeCLI) stream(inv *invocation, session string, w *lineWriter) stream {
	if inv.format == "text" {
		return textStream{w: w}
	}
	return &claudeStream{w: w, session: session, model: inv.model, permissionMode: inv.permissionMode, onlyResult: inv.format == "json"}
}

// claudeStream prints `claude -p --output-format stream-json --verbose`
// events (or, for --output-format json, only the result). Like the real
// one, every assistant event carries that message's own usage, and only the
// result has the run's totals.
type claudeStream struct {
	w              *lineWriter
	session, model string
	permissionMode string
	onlyResult     bool
	turns          int
}

func (s *claudeStream) begin() {
	if s.onlyResult {
		return
	}
	s.w.event(obj{"type", "system", "subtype", "init", "cwd", workDir(), "session_id", s.session,
		"tools", []string{"Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write"}, "mcp_servers", []any{},
		"model", s.model, "permissionMode", s.permissionMode, "slash_commands", []string{"compact", "review"},
		"apiKeySource", "none", "claude_code_version", "2.1.197", "output_style", "default",
		"agents", []string{"general-purpose"}, "skills", []any{}, "plugins", []any{}, "uuid", newUUID()})
}

func (s *claudeStream) assistant(text string, in, out int64) {
	s.turns++
	if s.onlyResult {
		return
	}
	s.w.event(obj{"type", "assistant", "message", obj{
		"id", "msg_fake" + randomID(20), "type", "message", "role", "assistant", "model", s.model,
		"content", []obj{{"type", "text", "text", text}}, "stop_reason", nil, "stop_sequence", nil,
		"usage", obj{"input_tokens", in, "output_tokens", out, "cache_read_input_tokens", 0, "cache_creation_input_tokens", 0},
	}, "parent_tool_use_id", nil, "session_id", s.session, "uuid", newUUID()})
}

func (s *claudeStream) bulk(n int, payload string) {
	if s.onlyResult {
		return
	}
	s.w.event(obj{"type", "user", "message", obj{"role", "user", "content", []obj{{
		"tool_use_id", fmt.Sprintf("toolu_fake%04d", n), "type", "tool_result", "content", payload, "is_error", false,
	}}}, "parent_tool_use_id", nil, "session_id", s.session, "uuid", newUUID()})
}

func (s *claudeStream) progress(text string) { s.assistant(text, 3, 1) }

func (s *claudeStream) result(isError bool, text string, u usage) obj {
	return obj{"type", "result", "subtype", "success", "is_error", isError, "duration_ms", 12, "duration_api_ms", 10,
		"num_turns", max(s.turns, 1), "result", text, "stop_reason", "end_turn", "session_id", s.session,
		"total_cost_usd", u.costUSD,
		"usage", obj{"input_tokens", u.input, "cache_creation_input_tokens", 0, "cache_read_input_tokens", u.cached, "output_tokens", u.output},
		"modelUsage", obj{s.model, obj{"inputTokens", u.input, "outputTokens", u.output, "cacheReadInputTokens", u.cached, "costUSD", u.costUSD}},
		"permission_denials", []any{}, "terminal_reason", "completed", "uuid", newUUID()}
}

func (s *claudeStream) succeed(report string, u usage) {
	// Per-message usage that is not the total: the pitfall real streams have.
	s.assistant(report, u.input, 1)
	s.w.event(s.result(false, report, u))
}

func (s *claudeStream) fail(msg string, u usage) int {
	text := "API Error: " + msg
	if !s.onlyResult {
		s.w.event(obj{"type", "assistant", "message", obj{
			"id", newUUID(), "model", "<synthetic>", "role", "assistant", "stop_reason", "stop_sequence", "type", "message",
			"usage", obj{"input_tokens", 0, "output_tokens", 0, "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0},
			"content", []obj{{"type", "text", "text", text}},
		}, "parent_tool_use_id", nil, "session_id", s.session, "uuid", newUUID(), "error", "unknown"})
	}
	s.w.event(s.result(true, text, u))
	return 1
}

func (s *claudeStream) tornEnd(report string, u usage) {
	b := s.result(false, report, u).marshal()
	s.w.raw(string(b[:len(b)/2]))
}

// textStream is a CLI's plain-text output: only the final answer, or the
// error text in its place.
type textStream struct{ w *lineWriter }

func (textStream) begin()           {}
func (textStream) bulk(int, string) {}
func (textStream) progress(string)  {}
func (t textStream) succeed(r string, _ usage) {
	t.w.raw(r + "\n")
}
func (t textStream) fail(msg string, _ usage) int {
	t.w.raw("Error: " + msg + "\n")
	return 1
}
func (t textStream) tornEnd(r string, _ usage) { t.w.raw(r[:len(r)/2]) }
