package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// rejected matches each CLI's own words for an argv its parser refuses:
// commander (claude), clap (codex), yargs (gemini; opencode prints its
// usage instead of a message), and the CLIs' refusals of a --session-id.
var rejected = map[string]*regexp.Regexp{
	Claude:   regexp.MustCompile(`error: unknown option|error: too many arguments|error: option '[^']*' argument|error: missing required argument|requires --verbose|Invalid session ID|--session-id can only be used`),
	Codex:    regexp.MustCompile(`error: unexpected argument|error: invalid value|error: unrecognized subcommand|error: the argument '[^']*' cannot be used|error: a value is required`),
	OpenCode: regexp.MustCompile(`(?m)^Positionals:|Unknown argument|Not enough arguments|Invalid values:`),
	Gemini:   regexp.MustCompile(`Unknown arguments?:|Invalid values:|Not enough arguments|mutually exclusive|Error starting session`),
}

// realCLI finds the installed CLI name: in $MERIDIAN_REAL_HARNESS_BIN, else
// on PATH; a fake harness (cmd/fakeharness) found there is not a real one.
func realCLI(t *testing.T, name string) (string, bool) {
	t.Helper()
	exe := ""
	if dir := os.Getenv("MERIDIAN_REAL_HARNESS_BIN"); dir != "" {
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			exe = p
		}
	} else if p, err := exec.LookPath(name); err == nil {
		exe = p
	}
	if exe == "" {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "--version")
	cmd.Env = offlineEnv(t.TempDir(), "")
	out, err := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("fakeharness")) {
		return "", false
	}
	t.Logf("%s --version: %s (err %v)", exe, bytes.TrimSpace(out), err)
	return exe, true
}

// offlineEnv is a bare environment with home as HOME and every proxy
// pointing at a closed local port, so the CLIs cannot reach the network;
// the dummy API keys get them past their "not logged in" checks to where
// they print their first event. OpenCode prints its first event only when
// the model call has failed, and it retries an unreachable API for over a
// minute, so its Anthropic provider is pointed at refuse, a local server
// that answers 400 at once.
func offlineEnv(home, refuse string) []string {
	const nowhere = "http://127.0.0.1:9"
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + home,
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"HTTPS_PROXY=" + nowhere, "HTTP_PROXY=" + nowhere, "ALL_PROXY=" + nowhere,
		"https_proxy=" + nowhere, "http_proxy=" + nowhere, "all_proxy=" + nowhere,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"ANTHROPIC_API_KEY=meridian-test", "OPENAI_API_KEY=meridian-test",
		"CODEX_API_KEY=meridian-test", "GEMINI_API_KEY=meridian-test",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	if refuse != "" {
		env = append(env, `OPENCODE_CONFIG_CONTENT={"provider":{"anthropic":{"options":{"baseURL":"`+refuse+`"}}}}`)
	}
	return env
}

