// Command fakeharness stands in for the coding-agent CLIs Meridian launches
// (Claude Code, Codex, OpenCode, Gemini CLI) in tests and demos. Copied or
// linked under the name claude, codex, opencode or gemini (or with
// FAKE_HARNESS_AS set to one of them), it parses its command line like that
// CLI (the flags of its real --help; an unknown one is refused in that CLI's
// words and with its exit code), reads the prompt from where that CLI reads
// it (stdin, plus a prompt argument where the CLI takes one) and prints that
// CLI's JSON events on stdout, one object a line: the session id first, then
// assistant text, then the terminal event with tokens (and cost where the
// real CLI states one). It never touches the network.
//
// A new conversation gets a fresh random session id (a UUID; OpenCode's
// ses_… form for opencode), or, for claude and gemini, the one given with
// --session-id; resuming keeps the given id, forking makes a new one (again
// the --session-id one if given). Like the real claude, the fake refuses a
// --session-id that is not a UUID, and one given with --resume or
// --continue but without --fork-session.
//
// What a run does is chosen by a directive in the prompt, [fake:MODE], else
// by $FAKE_HARNESS_MODE, else success:
//
//	success         the report is "fake <harness> report: <first line of the prompt>"
//	fail            the CLI's own failure events, and its non-zero exit (1)
//	hang            the first event, then sleeps until killed, with one child of its
//	                own (itself, sleeping) in the same process group
//	crash           some events, then half a JSON line without a newline; exit 70
//	huge            about $FAKE_HARNESS_HUGE_BYTES (default 10 MiB) of valid events,
//	                one of them a single line of at least 2 MiB, then a normal finish
//	sleep=DURATION  waits DURATION (a Go duration) after the first event, then succeeds
//	stderr          a multi-line error on stderr, nothing on stdout, exit 1
//
// Before it answers, it makes the prompt's edits in its working directory,
// as an agent changes a project: [fake-write:PATH=TEXT] (\n for a newline)
// and [fake-delete:PATH]. A reviewer's prompt (meridian run review) is
// answered with a review: one low issue per file it lists, verdict
// approve, or as [fake-review:VERDICT] in the task says ([fake-review:garbage]:
// prose, not the object).
//
// Token counts are computed from the texts so a test can predict them:
// input = bytes of the prompt, cached = input/2, output = bytes of the
// report; cost (Claude and OpenCode only) = (3*input + 15*output) / 1e6 USD.
//
// With $FAKE_HARNESS_RECORD naming a directory, every process writes one
// JSON file there (atomically: temp file, then rename):
// {harness, argv, stdin, cwd, env (MERIDIAN_* only), pid, pgid, child_pid
// (hang), mode, time}.
//
// Started without the CLI's non-interactive flags and with a terminal on
// stdin (claude, codex, codex resume ID, opencode, gemini with no prompt),
// it is interactive: it prints a banner with its session id, answers each
// line typed with "you said: <line>", and exits 0 at end of input or /exit.
//
// Interactive mode, and only it, also keeps the session on disk as the
// real CLI does, for Meridian to find its id (harness.FindSession): from
// the first message on (the initial prompt, else the first line typed;
// /exit is not one), under $HOME or the CLI's own variable:
//
//	claude    $CLAUDE_CONFIG_DIR or ~/.claude: projects/<slug of the working directory>/<id>.jsonl,
//	          every line with "sessionId" (a resumed session's file is appended to)
//	codex     $CODEX_HOME or ~/.codex: sessions/YYYY/MM/DD/rollout-<start>-<id>.jsonl, first line
//	          {"type":"session_meta","payload":{"id":…,"cwd":…}} (a resumed session's file is appended to)
//	opencode  $XDG_DATA_HOME or ~/.local/share: opencode/log/opencode.log gets
//	          "… message=created id=<id> … directory=<dir> …" for a new or forked session
//	gemini    nothing: Meridian gives it --session-id
//
// The working directory written is the one with symbolic links resolved,
// as the real CLIs see it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("FAKE_HARNESS_MODE") == sleepForeverMode {
		// The child a hanging harness starts: it only has to exist.
		for {
			time.Sleep(time.Hour)
		}
	}
	cwd, _ := os.Getwd()
	h := host{
		args:        os.Args,
		stdin:       os.Stdin,
		stdout:      os.Stdout,
		stderr:      os.Stderr,
		getenv:      os.Getenv,
		cwd:         cwd,
		stdinIsTTY:  isTerminal(os.Stdin),
		stdoutIsTTY: isTerminal(os.Stdout),
	}
	os.Exit(run(h))
}

