package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// geminiCLI is Gemini CLI 0.61.0: yargs-style options; headless when a
// prompt is given (-p or a query) or stdin or stdout is not a terminal, and
// then its input is stdin followed by the -p text.
type geminiCLI struct{}

var geminiOptions = opts(
	"-d,--debug", "-m,--model value", "-p,--prompt value", "-i,--prompt-interactive value", "--skip-trust",
	"-w,--worktree optional", "-s,--sandbox", "-y,--yolo", "--approval-mode value default|auto_edit|yolo|plan",
	"--policy multi", "--admin-policy multi", "--acp", "--experimental-acp", "--allowed-mcp-server-names multi",
	"--allowed-tools multi", "-e,--extensions multi", "-l,--list-extensions", "-r,--resume value",
	"--session-file value", "--session-id value", "--list-sessions", "--delete-session value",
	"--include-directories multi", "--screen-reader", "-o,--output-format value text|json|stream-json",
	"--raw-output", "--accept-raw-output-risk", "-v,--version", "-h,--help",
)

var geminiCommands = []string{"mcp", "extensions", "extension", "skills", "skill", "hooks", "hook", "gemma"}

const geminiUsage = `Usage: gemini [options] [command]

Gemini CLI - Defaults to interactive mode. Use -p/--prompt for non-interactive (headless) mode.

Options:
  -m, --model                     Model  [string]
  -p, --prompt                    Run in non-interactive (headless) mode with the given prompt. Appended to input on stdin (if any).  [string]
  -r, --resume                    Resume a previous session. Use "latest" for most recent or index number (e.g. --resume 5)  [string]
  -o, --output-format             The format of the CLI output.  [string] [choices: "text", "json", "stream-json"]
  (fakeharness: the other options of gemini 0.61.0 are accepted too)
`

func (geminiCLI) newSessionID() string { return newUUID() }

var uuidForm = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (geminiCLI) parse(args []string, h host) (*invocation, *failure) {
	p, _, perr := parseArgs(args, geminiOptions, nil)
	if perr != nil {
		var msg string
		switch perr.kind {
		case "missing":
			msg = "Not enough arguments following: " + strings.TrimLeft(perr.arg, "-")
		case "choice":
			msg = fmt.Sprintf("Invalid values:\n  Argument: %s, Given: %q, Choices: %s", strings.TrimLeft(perr.arg, "-"), perr.value, `"`+strings.Join(perr.opt.choices, `", "`)+`"`)
		default:
			msg = "Unknown argument: " + strings.TrimLeft(perr.arg, "-")
		}
		return nil, &failure{stderr: geminiUsage + "\n" + msg + "\n", code: 1}
	}
	if p.has("version") {
		return &invocation{print: "0.61.0 (fakeharness)\n"}, nil
	}
	if p.has("help") {
		return &invocation{print: geminiUsage}, nil
	}
	if len(p.positional) > 0 && slices.Contains(geminiCommands, p.positional[0]) {
		return nil, &failure{stderr: fmt.Sprintf("fakeharness: `gemini %s` is not part of the fake\n", p.positional[0]), code: 2}
	}
	inv := &invocation{model: cmpOr(p.last("model"), "gemini-2.5-pro")}
	if r := p.last("resume"); uuidForm.MatchString(r) {
		inv.resumeID = r
	}
	inv.sessionID = p.last("session-id") // gemini takes any string here
	inv.permissionMode = cmpOr(p.last("approval-mode"), "default")
	_, hasPrompt := p.values["prompt"]
	query := strings.Join(p.positional, " ")
	headless := hasPrompt || query != "" || !h.stdinIsTTY || !h.stdoutIsTTY
	if pi := p.last("prompt-interactive"); pi != "" || !headless {
		if !h.stdinIsTTY && pi != "" {
			return nil, &failure{stderr: "Error: The --prompt-interactive flag cannot be used when input is piped from stdin.\n", code: 1}
		}
		inv.interactive = true
		inv.prompt = pi
		return inv, nil
	}
	inv.prompt = cmpOr(p.last("prompt"), query)
	inv.combine = geminiJoin
	inv.format = "text"
	switch p.last("output-format") {
	case "stream-json":
		inv.format = "events"
	case "json":
		inv.format = "json"
	}
	trusted := p.has("skip-trust") || h.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true"
	inv.check = func(prompt string) *failure {
		if !trusted {
			return &failure{stderr: "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode. For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments\n", code: 55}
		}
		if strings.TrimSpace(prompt) == "" {
			return &failure{stderr: "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\n", code: 42}
		}
		return nil
	}
	return inv, nil
}