// refusingAPI answers every request with 400, a failure no CLI retries.
func refusingAPI(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"offline test server"}}`, http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// realRun is what one real CLI run printed.
type realRun struct {
	output    string // stdout and stderr (or the terminal), in order
	sessionID string // the first session id the harness's parser read
	exited    bool
}

// runReal starts cmd in its own process group (in a terminal when
// interactive) and kills the group once the parser reads a session id, the
// process exits, or wait runs out: offline, the CLIs retry forever.
func runReal(t *testing.T, h *Harness, cmd Command, interactive bool, refuse string, wait time.Duration) realRun {
	t.Helper()
	home := t.TempDir()
	work := t.TempDir()
	t.Cleanup(func() { killEscaped(t, home) })
	c := exec.Command(cmd.Args[0], cmd.Args[1:]...)
	c.Dir = work
	c.Env = append(offlineEnv(home, refuse), cmd.Env...)
	c.WaitDelay = 2 * time.Second // a grandchild holding the pipe must not hold the test

	var (
		mu     sync.Mutex
		out    bytes.Buffer
		gotID  = make(chan string, 1)
		parser = h.NewParser()
	)
	record := func(r io.Reader, parse bool) {
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadBytes('\n')
			mu.Lock()
			out.Write(line)
			mu.Unlock()
			if parse {
				if id := parser.Feed(line); id != "" {
					gotID <- id
				}
			}
			if err != nil {
				return
			}
		}
	}

	var readers sync.WaitGroup
	if interactive {
		tty, err := pty.StartWithSize(c, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			t.Fatalf("start %q in a terminal: %v", cmd.Args, err)
		}
		defer tty.Close()
		readers.Go(func() { record(tty, false) })
	} else {
		c.Stdin = strings.NewReader(cmd.Stdin)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stdout, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr, err := c.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatalf("start %q: %v", cmd.Args, err)
		}
		readers.Go(func() { record(stdout, true) })
		readers.Go(func() { record(stderr, false) })
	}

	exited := make(chan struct{})
	go func() {
		readers.Wait()
		close(exited)
	}()
	run := realRun{}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case run.sessionID = <-gotID:
	case <-exited:
		run.exited = true
	case <-timer.C:
	}
	// pty.Start and Setpgid both make the child a group leader.
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	if err := c.Wait(); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Logf("wait: %v", err)
		}
	}
	if run.sessionID == "" {
		select {
		case run.sessionID = <-gotID:
		default:
		}
	}
	mu.Lock()
	run.output = out.String()
	mu.Unlock()
	return run
}

// killEscaped kills the processes that run with HOME=home and left the
// process group runReal kills: codex in a terminal starts an app-server
// daemon in a session of its own, which would outlive the test.
func killEscaped(t *testing.T, home string) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return // no /proc: nothing to find them by
	}
	want := []byte("HOME=" + home + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, want) {
			t.Logf("killing process %d, which escaped its group", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestRealCLIsAcceptEveryArgv runs every golden command line against the
// installed CLIs and fails when one's argument parser refuses it. It also
// checks, with one bogus flag, that a refusal would be noticed, that a new
// run's first event gives the parser its session id, and that a run given
// --session-id reports that id.
func TestRealCLIsAcceptEveryArgv(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real harness CLIs; skipped with -short")
	}
	refuse := refusingAPI(t)
	found := 0
	for _, h := range All() {
		exe, ok := realCLI(t, h.Name())
		if !ok {
			t.Logf("%s is not installed (install: %s)", h.Name(), h.Install())
			continue
		}
		found++
		t.Run(h.Name(), func(t *testing.T) {
			t.Parallel()
			t.Run("bogus-flag-is-noticed", func(t *testing.T) {
				cmd, _ := h.Build(exe, buildCases[0].req(h.Name()))
				cmd.Args = append(cmd.Args, "--meridian-no-such-flag")
				run := runReal(t, h, cmd, false, refuse, 60*time.Second)
				if !rejected[h.Name()].MatchString(run.output) {
					t.Errorf("%q was not refused as expected; output:\n%s", cmd.Args, tail(run.output))
				}
			})
			for _, c := range buildCases {
				t.Run(c.name, func(t *testing.T) {
					req := c.req(h.Name())
					cmd, _ := h.Build(exe, req)
					// A new session given its id must report that id,
					// as a new one must report some id.
					wantID := ""
					if req.SessionID != "" && req.ResumeID == "" && !req.Interactive && h.Supports(FieldSessionID) {
						wantID = req.SessionID
					}
					wait := 8 * time.Second
					if c.name == "new" || wantID != "" {
						wait = 90 * time.Second
					}
					run := runReal(t, h, cmd, req.Interactive, refuse, wait)
					if m := rejected[h.Name()].FindString(run.output); m != "" {
						t.Fatalf("%s refused %q (%q); output:\n%s", h.Name(), cmd.Args, m, tail(run.output))
					}
					if c.name == "new" && run.sessionID == "" {
						t.Errorf("no session id in the stream of %q; output:\n%s", cmd.Args, tail(run.output))
					}
					if wantID != "" && run.sessionID != wantID {
						t.Errorf("session id %q in the stream of %q, want the one given, %q; output:\n%s", run.sessionID, cmd.Args, wantID, tail(run.output))
					}
					t.Logf("exited=%v session=%q output:\n%s", run.exited, run.sessionID, tail(run.output))
				})
			}
		})
	}
	if found == 0 {
		t.Skip("no real harness CLI installed (put them on PATH or in $MERIDIAN_REAL_HARNESS_BIN; see README.md)")
	}
}

func tail(s string) string {
	const n = 3000
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
