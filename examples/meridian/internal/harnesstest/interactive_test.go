package harnesstest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/duet-cli/duet/examples/meridian/internal/harness"
)

// terminal is a process on a pseudo-terminal, with everything it printed.
type terminal struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

// place is where a fake runs: its working directory and its environment
// (the test's, with HOME and the CLIs' own directory variables replaced),
// so that the session files interactive mode writes stay in the test.
type place struct {
	dir string
	env map[string]string // HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME ("" = unset)
}

func newPlace(t *testing.T) place {
	return place{dir: t.TempDir(), env: map[string]string{"HOME": t.TempDir()}}
}

func (p place) environ() []string {
	var env []string
	for _, kv := range inherited() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains([]string{"HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "PWD"}, k) {
			env = append(env, kv)
		}
	}
	for k, v := range p.env {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// search is a harness.SessionSearch for a run in p started at since.
func (p place) search(since time.Time) harness.SessionSearch {
	return harness.SessionSearch{Home: p.env["HOME"], Getenv: func(k string) string { return p.env[k] }, Dir: p.dir, Since: since}
}

func startTerminal(t *testing.T, args []string) *terminal {
	t.Helper()
	return startTerminalIn(t, newPlace(t), args)
}

func startTerminalIn(t *testing.T, p place, args []string) *terminal {
	t.Helper()
	c := exec.Command(args[0], args[1:]...)
	c.Dir = p.dir
	c.Env = p.environ()
	tty, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, tty: tty, cmd: c, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = c.Process.Kill()
		tty.Close()
	})
	return term
}

// waitFor waits until the output contains s.
func (term *terminal) waitFor(s string) {
	term.t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		term.mu.Lock()
		ok := strings.Contains(term.out.String(), s)
		term.mu.Unlock()
		if ok {
			return
		}
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	term.t.Fatalf("no %q in the terminal; it shows:\n%s", s, term.out.String())
}

func (term *terminal) typeLine(s string) {
	term.t.Helper()
	if _, err := io.WriteString(term.tty, s); err != nil {
		term.t.Fatal(err)
	}
}

// exitCode waits for the process to end.
func (term *terminal) exitCode() int {
	term.t.Helper()
	waited := make(chan error, 1)
	go func() { waited <- term.cmd.Wait() }()
	select {
	case err := <-waited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			term.t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		term.t.Fatal("the session did not end")
		return -1
	}
}

func TestInteractive(t *testing.T) {
	bin := Install(t)
	for _, h := range harness.All() {
		t.Run(h.Name(), func(t *testing.T) {
			exe := filepath.Join(bin, h.Name())

			t.Run("exit", func(t *testing.T) {
				cmd, _ := h.Build(exe, harness.Request{Model: "m", Interactive: true})
				term := startTerminal(t, cmd.Args)
				term.waitFor("fake " + h.Name() + " interactive session ")
				term.typeLine("hello there\n")
				term.waitFor("you said: hello there")
				term.typeLine("/exit\n")
				if code := term.exitCode(); code != 0 {
					t.Errorf("exit %d after /exit", code)
				}
			})

			t.Run("end of input, resumed, initial prompt", func(t *testing.T) {
				id := "0199a213-81c0-7800-8aa1-bbab2a035a53"
				if h.Name() == harness.OpenCode {
					id = "ses_0a1b2c3d4e5fABCDEFGHIJKLMN"
				}
				cmd, _ := h.Build(exe, harness.Request{Interactive: true, ResumeID: id, Prompt: "-pick up where we left off"})
				term := startTerminal(t, cmd.Args)
				term.waitFor("interactive session " + id)
				term.waitFor("you said: -pick up where we left off")
				term.typeLine("\x04") // ^D at the start of a line: end of input
				if code := term.exitCode(); code != 0 {
					t.Errorf("exit %d at end of input", code)
				}
			})
		})
	}
}

var bannerID = regexp.MustCompile(`interactive session (\S+)\r?\n`)

// sessionID is the id the banner shows.
func (term *terminal) sessionID() string {
	term.t.Helper()
	term.waitFor("type /exit")
	term.mu.Lock()
	defer term.mu.Unlock()
	m := bannerID.FindStringSubmatch(term.out.String())
	if m == nil {
		term.t.Fatalf("no session id in the banner:\n%s", term.out.String())
	}
	return m[1]
}

