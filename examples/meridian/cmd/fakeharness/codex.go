package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// codexCLI is Codex 0.169.0: clap-style options and subcommands. `codex`
// and `codex resume|fork` are the terminal UI; `codex exec [resume|fork]`
// runs without one, reading the prompt from stdin when it is "-" or absent.
type codexCLI struct{}

// codexShared are the options the TUI and exec both take.
var codexShared = []string{
	"-c,--config value", "--enable value", "--disable value", "--strict-config", "-i,--image multi",
	"-m,--model value", "--oss", "--local-provider value", "-p,--profile value",
	"-s,--sandbox value read-only|workspace-write|danger-full-access", "--approve-for-me",
	"--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "-C,--cd value",
	"--worktree", "--add-dir value", "-h,--help", "-V,--version",
}

// codexExecSession are the options of `codex exec resume` and `codex exec
// fork` (no --sandbox: it must come before the subcommand).
var codexExecSession = []string{
	"-c,--config value", "--enable value", "--disable value", "-i,--image value", "--strict-config",
	"-m,--model value", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust",
	"--worktree", "--thread-source value", "--cyber-access-program value standard|daybreak_blue|daybreak_red",
	"--skip-git-repo-check", "--trust", "--ephemeral", "--ignore-user-config", "--ignore-rules",
	"--output-schema value", "--json", "-o,--output-last-message value", "-h,--help",
}

var (
	codexTUIOptions = opts(append(slices.Clone(codexShared),
		"--remote value", "--remote-auth-token-env value", "-a,--ask-for-approval value on-request|never",
		"--search", "--no-alt-screen", "--no-daemon")...)
	codexResumeTUIOptions = opts(append(slices.Clone(codexShared),
		"--last", "--all", "--include-non-interactive", "--remote value", "--remote-auth-token-env value",
		"-a,--ask-for-approval value on-request|never", "--search", "--no-alt-screen", "--no-daemon")...)
	codexExecOptions = opts(append(slices.Clone(codexShared),
		"--thread-source value", "--cyber-access-program value standard|daybreak_blue|daybreak_red",
		"--skip-git-repo-check", "--trust", "--ephemeral", "--ignore-user-config", "--ignore-rules",
		"--output-schema value", "--color value always|never|auto", "--json", "-o,--output-last-message value")...)
	codexExecResumeOptions = opts(append(slices.Clone(codexExecSession), "--last", "--all")...)
	codexExecForkOptions   = opts(codexExecSession...)
)

var codexCommands = []string{"agents", "exec", "e", "review", "login", "logout", "mcp", "plugin", "app-server",
	"remote-control", "completion", "update", "doctor", "sandbox", "debug", "apply", "a", "resume", "queue",
	"archive", "delete", "migrate-rollouts", "migrate-nfs-db", "unarchive", "fork", "cloud", "exec-server",
	"features", "help"}

func (codexCLI) newSessionID() string { return newUUID() }

// codexLine is one level of a codex command line, for its error messages.
type codexLine struct {
	p     parsed
	usage string
}

