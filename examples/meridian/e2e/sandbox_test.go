//go:build linux

// Package e2e drives the built meridian binary as an agent (pipes, JSON,
// MERIDIAN_SPACE_ID) and as a person (a pseudo-terminal) would, with fake
// harness programs first on PATH as claude, codex, opencode and gemini
// (internal/harnesstest). Every test gets its own project directory, HOME
// and PATH; the inherited environment cannot change the audience.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/internal/ptytest"
)

// bin is the meridian binary, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "meridian-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "meridian")
	build := exec.Command("go", "build", "-o", bin, "github.com/duet-cli/duet/examples/meridian/cmd/meridian")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build meridian:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandbox is one project: a directory with its own HOME, fake harnesses
// first on PATH, and a directory where the fakes record how they were called.
type sandbox struct {
	dir    string // the project root, the commands' working directory
	home   string
	record string
	env    []string
}

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	root := t.TempDir()
	sb := &sandbox{dir: filepath.Join(root, "project"), home: filepath.Join(root, "home"), record: filepath.Join(root, "record")}
	for _, d := range []string{sb.dir, sb.home, sb.record} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fakes := harnesstest.Install(t)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "CI", name == "NO_COLOR", name == "TERM", name == "HOME", name == "PATH",
			strings.HasPrefix(name, "XDG_"), strings.HasPrefix(name, "MERIDIAN_"), strings.HasPrefix(name, "FAKE_HARNESS_"):
			continue
		}
		sb.env = append(sb.env, kv)
	}
	sb.env = append(sb.env, "HOME="+sb.home, "PATH="+fakes+":"+os.Getenv("PATH"),
		"FAKE_HARNESS_RECORD="+sb.record, "TERM=xterm-256color")
	return sb
}

// with returns the sandbox's environment with extra settings on top (exec
// takes the last of a duplicated key).
func (sb *sandbox) with(extra ...string) []string { return append(slices.Clone(sb.env), extra...) }

type result struct {
	stdout, stderr string
	code           int
	cpu            time.Duration // user + system time of the process
}

// run runs meridian with stdout and stderr on pipes, as an agent does.
func (sb *sandbox) run(t testing.TB, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = env, sb.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("meridian %q did not finish in time; stderr %s", args, stderr.String())
	}
	r := result{stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err)}
	if cmd.ProcessState != nil {
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return r
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -2
}

// envelope is the one JSON object meridian writes for an agent.
type envelope struct {
	OK       bool            `json:"ok"`
	Data     json.RawMessage `json:"data"`
	Error    *errorObject    `json:"error"`
	Warnings []warning       `json:"warnings"`
	Meta     map[string]any  `json:"meta"`
}

// warning is one of an envelope's warnings: {code, message, context?}
// (ResponseEnvelope 2.x).
type warning struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Context map[string]any `json:"context,omitempty"`
}

// String is the warning as a person reads it on stderr.
func (w warning) String() string { return "WARNING [" + w.Code + "]: " + w.Message }

type errorObject struct {
	Code        string         `json:"code"`
	Message     string         `json:"message"`
	Suggestion  string         `json:"suggestion"`
	FixRequired string         `json:"fix_required"`
	FixCommand  string         `json:"fix_command"`
	Field       string         `json:"field"`
	ValidValues []string       `json:"valid_values"`
	Phase       string         `json:"phase"`
	Retryable   bool           `json:"retryable"`
	Context     map[string]any `json:"context"`
	Errors      []struct {
		Code, Field, Message string
	} `json:"errors"`
}

// agent runs meridian as an agent and reads its envelope, failing the test
// unless stdout is exactly one JSON object whose ok and meta.exit_code
// match the exit code, and whose warnings each have a code and a message.
func (sb *sandbox) agent(t testing.TB, env []string, args ...string) (envelope, result) {
	t.Helper()
	r := sb.run(t, env, args...)
	var env0 envelope
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&env0); err != nil {
		t.Fatalf("meridian %q: stdout is not one envelope: %v\nstdout %q\nstderr %q", args, err, r.stdout, r.stderr)
	}
	if dec.More() {
		t.Fatalf("meridian %q: more than one JSON value on stdout: %q", args, r.stdout)
	}
	if env0.OK != (r.code == 0) {
		t.Fatalf("meridian %q: ok %v with exit code %d", args, env0.OK, r.code)
	}
	if got, ok := env0.Meta["exit_code"].(float64); !ok || int(got) != r.code {
		t.Fatalf("meridian %q: meta.exit_code %v with exit code %d", args, env0.Meta["exit_code"], r.code)
	}
	for _, w := range env0.Warnings {
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(w.Code) || w.Message == "" {
			t.Errorf("meridian %q: warning %+v wants an UPPER_SNAKE code and a message", args, w)
		}
	}
	return env0, r
}