// TestInteractiveSessionIsFound: an interactive fake keeps its session
// where the real CLI does, and harness.FindSession finds it there: from
// the first message on, in the home it was given or under the CLI's own
// variable, through a symbolic link to the working directory, and again
// when the session is resumed (except for opencode, which logs only a
// session's creation). Gemini is given its id instead.
func TestInteractiveSessionIsFound(t *testing.T) {
	bin := Install(t)
	own := map[string]string{harness.Claude: "CLAUDE_CONFIG_DIR", harness.Codex: "CODEX_HOME", harness.OpenCode: "XDG_DATA_HOME"}
	for _, h := range harness.All() {
		for _, variable := range []bool{false, true} {
			if variable && own[h.Name()] == "" {
				continue
			}
			name := h.Name() + "/home"
			if variable {
				name = h.Name() + "/" + own[h.Name()]
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				exe := filepath.Join(bin, h.Name())
				p := newPlace(t)
				if variable {
					p.env[own[h.Name()]] = t.TempDir()
				}
				// The CLIs record the directory with links resolved;
				// Meridian knows the one it started them in.
				link := filepath.Join(t.TempDir(), "link")
				if err := os.Symlink(p.dir, link); err != nil {
					t.Fatal(err)
				}
				p.dir = link

				seeded := harness.NewSessionID()
				since := time.Now()
				cmd, _ := h.Build(exe, harness.Request{Interactive: true, SessionID: seeded})
				term := startTerminalIn(t, p, cmd.Args)
				id := term.sessionID()
				if h.Supports(harness.FieldSessionID) && id != seeded {
					t.Errorf("banner shows session %q, want the one given, %q", id, seeded)
				}
				if _, err := h.FindSession(p.search(since)); !errors.Is(err, harness.ErrNoSession) {
					t.Errorf("before the first message: FindSession error %v, want ErrNoSession", err)
				}
				term.typeLine("hello\n")
				term.waitFor("you said: hello")
				got, err := h.FindSession(p.search(since))
				if h.Name() == harness.Gemini {
					if !errors.Is(err, harness.ErrNoSession) {
						t.Errorf("FindSession = %q, %v; want ErrNoSession (gemini's id is given)", got, err)
					}
					return
				}
				if err != nil || got != id {
					t.Fatalf("FindSession = %q, %v; want the banner's %q", got, err, id)
				}
				term.typeLine("/exit\n")
				if code := term.exitCode(); code != 0 {
					t.Fatalf("exit %d", code)
				}

				// FindSession compares times to the second, less the lag
				// of file clocks: start the resumed run in a second of its
				// own, clear of that lag, so that only what it writes counts.
				time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
				since = time.Now()
				cmd, _ = h.Build(exe, harness.Request{Interactive: true, ResumeID: id, Prompt: "again"})
				term = startTerminalIn(t, p, cmd.Args)
				term.waitFor("you said: again")
				got, err = h.FindSession(p.search(since))
				if h.Name() == harness.OpenCode {
					if !errors.Is(err, harness.ErrNoSession) {
						t.Errorf("resumed: FindSession = %q, %v; want ErrNoSession (opencode logs no creation)", got, err)
					}
				} else if err != nil || got != id {
					t.Errorf("resumed: FindSession = %q, %v; want %q", got, err, id)
				}
			})
		}
	}
}

// TestNonInteractiveWithoutTerminal: without a terminal the interactive
// command lines do what the real CLIs do (codex refuses, claude and
// gemini answer as in print mode).
func TestNonInteractiveWithoutTerminal(t *testing.T) {
	bin := Install(t)
	tests := map[string]struct {
		code   int
		stdout string
		stderr string
	}{
		harness.Claude: {0, "fake claude report: hi\n", ""},
		harness.Codex:  {1, "", "Error: stdin is not a terminal\n"},
		harness.Gemini: {0, "fake gemini report: hi\n", ""},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			h, _ := harness.Lookup(name)
			cmd, _ := h.Build(filepath.Join(bin, name), harness.Request{Interactive: true})
			c := exec.Command(cmd.Args[0], cmd.Args[1:]...)
			c.Dir = t.TempDir()
			c.Env = append(inherited(), "GEMINI_CLI_TRUST_WORKSPACE=true")
			c.Stdin = strings.NewReader("hi")
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			err := c.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			}
			if code != want.code || stdout.String() != want.stdout || stderr.String() != want.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), want.code, want.stdout, want.stderr)
			}
		})
	}
}