func (codexCLI) parse(args []string, h host) (*invocation, *failure) {
	isCommand := func(s string) bool { return slices.Contains(codexCommands, s) }
	top, rest, perr := parseArgs(args, codexTUIOptions, isCommand)
	if perr != nil {
		return nil, clapError(perr, "codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]")
	}
	if top.has("version") {
		return &invocation{print: "codex-cli 0.169.0 (fakeharness)\n"}, nil
	}
	if top.has("help") {
		return &invocation{print: "Codex CLI (fakeharness)\n\nUsage: codex [OPTIONS] [PROMPT]\n"}, nil
	}
	levels := []parsed{top}
	inv := &invocation{}
	switch {
	case rest == nil:
		if len(top.positional) > 1 {
			return nil, clapError(&argError{kind: "extra", arg: top.positional[1]}, "codex [OPTIONS] [PROMPT]")
		}
		if len(top.positional) == 1 {
			inv.prompt = top.positional[0]
		}
		inv.interactive = true
	case rest[0] == "resume" || rest[0] == "fork":
		sub, _, perr := parseArgs(rest[1:], codexResumeTUIOptions, nil)
		if perr != nil {
			return nil, clapError(perr, "codex "+rest[0]+" [OPTIONS] [SESSION_ID] [PROMPT]")
		}
		levels = append(levels, sub)
		if f := codexSession(inv, sub, rest[0], "codex "+rest[0]+" [OPTIONS] [SESSION_ID] [PROMPT]"); f != nil {
			return nil, f
		}
		inv.interactive = true
	case rest[0] == "exec" || rest[0] == "e":
		f := codexExec(inv, rest[1:], &levels)
		if f != nil {
			return nil, f
		}
	default:
		return nil, &failure{stderr: fmt.Sprintf("fakeharness: `codex %s` is not part of the fake\n", rest[0]), code: 2}
	}
	get := func(key string) string {
		for _, l := range slices.Backward(levels) {
			if v := l.last(key); v != "" {
				return v
			}
		}
		return ""
	}
	has := func(key string) bool {
		return slices.ContainsFunc(levels, func(l parsed) bool { return l.has(key) })
	}
	inv.model = cmpOr(get("model"), "gpt-5.3-codex")
	inv.permissionMode = cmpOr(get("sandbox"), "workspace-write")
	if inv.interactive {
		if !h.stdinIsTTY {
			return nil, &failure{stderr: "Error: stdin is not a terminal\n", code: 1}
		}
		return inv, nil
	}
	inv.format = "text"
	if has("json") {
		inv.format = "events"
	}
	inv.reportFile = get("output-last-message")
	skipGitCheck := has("skip-git-repo-check")
	dir := cmpOr(get("cd"), h.cwd)
	inv.check = func(prompt string) *failure {
		if !skipGitCheck && !insideGitRepo(dir) {
			return &failure{stderr: "Not inside a trusted directory and --skip-git-repo-check was not specified.\n", code: 1}
		}
		if strings.TrimSpace(prompt) == "" {
			return &failure{stderr: "No prompt provided. Either specify one as an argument or pipe the prompt into stdin.\n", code: 1}
		}
		return nil
	}
	return inv, nil
}

// codexExec parses what follows `codex exec`.
func codexExec(inv *invocation, args []string, levels *[]parsed) *failure {
	const usage = "codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]"
	isSub := func(s string) bool { return slices.Contains([]string{"resume", "fork", "review", "help"}, s) }
	ex, rest, perr := parseArgs(args, codexExecOptions, isSub)
	if perr != nil {
		return clapError(perr, usage)
	}
	*levels = append(*levels, ex)
	positional := ex.positional
	if rest != nil {
		var subOpts []option
		switch rest[0] {
		case "resume":
			subOpts = codexExecResumeOptions
		case "fork":
			subOpts = codexExecForkOptions
		default:
			return &failure{stderr: fmt.Sprintf("fakeharness: `codex exec %s` is not part of the fake\n", rest[0]), code: 2}
		}
		subUsage := "codex exec " + rest[0] + " <SESSION_ID> [PROMPT]"
		sub, _, perr := parseArgs(rest[1:], subOpts, nil)
		if perr != nil {
			return clapError(perr, subUsage)
		}
		*levels = append(*levels, sub)
		if f := codexSession(inv, sub, rest[0], subUsage); f != nil {
			return f
		}
		positional = nil
	}
	if len(positional) > 1 {
		return clapError(&argError{kind: "extra", arg: positional[1]}, usage)
	}
	if len(positional) == 1 {
		inv.prompt = positional[0]
	}
	inv.combine = codexJoin
	return nil
}

