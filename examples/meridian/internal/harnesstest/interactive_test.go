package harnesstest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

func startTerminal(t *testing.T, args []string) *terminal {
	t.Helper()
	c := exec.Command(args[0], args[1:]...)
	c.Dir = t.TempDir()
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
