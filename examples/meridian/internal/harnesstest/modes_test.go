package harnesstest

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ran is one finished fake harness process.
type ran struct {
	stdout  []byte
	stderr  string
	code    int
	elapsed time.Duration
	result  harness.Result
	ids     []string // what the parser's Feed reported
}

// runFake runs cmd (built by harness.Build with a fake's path) in its own
// process group and parses its stdout with h's parser.
// inherited is the test process's environment without MERIDIAN_* and
// FAKE_HARNESS_* variables: each test sets the ones the fake should see and
// record, whatever the machine running the tests has set.
func inherited() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MERIDIAN_") && !strings.HasPrefix(kv, "FAKE_HARNESS_") {
			env = append(env, kv)
		}
	}
	return env
}

func runFake(t *testing.T, h *harness.Harness, cmd harness.Command, env ...string) ran {
	t.Helper()
	c := exec.Command(cmd.Args[0], cmd.Args[1:]...)
	c.Dir = t.TempDir()
	c.Env = append(append(inherited(), cmd.Env...), env...)
	c.Stdin = strings.NewReader(cmd.Stdin)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	start := time.Now()
	err := c.Run()
	r := ran{stdout: stdout.Bytes(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %q: %v", cmd.Args, err)
	}
	p := h.NewParser()
	br := bufio.NewReader(bytes.NewReader(r.stdout))
	for {
		line, err := br.ReadBytes('\n')
		if id := p.Feed(line); id != "" {
			r.ids = append(r.ids, id)
		}
		if err != nil {
			break
		}
	}
	r.result = p.Result()
	return r
}

// expected is what the fake's doc says a successful run reports.
func expected(name, prompt string) harness.Result {
	first := ""
	for _, l := range strings.Split(regexp.MustCompile(`\[fake:[^\]]*\]`).ReplaceAllString(prompt, ""), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			first = l
			break
		}
	}
	report := "fake " + name + " report: " + first
	in, out := int64(len(prompt)), int64(len(report))
	cached := in / 2
	r := harness.Result{Report: report, InputTokens: &in, OutputTokens: &out, CachedTokens: &cached, Completed: true}
	if name == harness.Claude || name == harness.OpenCode {
		cost := float64(3*in+15*out) / 1e6
		r.CostUSD = &cost
	}
	return r
}

var ignoreSession = cmpopts.IgnoreFields(harness.Result{}, "SessionID")