// host is everything the fake takes from its process.
type host struct {
	args        []string
	stdin       io.Reader
	stdout      io.Writer
	stderr      io.Writer
	getenv      func(string) string
	cwd         string
	stdinIsTTY  bool
	stdoutIsTTY bool
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// harnessName is the CLI to be: $FAKE_HARNESS_AS, else the program's name.
func harnessName(h host) string {
	if as := h.getenv("FAKE_HARNESS_AS"); as != "" {
		return as
	}
	return strings.TrimSuffix(filepath.Base(h.args[0]), ".exe")
}

// run is the whole program; it returns the exit code.
func run(h host) int {
	name := harnessName(h)
	cli, ok := clis[name]
	if !ok {
		fmt.Fprintf(h.stderr, "fakeharness: run me as claude, codex, opencode or gemini (or set FAKE_HARNESS_AS), not %q\n", name)
		return 2
	}
	rec := newRecorder(h, name)
	inv, fail := cli.parse(h.args[1:], h)
	if fail != nil {
		rec.write("", 0)
		io.WriteString(h.stderr, fail.stderr)
		return fail.code
	}
	if inv.print != "" {
		rec.write("", 0)
		io.WriteString(h.stdout, inv.print)
		return 0
	}
	if inv.interactive {
		rec.write("interactive", 0)
		return interact(h, name, inv)
	}

	stdin := ""
	if !h.stdinIsTTY {
		b, err := io.ReadAll(h.stdin)
		if err != nil {
			fmt.Fprintf(h.stderr, "fakeharness: read stdin: %v\n", err)
			return 1
		}
		stdin = string(b)
	}
	rec.stdin = stdin
	prompt := stdin
	if inv.combine != nil {
		prompt = inv.combine(inv.prompt, stdin)
	}
	if inv.check != nil {
		if f := inv.check(prompt); f != nil {
			rec.write("", 0)
			io.WriteString(h.stderr, f.stderr)
			return f.code
		}
	}

	m, err := chooseMode(prompt, h.getenv("FAKE_HARNESS_MODE"))
	if err != nil {
		rec.write("", 0)
		fmt.Fprintf(h.stderr, "fakeharness: %v\n", err)
		return 2
	}
	childPID := 0
	if m.name == "hang" {
		pid, err := startSleeper()
		if err != nil {
			fmt.Fprintf(h.stderr, "fakeharness: start child: %v\n", err)
			return 1
		}
		childPID = pid
	}
	rec.write(m.String(), childPID)
	inv.input = prompt

	session := inv.session(cli)
	out := bufio.NewWriterSize(h.stdout, 64<<10)
	defer out.Flush()
	s := cli.stream(inv, session, &lineWriter{w: out})
	return perform(h, m, s, prompt, name, inv)
}

// failure is a refusal: what goes to stderr and the exit code.
type failure struct {
	stderr string
	code   int
}

// invocation is what a command line asks the fake for.
type invocation struct {
	print       string // --version/--help: print this and exit 0
	interactive bool
	prompt      string                         // the prompt given on the command line
	input       string                         // the whole prompt, once stdin is read
	combine     func(arg, stdin string) string // how the CLI joins that and stdin (nil: stdin only)
	check       func(prompt string) *failure   // the CLI's refusals once the input is known
	resumeID    string
	fork        bool
	sessionID   string // --session-id: the id a new (or forked) session gets
	model       string
	format      string // "events", "text" or "json"
	reportFile  string // codex -o
	// permissionMode is the permission or approval mode the first event
	// reports.
	permissionMode string
}

// session is the run's session id: the one resumed, else the one asked
// for with --session-id, else a fresh one.
func (inv *invocation) session(cli harnessCLI) string {
	switch {
	case inv.resumeID != "" && !inv.fork:
		return inv.resumeID
	case inv.sessionID != "":
		return inv.sessionID
	}
	return cli.newSessionID()
}

// harnessCLI is one CLI the fake can be.
type harnessCLI interface {
	parse(args []string, h host) (*invocation, *failure)
	newSessionID() string
	stream(inv *invocation, session string, w *lineWriter) stream
}

var clis = map[string]harnessCLI{
	"claude":   claudeCLI{},
	"codex":    codexCLI{},
	"opencode": openCodeCLI{},
	"gemini":   geminiCLI{},
}

const sleepForeverMode = "sleep-forever"

// startSleeper starts this program again, sleeping, in our process group
// (the default for a child) with no stdio of ours, and returns its pid.
func startSleeper() (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	env := append(os.Environ(), "FAKE_HARNESS_MODE="+sleepForeverMode)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	//duetvet:allow rawexec -- a test double of a harness, re-executing itself
	p, err := os.StartProcess(self, []string{self}, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{devnull, devnull, devnull},
		Sys:   &syscall.SysProcAttr{},
	})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	_ = p.Release()
	return pid, nil
}