// codexSession reads SESSION_ID and PROMPT of a resume or fork subcommand.
func codexSession(inv *invocation, sub parsed, verb, usage string) *failure {
	pos := sub.positional
	if len(pos) > 2 {
		return clapError(&argError{kind: "extra", arg: pos[2]}, usage)
	}
	if len(pos) == 0 {
		if sub.has("last") {
			inv.resumeID = newUUID() // no history to pick from: a stand-in for the latest
			inv.fork = verb == "fork"
			return nil
		}
		return &failure{stderr: "error: the following required arguments were not provided:\n  <SESSION_ID>\n\nUsage: " + usage + "\n\nFor more information, try '--help'.\n", code: 2}
	}
	inv.resumeID = pos[0]
	inv.fork = verb == "fork"
	if len(pos) == 2 {
		inv.prompt = pos[1]
	}
	return nil
}

// codexJoin: "-" or no argument reads stdin; an argument with piped stdin
// gets it appended as a <stdin> block.
func codexJoin(arg, stdin string) string {
	switch {
	case arg == "" || arg == "-":
		return stdin
	case stdin == "":
		return arg
	}
	return arg + "\n\n<stdin>\n" + stdin + "\n</stdin>"
}

func insideGitRepo(dir string) bool {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// clapError is clap's message for a refused argument; clap exits 2.
func clapError(e *argError, usage string) *failure {
	var msg string
	switch e.kind {
	case "missing":
		msg = fmt.Sprintf("error: a value is required for '%s <VALUE>' but none was supplied\n\nFor more information, try '--help'.\n", e.arg)
	case "choice":
		msg = fmt.Sprintf("error: invalid value '%s' for '%s <VALUE>'\n  [possible values: %s]\n\nFor more information, try '--help'.\n", e.value, e.arg, strings.Join(e.opt.choices, ", "))
	default:
		msg = fmt.Sprintf("error: unexpected argument '%s' found\n\n  tip: to pass '%s' as a value, use '-- %s'\n\nUsage: %s\n\nFor more information, try '--help'.\n", e.arg, e.arg, e.arg, usage)
	}
	return &failure{stderr: msg, code: 2}
}

func (codexCLI) stream(inv *invocation, session string, w *lineWriter) stream {
	if inv.format == "text" {
		return textStream{w: w}
	}
	return &codexStream{w: w, session: session}
}

// codexStream prints `codex exec --json` events. Codex states no cost.
type codexStream struct {
	w       *lineWriter
	session string
	items   int
}

func (s *codexStream) item(fields ...any) {
	s.w.event(obj{"type", "item.completed", "item", append(obj{"id", fmt.Sprintf("item_%d", s.items)}, fields...)})
	s.items++
}

func (s *codexStream) begin() {
	s.w.event(obj{"type", "thread.started", "thread_id", s.session})
	s.w.event(obj{"type", "turn.started"})
}

func (s *codexStream) bulk(n int, payload string) {
	s.item("type", "command_execution", "command", fmt.Sprintf("bash -lc 'cat part%d.log'", n),
		"aggregated_output", payload, "exit_code", 0, "status", "completed")
}

func (s *codexStream) progress(text string) { s.item("type", "reasoning", "text", "**"+text+"**") }

func (s *codexStream) completed(u usage) obj {
	return obj{"type", "turn.completed", "usage", obj{"input_tokens", u.input, "cached_input_tokens", u.cached,
		"cache_write_input_tokens", 0, "output_tokens", u.output, "reasoning_output_tokens", 0}}
}

func (s *codexStream) succeed(report string, u usage) {
	s.item("type", "agent_message", "text", report)
	s.w.event(s.completed(u))
}

func (s *codexStream) fail(msg string, _ usage) int {
	s.w.event(obj{"type", "error", "message", msg})
	s.w.event(obj{"type", "turn.failed", "error", obj{"message", msg}})
	return 1
}

func (s *codexStream) tornEnd(_ string, u usage) {
	b := s.completed(u).marshal()
	s.w.raw(string(b[:len(b)/2]))
}
