//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ---------------------------------------------------------------------------
// REQ-F-047 REPL mode prohibition in non-TTY context.

// TestF047PromptWithoutATerminal: REQ-F-047 criteria 1 and 5. `greet` asks
// for a name (adapters.Prompt) when --name is not given. Off a terminal it
// exits 4 at once with one JSON error, INPUT_REQUIRED, naming the flag
// that answers it (error.field and a suggestion with --name) — also when
// stdin is a terminal nobody types at and stdout is a pipe, as an agent's
// harness may give it — never waiting for input.
func TestF047PromptWithoutATerminal(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, r result) {
		t.Helper()
		env := expect(t, "greet", r, 4)
		want(t, "greet", env, map[string]any{"error.code": "INPUT_REQUIRED", "error.field": "name", "data": nil})
		if s, _ := get(env, "error.suggestion").(string); !strings.Contains(s, "--name") {
			t.Errorf("the suggestion %q does not name --name", s)
		}
		if r.took > 10*time.Second {
			t.Errorf("greet took %v: it waited for input", r.took)
		}
	}
	t.Run("stdin a pipe", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		cmd := sb.command(sb.dir, nil, "greet")
		cmd.Stdin = strings.NewReader("") // an agent's pipe, open and empty
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		check(t, wait(t, cmd, &stdout, &stderr))
	})
	t.Run("stdin a terminal nobody types at", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		master, slave, err := pty.Open()
		if err != nil {
			t.Skipf("no pty: %v", err)
		}
		defer master.Close()
		cmd := sb.command(sb.dir, nil, "greet")
		cmd.Stdin = slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		r := wait(t, cmd, &stdout, &stderr)
		slave.Close()
		check(t, r)
	})
}

// TestF047BareInvocation: REQ-F-047 criteria 2, 3 and 5. e2eapp's bare
// invocation is an interactive shell: piped, it exits 4,
// REPL_MODE_PROHIBITED, at once, suggesting where a program finds the
// commands to pass instead (e2eapp describe), and never shows the shell's
// prompt. todo's bare invocation is its help: piped, it answers at once
// with help (meta.help), exit 0, asks nothing and writes no to-do file.
func TestF047BareInvocation(t *testing.T) {
	t.Parallel()
	t.Run("a REPL", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		cmd := sb.command(sb.dir, nil)
		cmd.Stdin = strings.NewReader("status\nquit\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		r := wait(t, cmd, &stdout, &stderr)
		env := expect(t, "e2eapp", r, 4)
		want(t, "e2eapp", env, map[string]any{"error.code": "REPL_MODE_PROHIBITED", "error.phase": "validation"})
		if s, _ := get(env, "error.suggestion").(string); !strings.Contains(s, "e2eapp describe") {
			t.Errorf("the suggestion %q does not say what to run instead", s)
		}
		if strings.Contains(r.stderr, "e2eapp>") || r.took > 10*time.Second {
			t.Errorf("the shell started (stderr %q) or it took %v", r.stderr, r.took)
		}
	})
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		sb := sandboxFor(t, todo.bin(t))
		store := sb.path("todo.json")
		cmd := sb.command(sb.dir, []string{"TODO_FILE=" + store})
		cmd.Stdin = strings.NewReader("y\nyes\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		r := wait(t, cmd, &stdout, &stderr)
		env := expect(t, "todo", r, 0)
		want(t, "todo", env, map[string]any{"meta.help": true})
		if r.took > 10*time.Second || exists(store) || strings.Contains(r.stderr, "[y/N]") {
			t.Errorf("took %v, wrote the store %v, stderr %q", r.took, exists(store), r.stderr)
		}
		entries, _ := os.ReadDir(sb.dir)
		for _, e := range entries {
			if e.Name() != "tmp" {
				t.Errorf("todo's help left %s behind", e.Name())
			}
		}
	})
}