func TestModes(t *testing.T) {
	bin := Install(t)
	for _, h := range harness.All() {
		t.Run(h.Name(), func(t *testing.T) {
			t.Parallel()
			exe := filepath.Join(bin, h.Name())
			build := func(prompt string) harness.Command {
				cmd, warn := h.Build(exe, harness.Request{Model: "some-model", Prompt: prompt})
				if len(warn) != 0 {
					t.Fatalf("unexpected warnings %v", warn)
				}
				return cmd
			}

			t.Run("success", func(t *testing.T) {
				prompt := "Review the parser.\nSecond line."
				r := runFake(t, h, build(prompt))
				if r.code != 0 {
					t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
				}
				if diff := cmp.Diff(expected(h.Name(), prompt), r.result, ignoreSession); diff != "" {
					t.Errorf("parsed (-want +got):\n%s", diff)
				}
				if len(r.ids) != 1 || r.ids[0] != r.result.SessionID || r.result.SessionID == "" {
					t.Errorf("session ids from Feed %q, result %q", r.ids, r.result.SessionID)
				}
				// The session id is on the first line, as with the real CLIs.
				first, _, _ := bytes.Cut(r.stdout, []byte("\n"))
				if !bytes.Contains(first, []byte(r.result.SessionID)) {
					t.Errorf("first line %s does not carry the session id %s", first, r.result.SessionID)
				}
			})

			t.Run("fail", func(t *testing.T) {
				r := runFake(t, h, build("[fake:fail] Review the parser."))
				want := harness.Result{Error: "fake " + h.Name() + " failure: Review the parser.", Completed: true}
				// Claude and Gemini state zero usage (and Claude a zero
				// cost) with their failure.
				zero, zeroCost := int64(0), 0.0
				switch h.Name() {
				case harness.Claude:
					want.Error = "API Error: " + want.Error
					want.InputTokens, want.OutputTokens, want.CachedTokens, want.CostUSD = &zero, &zero, &zero, &zeroCost
				case harness.Gemini:
					want.InputTokens, want.OutputTokens, want.CachedTokens = &zero, &zero, &zero
				}
				if r.code != 1 {
					t.Errorf("exit %d, want 1", r.code)
				}
				if diff := cmp.Diff(want, r.result, ignoreSession); diff != "" {
					t.Errorf("parsed (-want +got):\n%s", diff)
				}
				if r.result.SessionID == "" {
					t.Error("no session id")
				}
			})

			t.Run("crash", func(t *testing.T) {
				r := runFake(t, h, build("[fake:crash] Review the parser."))
				if r.code != 70 {
					t.Errorf("exit %d, want 70", r.code)
				}
				if len(r.stdout) == 0 || r.stdout[len(r.stdout)-1] == '\n' {
					t.Errorf("stdout should end in half a line: %q", tailOf(r.stdout))
				}
				if r.result.Completed || r.result.SessionID == "" {
					t.Errorf("parsed %+v, want a session id and no terminal event", r.result)
				}
			})

			t.Run("huge", func(t *testing.T) {
				const total = 3 << 20
				prompt := "[fake:huge] Review the parser."
				r := runFake(t, h, build(prompt), "FAKE_HARNESS_HUGE_BYTES="+strconv.Itoa(total))
				if r.code != 0 {
					t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
				}
				longest := 0
				for _, l := range bytes.Split(r.stdout, []byte("\n")) {
					longest = max(longest, len(l))
				}
				if len(r.stdout) < total || longest < 2<<20 {
					t.Errorf("stdout %d bytes, longest line %d; want >= %d and >= 2 MiB", len(r.stdout), longest, total)
				}
				if diff := cmp.Diff(expected(h.Name(), prompt), r.result, ignoreSession); diff != "" {
					t.Errorf("parsed (-want +got):\n%s", diff)
				}
			})

			t.Run("sleep", func(t *testing.T) {
				prompt := "[fake:sleep=300ms] Review the parser."
				r := runFake(t, h, build(prompt))
				if r.code != 0 || r.elapsed < 300*time.Millisecond {
					t.Errorf("exit %d after %v, want 0 after >= 300ms", r.code, r.elapsed)
				}
				if diff := cmp.Diff(expected(h.Name(), prompt), r.result, ignoreSession); diff != "" {
					t.Errorf("parsed (-want +got):\n%s", diff)
				}
			})

			t.Run("stderr", func(t *testing.T) {
				r := runFake(t, h, build("Review the parser."), "FAKE_HARNESS_MODE=stderr")
				if r.code != 1 || len(r.stdout) != 0 || strings.Count(r.stderr, "\n") < 3 {
					t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, several lines", r.code, r.stdout, r.stderr)
				}
			})

			t.Run("directive beats environment", func(t *testing.T) {
				prompt := "[fake:success] Review the parser."
				r := runFake(t, h, build(prompt), "FAKE_HARNESS_MODE=fail")
				if diff := cmp.Diff(expected(h.Name(), prompt), r.result, ignoreSession); r.code != 0 || diff != "" {
					t.Errorf("exit %d; parsed (-want +got):\n%s", r.code, diff)
				}
			})
		})
	}
}

func tailOf(b []byte) []byte {
	if len(b) > 200 {
		return b[len(b)-200:]
	}
	return b
}

// TestDefaultHugeIsTenMiB runs huge mode once at its default size.
func TestDefaultHugeIsTenMiB(t *testing.T) {
	bin := Install(t)
	h, _ := harness.Lookup(harness.Codex)
	cmd, _ := h.Build(filepath.Join(bin, h.Name()), harness.Request{Prompt: "[fake:huge] go"})
	r := runFake(t, h, cmd)
	if r.code != 0 || len(r.stdout) < 10<<20 || !r.result.Completed {
		t.Errorf("exit %d, %d bytes, completed %v; want 0, >= 10 MiB, true", r.code, len(r.stdout), r.result.Completed)
	}
}