// geminiJoin: stdin, a blank line, then the -p text.
func geminiJoin(arg, stdin string) string {
	switch {
	case stdin == "":
		return arg
	case arg == "":
		return stdin
	}
	return stdin + "\n\n" + arg
}

func (geminiCLI) stream(inv *invocation, session string, w *lineWriter) stream {
	if inv.format == "text" {
		return textStream{w: w}
	}
	return &geminiStream{w: w, session: session, model: inv.model, prompt: inv.input, onlyResult: inv.format == "json"}
}

// geminiStream prints `gemini --output-format stream-json` events (or, for
// json, one final object). Gemini states no cost.
type geminiStream struct {
	w              *lineWriter
	session, model string
	prompt         string
	onlyResult     bool
	tools          int
}

func (s *geminiStream) begin() {
	if s.onlyResult {
		return
	}
	s.w.event(obj{"type", "init", "timestamp", isoNow(), "session_id", s.session, "model", s.model})
	s.w.event(obj{"type", "message", "timestamp", isoNow(), "role", "user", "content", s.prompt})
}

func (s *geminiStream) bulk(n int, payload string) {
	if s.onlyResult {
		return
	}
	id := fmt.Sprintf("read_file__read_file_%d_%d", n, n)
	s.w.event(obj{"type", "tool_use", "timestamp", isoNow(), "tool_name", "read_file", "tool_id", id,
		"parameters", obj{"file_path", fmt.Sprintf("part%d.log", n)}})
	s.w.event(obj{"type", "tool_result", "timestamp", isoNow(), "tool_id", id, "status", "success", "output", payload})
	s.tools++
}

func (s *geminiStream) message(text string) {
	if s.onlyResult {
		return
	}
	s.w.event(obj{"type", "message", "timestamp", isoNow(), "role", "assistant", "content", text, "delta", true})
}

func (s *geminiStream) progress(text string) { s.message(text) }

func (s *geminiStream) stats(u usage) obj {
	return obj{"total_tokens", u.input + u.output, "input_tokens", u.input, "output_tokens", u.output,
		"cached", u.cached, "input", u.input - u.cached, "duration_ms", 12, "tool_calls", s.tools,
		"models", obj{s.model, obj{"total_tokens", u.input + u.output, "input_tokens", u.input,
			"output_tokens", u.output, "cached", u.cached, "input", u.input - u.cached}}}
}

func (s *geminiStream) result(u usage) obj {
	return obj{"type", "result", "timestamp", isoNow(), "status", "success", "stats", s.stats(u)}
}

func (s *geminiStream) succeed(report string, u usage) {
	if s.onlyResult {
		s.w.event(obj{"session_id", s.session, "response", report, "stats", s.stats(u)})
		return
	}
	// The answer arrives in chunks, split between characters.
	half := len(report) / 2
	for half > 0 && !utf8.RuneStart(report[half]) {
		half--
	}
	s.message(report[:half])
	s.message(report[half:])
	s.w.event(s.result(u))
}

func (s *geminiStream) fail(msg string, u usage) int {
	if s.onlyResult {
		s.w.event(obj{"session_id", s.session, "error", obj{"type", "unknown", "message", msg, "code", 1}})
		return 1
	}
	s.w.event(obj{"type", "result", "timestamp", isoNow(), "status", "error",
		"error", obj{"type", "unknown", "message", msg}, "stats", s.stats(u)})
	return 1
}

func (s *geminiStream) tornEnd(_ string, u usage) {
	b := s.result(u).marshal()
	s.w.raw(string(b[:len(b)/2]))
}