// TestF047PromptsAtATerminal: REQ-F-047 criterion 4. At a terminal, greet
// asks for the name and greets what the person types, and the bare
// invocation's shell prompts and runs until "quit".
func TestF047PromptsAtATerminal(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	p := sb.pty(t, nil, "greet")
	p.WaitFor(t, "Your name: ")
	p.Write(t, "alice\n")
	if screen, code := p.Wait(t); code != 0 || !strings.Contains(screen, "hello, alice") {
		t.Errorf("greet at a terminal: exit %d, screen %q", code, screen)
	}
	p = sb.pty(t, nil)
	p.WaitFor(t, "e2eapp> ")
	p.Write(t, "status\n")
	p.WaitFor(t, `you said "status"`)
	p.Write(t, "quit\n")
	if screen, code := p.Wait(t); code != 0 {
		t.Errorf("the shell at a terminal: exit %d, screen %q", code, screen)
	}
}

// ---------------------------------------------------------------------------
// REQ-C-005 Interactive commands must support --yes / --non-interactive
// (and REQ-C-036's exception, v1.16).

// TestC005Yes: REQ-C-005 criterion 1. `reset` asks "Reset all settings?"
// (adapters.Confirm). At a terminal it asks; with --yes it proceeds without
// asking, at a terminal and piped; piped without --yes it is refused.
func TestC005Yes(t *testing.T) {
	t.Parallel()
	seed := func(t *testing.T, sb *sandbox) string {
		t.Helper()
		settings := sb.path("data", "e2eapp", "settings.json")
		if err := os.MkdirAll(sb.path("data", "e2eapp"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settings, []byte(`{"theme":"dark"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return settings
	}
	t.Run("at a terminal it asks", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		settings := seed(t, sb)
		p := sb.pty(t, nil, "reset")
		p.WaitFor(t, "Reset all settings? [y/N]")
		p.Write(t, "y\n")
		if screen, code := p.Wait(t); code != 0 || exists(settings) {
			t.Errorf("exit %d, settings left %v: %q", code, exists(settings), screen)
		}
	})
	t.Run("--yes at a terminal", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		settings := seed(t, sb)
		screen, code := sb.pty(t, nil, "reset", "--yes").Wait(t)
		if code != 0 || exists(settings) || strings.Contains(screen, "[y/N]") {
			t.Errorf("exit %d, settings left %v, screen %q; want it reset without asking", code, exists(settings), screen)
		}
	})
	t.Run("--yes piped", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		settings := seed(t, sb)
		want(t, "reset --yes", expect(t, "reset --yes", sb.run(t, "reset", "--yes"), 0), map[string]any{"data.reset": true, "meta.effect": "updated"})
		if exists(settings) {
			t.Error("reset --yes left the settings")
		}
	})
	t.Run("piped without --yes", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		settings := seed(t, sb)
		env := expect(t, "reset", sb.run(t, "reset"), 4)
		want(t, "reset", env, map[string]any{"error.code": "INPUT_REQUIRED", "error.field": "yes"})
		if !exists(settings) {
			t.Error("a refused reset reset")
		}
	})
}

// TestC005NonInteractive: REQ-C-005 criterion 2. With --non-interactive, a
// command that would ask exits 4 with a JSON error, even at a terminal,
// and asks nothing: the terminal shows the one envelope (stdout and stderr
// alike), no question.
func TestC005NonInteractive(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for _, args := range [][]string{{"reset", "--non-interactive"}, {"greet", "--non-interactive"}} {
		want(t, args[0], expect(t, args[0], sb.run(t, args...), 4), map[string]any{"error.code": "INPUT_REQUIRED"})
		screen, code := sb.pty(t, nil, append(args, "--format", "json")...).Wait(t)
		env := expect(t, args[0]+" at a terminal", result{stdout: strings.ReplaceAll(screen, "\r\n", "\n"), code: code}, 4)
		want(t, args[0]+" at a terminal", env, map[string]any{"error.code": "INPUT_REQUIRED"})
	}
}

// TestC005YesOnACommandThatNeverAsks: REQ-C-005 criteria 3 and 4. --yes on
// `status`, which never asks, changes nothing of its answer; --schema of
// the commands that ask says interactive: true and lists --yes and
// --non-interactive.
func TestC005YesOnACommandThatNeverAsks(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	plain := expect(t, "status", sb.run(t, "status"), 0)
	yes := expect(t, "status --yes", sb.run(t, "status", "--yes"), 0)
	if !cmp.Equal([]any{plain["data"], get(plain, "meta.effect")}, []any{yes["data"], get(yes, "meta.effect")}) {
		t.Errorf("--yes changed the answer: %v, %v", plain["data"], yes["data"])
	}
	for _, cmd := range []string{"reset", "greet"} {
		doc := sb.schemaOf(t, cmd)
		flags := flagNames(doc)
		if doc["interactive"] != true || !slices.Contains(flags, "yes") || !slices.Contains(flags, "non-interactive") {
			t.Errorf("%s --schema: interactive %v, flags %v", cmd, doc["interactive"], flags)
		}
	}
	if doc := sb.schemaOf(t, "status"); doc["interactive"] == true {
		t.Errorf("status --schema says interactive")
	}
}

// TestC005YesNeverAnswersAPerson: REQ-C-005 criterion 1's v1.16 exception
// (REQ-C-036). `approve` is for a person alone (schema.Meta.RequiresPerson).
// Off a terminal it exits 4, PERSON_REQUIRED, not retryable, with a
// suggestion naming no flag and no fix_command, --yes or not, and approves
// nothing. At a terminal it asks for "approve d1" even with --yes, runs
// once that is typed, and refuses anything else with ATTESTATION_MISMATCH.
// The manifest marks it requires_person, interactive and mcp: false, its
// exit 4 listing both codes; no other command is marked.
func TestC005YesNeverAnswersAPerson(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	approvals := sb.path("data", "e2eapp", "approvals.log")
	for _, args := range [][]string{{"approve", "d1"}, {"approve", "d1", "--yes"}} {
		env := expect(t, strings.Join(args, " "), sb.run(t, args...), 4)
		want(t, strings.Join(args, " "), env, map[string]any{"error.code": "PERSON_REQUIRED", "error.retryable": false, "error.fix_command": nil, "data": nil})
		if s, _ := get(env, "error.suggestion").(string); s == "" || strings.Contains(s, "--") {
			t.Errorf("the suggestion %q names a flag", s)
		}
	}
	if exists(approvals) {
		t.Fatal("approved off a terminal")
	}

	p := sb.pty(t, nil, "approve", "d1", "--yes")
	p.WaitFor(t, `Type "approve d1"`)
	p.Write(t, "approve d2\n")
	if screen, code := p.Wait(t); code != 4 || !strings.Contains(screen, "ATTESTATION_MISMATCH") || exists(approvals) {
		t.Errorf("a wrong attestation: exit %d, approved %v, screen %q", code, exists(approvals), screen)
	}
	p = sb.pty(t, nil, "approve", "d1", "--yes")
	p.WaitFor(t, `Type "approve d1"`)
	p.Write(t, "approve d1\n")
	if screen, code := p.Wait(t); code != 0 || readFile(t, approvals) != "d1\n" {
		t.Errorf("typed back: exit %d, approvals %q, screen %q", code, readFile(t, approvals), screen)
	}

	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	want(t, "manifest", map[string]any{"approve": commands["approve"]}, map[string]any{
		"approve.requires_person": true, "approve.interactive": true, "approve.mcp": false,
		"approve.exit_codes.4.error_codes": []any{"PERSON_REQUIRED", "ATTESTATION_MISMATCH"},
	})
	for name, c := range commands {
		if _, ok := get(c, "requires_person").(bool); ok && name != "approve" {
			t.Errorf("manifest: %s has requires_person", name)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-F-057 Headless environment detection and GUI suppression.

// browser writes a stand-in for the host's browser: it records what it was
// asked to open, then (when block) waits half a minute.
func (sb *sandbox) browser(t *testing.T, block bool) (path, record string) {
	t.Helper()
	record = sb.path("OPENED")
	body := "echo \"$1\" >> " + record + "\n"
	if block {
		body += "sleep 30\n"
	}
	return sb.script(t, "browser", body), record
}

// TestF057NoBrowserHeadless: REQ-F-057 criterion 1. With no DISPLAY (a
// container), `docs deploy` answers at once with the URL in data.open_url
// — piped, and at a terminal too — and the host's browser never starts.
func TestF057NoBrowserHeadless(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	browser, opened := sb.browser(t, true)
	r := sb.runEnv(t, []string{"BROWSER=" + browser}, "docs", "deploy")
	want(t, "docs", expect(t, "docs", r, 0), map[string]any{
		"data.open_url": "https://docs.example.com/e2eapp/deploy", "data.topic": "deploy", "meta.headless": true})
	screen, code := sb.pty(t, []string{"BROWSER=" + browser}, "docs", "deploy").Wait(t)
	if code != 0 || !strings.Contains(screen, "https://docs.example.com/e2eapp/deploy") {
		t.Errorf("at a terminal with no display: exit %d, screen %q", code, screen)
	}
	if exists(opened) || r.took > 10*time.Second {
		t.Errorf("the browser started (%v), or docs took %v", exists(opened), r.took)
	}
}

// TestF057HeadlessInEveryAnswer: REQ-F-057 criterion 2. Headless — stdout a
// pipe, or at a terminal CI, SSH_TTY or no DISPLAY — every answer says
// meta.headless: true: a success, a command's own error, a refusal before
// running, --schema's; at a terminal with a display (and --format json,
// which keeps the envelope) it leaves it out (false).
func TestF057HeadlessInEveryAnswer(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	calls := []struct {
		args []string
		code int
	}{{[]string{"status"}, 0}, {[]string{"lookup", "nope"}, 5}, {[]string{"lookup"}, 2}, {[]string{"docs", "--schema"}, 0}, {[]string{"approve", "d1"}, 4}}
	for _, c := range calls {
		want(t, strings.Join(c.args, " "), expect(t, strings.Join(c.args, " "), sb.run(t, c.args...), c.code), map[string]any{"meta.headless": true})
	}
	for _, tt := range []struct {
		name string
		env  []string
		want any
	}{
		{"a display", []string{"DISPLAY=:0"}, nil},
		{"no display", nil, true},
		{"CI", []string{"DISPLAY=:0", "CI=true"}, true},
		{"over SSH", []string{"DISPLAY=:0", "SSH_TTY=/dev/pts/9"}, true},
	} {
		screen, code := sb.pty(t, tt.env, "status", "--format", "json").Wait(t)
		env := expect(t, tt.name, result{stdout: strings.ReplaceAll(screen, "\r\n", "\n"), code: code}, 0)
		want(t, tt.name, env, map[string]any{"meta.headless": tt.want})
	}
}

// TestF057UndeclaredBrowser: REQ-F-057 criterion 3. A command that would
// open a browser and declares no headless behaviour is refused when the
// app is wrapped: e2eapp-misdeclared does not start (exit 1, no envelope,
// the command and Meta.Headless named on stderr). One that declares no
// display at all and opens one anyway is refused when it tries: exit 1,
// INVALID_DECLARATION, and nothing opens.
func TestF057UndeclaredBrowser(t *testing.T) {
	t.Parallel()
	sb := sandboxFor(t, misdeclared)
	r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=gui-no-headless"}, "status")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `command "preview"`) || !strings.Contains(r.stderr, "Meta.Headless") {
		t.Errorf("exit %d, stdout %q, stderr %q; want it not to start, naming preview and Meta.Headless", r.code, r.stdout, r.stderr)
	}
	browser, opened := sb.browser(t, false)
	r = sb.runEnv(t, []string{"E2EAPP_MISDECLARE=undeclared-open", "BROWSER=" + browser, "DISPLAY=:0"}, "preview")
	want(t, "preview", expect(t, "preview", r, 1), map[string]any{"error.code": "INVALID_DECLARATION"})
	if exists(opened) {
		t.Error("an undeclared browser opened")
	}
}

// TestF057BrowserWithADisplay: REQ-F-057 criterion 4. At a terminal with
// DISPLAY set, `docs` opens the page in the person's browser ($BROWSER).
func TestF057BrowserWithADisplay(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	browser, opened := sb.browser(t, false)
	screen, code := sb.ptyStaying(t, []string{"BROWSER=" + browser, "DISPLAY=:0"}, "docs", "deploy").Wait(t)
	if code != 0 {
		t.Fatalf("exit %d: %q", code, screen)
	}
	waitForFile(opened) // the browser is left running: it may record after the answer
	if got := readFile(t, opened); got != "https://docs.example.com/e2eapp/deploy\n" {
		t.Errorf("the browser opened %q", got)
	}
}

// TestC036PersonRequiredEverywhereButATerminal: REQ-C-036 criteria 5 and 9,
// beyond TestC005YesNeverAnswersAPerson. `approve` needs a person at a
// terminal on both ends: with stdin from /dev/null, with stdin a terminal
// but stdout piped, and at a terminal with --non-interactive, it exits 4
// PERSON_REQUIRED, not retryable, and approves nothing. The tool's real MCP
// server (e2eapp mcp, a client over stdio) lists every agent-runnable
// command but approve. Criteria 2 and 10 have nothing to refuse in Duet:
// Meta.RequiresPerson itself makes the command interactive and mcp: false
// (TestC005YesNeverAnswersAPerson reads both in the manifest).
func TestC036PersonRequiredEverywhereButATerminal(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	approvals := sb.path("data", "e2eapp", "approvals.log")
	refused := func(what string, stdout string, code int) {
		t.Helper()
		if code != 4 || !strings.Contains(stdout, `"PERSON_REQUIRED"`) {
			t.Errorf("%s: exit %d, stdout %q; want 4 PERSON_REQUIRED", what, code, stdout)
		}
		if exists(approvals) {
			t.Fatalf("%s: approved", what)
		}
	}

	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	cmd := sb.command(sb.dir, nil, "approve", "d1", "--yes")
	cmd.Stdin = devNull
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := wait(t, cmd, &stdout, &stderr)
	want(t, "stdin /dev/null", expect(t, "stdin /dev/null", r, 4), map[string]any{"error.code": "PERSON_REQUIRED", "error.retryable": false})
	refused("stdin /dev/null", r.stdout, r.code)

	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	cmd = sb.command(sb.dir, nil, "approve", "d1")
	cmd.Stdin = slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r = wait(t, cmd, &stdout, &stderr)
	slave.Close()
	refused("stdin a terminal, stdout piped", r.stdout, r.code)

	screen, code := sb.pty(t, nil, "approve", "d1", "--non-interactive").Wait(t)
	if code != 4 || !strings.Contains(screen, "PERSON_REQUIRED") || strings.Contains(screen, `Type "approve d1"`) {
		t.Errorf("--non-interactive at a terminal: exit %d, screen %q; want 4 PERSON_REQUIRED without asking", code, screen)
	}
	if exists(approvals) {
		t.Fatal("--non-interactive at a terminal: approved")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mcpCmd := sb.command(sb.dir, nil, "mcp")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: mcpCmd}, nil)
	if err != nil {
		t.Fatalf("connect to e2eapp mcp: %v", err)
	}
	defer cs.Close()
	// e2eapp has more tools than a server lists one by one: it publishes
	// search_tools, describe_tool and call_tool, and search_tools with no
	// words lists every tool.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "", "limit": 1000}})
	if err != nil || res.IsError {
		t.Fatalf("search_tools: %v %+v", err, res)
	}
	var found struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &found); err != nil {
		t.Fatalf("search_tools answered %s: %v", raw, err)
	}
	var names []string
	for _, tool := range found.Tools {
		names = append(names, tool.Name)
	}
	if slices.Contains(names, "approve") || !slices.Contains(names, "status") || !slices.Contains(names, "greet") {
		t.Errorf("MCP tools %v: want status and greet, never approve", names)
	}
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "approve", "arguments": map[string]any{"id": "d1"}}}); err == nil && !res.IsError {
		t.Errorf("call_tool ran approve: %+v", res.Content)
	}
	if exists(approvals) {
		t.Fatal("approved through MCP")
	}
}

// TestNoColorKeepsAPerson: NO_COLOR says how to write, not who reads. At a
// terminal, e2eapp — spec-strict — answers a person with NO_COLOR=1 set as
// without it: text, with no colour (no escape sequence), where CI=true
// there gives JSON, as the CLI Agent Spec's F-003 criteria want.
func TestNoColorKeepsAPerson(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	screen, code := sb.pty(t, []string{"NO_COLOR=1"}, "machines").Wait(t)
	if code != 0 || strings.Contains(screen, `"ok"`) || !strings.Contains(screen, "web") {
		t.Errorf("machines at a terminal with NO_COLOR=1: exit %d, want a person's text:\n%s", code, screen)
	}
	if strings.Contains(screen, "\x1b[") {
		t.Errorf("machines at a terminal with NO_COLOR=1 wrote colour:\n%q", screen)
	}
	screen, code = sb.pty(t, []string{"CI=true"}, "machines").Wait(t)
	if code != 0 || !strings.Contains(screen, `"ok"`) {
		t.Errorf("machines at a terminal with CI=true: exit %d, want JSON:\n%s", code, screen)
	}
}