// ok is agent that expects success and decodes data into v.
func (sb *sandbox) ok(t testing.TB, env []string, v any, args ...string) envelope {
	t.Helper()
	e, r := sb.agent(t, env, args...)
	if !e.OK {
		t.Fatalf("meridian %q failed (exit %d): %+v\nstderr %s", args, r.code, e.Error, r.stderr)
	}
	if v != nil {
		if err := json.Unmarshal(e.Data, v); err != nil {
			t.Fatalf("meridian %q: data %s: %v", args, e.Data, err)
		}
	}
	return e
}

// fails is agent that expects the error code and exit code.
func (sb *sandbox) fails(t *testing.T, env []string, code string, exit int, args ...string) *errorObject {
	t.Helper()
	e, r := sb.agent(t, env, args...)
	if e.OK || e.Error == nil || e.Error.Code != code || r.code != exit {
		t.Fatalf("meridian %q: want %s (exit %d), got exit %d, error %+v\nstderr %s", args, code, exit, r.code, e.Error, r.stderr)
	}
	if e.Error.Message == "" {
		t.Errorf("meridian %q: %s has no message", args, code)
	}
	return e.Error
}

// invalid is agent that expects input refused in validation: exit 2,
// nothing run.
func (sb *sandbox) invalid(t *testing.T, env []string, args ...string) *errorObject {
	t.Helper()
	e, r := sb.agent(t, env, args...)
	if e.OK || e.Error == nil || r.code != 2 || e.Error.Phase != "validation" {
		t.Fatalf("meridian %q: want input refused (exit 2, phase validation), got exit %d, error %+v", args, r.code, e.Error)
	}
	return e.Error
}

// inSpace is the environment of an agent working in space id.
func (sb *sandbox) inSpace(id string, extra ...string) []string {
	return sb.with(append([]string{"MERIDIAN_SPACE_ID=" + id}, extra...)...)
}

// person runs meridian on a pseudo-terminal and returns what it showed.
func (sb *sandbox) person(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, sb.dir
	return ptytest.Start(t, cmd).Wait(t)
}

// plain removes the colour a terminal shows.
func plain(s string) string { return ansi.ReplaceAllString(s, "") }

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// spaceDir is .meridian/.spaces/<id>.
func (sb *sandbox) spaceDir(id string) string {
	return filepath.Join(sb.dir, ".meridian", ".spaces", id)
}

// events reads runs.jsonl of a space, failing on a line that is not a JSON object.
func (sb *sandbox) events(t *testing.T, space string) []map[string]any {
	t.Helper()
	return readJSONL(t, filepath.Join(sb.spaceDir(space), "runs.jsonl"))
}

// sessionEvents reads sessions.jsonl of a space.
func (sb *sandbox) sessionEvents(t *testing.T, space string) []map[string]any {
	t.Helper()
	return readJSONL(t, filepath.Join(sb.spaceDir(space), "sessions.jsonl"))
}

// chatEvents are the events of sessions.jsonl that start, change or end a
// chat: without the update naming each start's harness process.
func (sb *sandbox) chatEvents(t *testing.T, space string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ev := range sb.sessionEvents(t, space) {
		if ev["event"] == "update" && ev["harness_pid"] != nil && len(ev) == 4 { // v, event, session_id, harness_pid
			continue
		}
		out = append(out, ev)
	}
	return out
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%s line %q: %v", filepath.Base(path), line, err)
		}
		out = append(out, ev)
	}
	return out
}

// hasWarning reports whether a warning with code is among ws.
func hasWarning(ws []warning, code string) bool {
	return slices.ContainsFunc(ws, func(w warning) bool { return w.Code == code })
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// eventually waits up to 20 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
