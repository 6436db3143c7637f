// Package fidelitytest holds an app wrapped with Duet to the same app
// unwrapped: the same command line, input, environment and files give a
// person (on a pseudo-terminal) and a script (on pipes) the same bytes, exit
// code and files from both builds, and an agent gets exactly one envelope
// holding what the unwrapped build printed.
//
//	bare, wrapped := fidelitytest.Build(t, pkg, "bare"), fidelitytest.Build(t, pkg)
//	for _, c := range cases {
//		fidelitytest.SameForScript(t, bare, wrapped, c)
//	}
package fidelitytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/duet-cli/duet/envelope"

	"github.com/google/go-cmp/cmp"
)

// A Case is one run of an app.
type Case struct {
	Name  string
	Args  []string
	Stdin string
	Env   []string          // KEY=value, beside PATH, HOME and what Build's caller set
	Files map[string]string // created in the working directory before the run
}

// Outcome is what a run did: what it printed, how it ended, and the files
// it left in its working directory.
type Outcome struct {
	Stdout string
	Stderr string
	Exit   int               // -1 when a signal ended it
	Signal string            // the signal that ended it, if one did
	Files  map[string]string // the working directory after the run, by relative path
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Build builds the main package pkg with the given build tags, once per test
// binary, and returns the program's path.
func Build(t testing.TB, pkg string, tags ...string) string {
	t.Helper()
	key := pkg + " " + strings.Join(tags, ",")
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[key]; ok {
		return bin
	}
	dir, err := os.MkdirTemp("", "fidelitytest-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	//duetvet:allow rawexec -- a build step of the tests
	out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	built[key] = bin
	return bin
}

// Environ is the environment a case runs in: PATH, HOME (home), LANG and
// TERM from this process, and env. Nothing in it says an agent is running.
func Environ(home string, env ...string) []string {
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}
	if term := os.Getenv("TERM"); term != "" {
		base = append(base, "TERM="+term)
	}
	return append(base, env...)
}

// Agent is the environment a coding agent's shell adds: Claude Code's marker.
const Agent = "CLAUDECODE=1"

// Run runs bin with c in a new working directory on pipes, as a script
// does, and returns what it did. It fails the test when the run takes
// longer than a minute.
func Run(t testing.TB, bin string, c Case) Outcome {
	t.Helper()
	return RunIn(t, t.TempDir(), bin, c)
}

// RunIn is Run in dir, which must be empty; it is also the run's HOME.
// Two builds run in the same directory see the same paths.
func RunIn(t testing.TB, dir, bin string, c Case) Outcome {
	t.Helper()
	prepare(t, dir, c)
	//duetvet:allow rawexec -- runs the binary under test as a caller would
	cmd := exec.Command(bin, c.Args...)
	cmd.Dir = dir
	cmd.Env = Environ(dir, c.Env...)
	cmd.Stdin = strings.NewReader(c.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	o := Outcome{Stdout: stdout.String(), Stderr: stderr.String(), Files: Snapshot(t, dir)}
	o.Exit, o.Signal = status(cmd, err)
	return o
}

// prepare empties dir and writes c's files in it.
func prepare(t testing.TB, dir string, c Case) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range c.Files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func status(cmd *exec.Cmd, err error) (int, string) {
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return -1, err.Error()
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return cmd.ProcessState.ExitCode(), ""
}

// Snapshot reads every regular file under dir, by path relative to it.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// SameForScript runs c with both builds on pipes and fails the test unless
// they print the same bytes on stdout and stderr, end the same way and leave
// the same files.
func SameForScript(t testing.TB, bare, wrapped string, c Case) Outcome {
	t.Helper()
	dir := t.TempDir()
	want := RunIn(t, dir, bare, c)
	got := RunIn(t, dir, wrapped, c)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: a script gets something else from the wrapped build (-bare +wrapped):\n%s", describe(c), diff)
	}
	return want
}

// Envelope is what an agent reads on stdout.
type Envelope struct {
	OK       bool               `json:"ok"`
	Data     json.RawMessage    `json:"data"`
	Error    json.RawMessage    `json:"error"`
	Warnings []envelope.Warning `json:"warnings"`
	Meta     map[string]any     `json:"meta"`
}

// ForAgent runs c with the wrapped build as a coding agent would (its
// marker in the environment, on pipes) and returns the one envelope on
// stdout, failing the test unless stdout holds exactly one, with the five
// keys, whose ok and meta.exit_code agree with the exit code.
func ForAgent(t testing.TB, wrapped string, c Case) (Envelope, Outcome) {
	t.Helper()
	c.Env = append(c.Env[:len(c.Env):len(c.Env)], Agent)
	o := Run(t, wrapped, c)
	dec := json.NewDecoder(strings.NewReader(o.Stdout))
	var keys map[string]json.RawMessage
	if err := dec.Decode(&keys); err != nil {
		t.Fatalf("%s: stdout is not an envelope: %v\nstdout: %q\nstderr: %q", describe(c), err, o.Stdout, o.Stderr)
	}
	if dec.More() || strings.TrimSpace(o.Stdout[dec.InputOffset():]) != "" {
		t.Errorf("%s: stdout holds more than one envelope: %q", describe(c), o.Stdout)
	}
	if len(keys) != 5 {
		t.Errorf("%s: the envelope has %d keys, want 5: %s", describe(c), len(keys), o.Stdout)
	}
	var env Envelope
	if err := json.Unmarshal([]byte(o.Stdout), &env); err != nil {
		t.Fatal(err)
	}
	if env.OK != (o.Exit == 0) {
		t.Errorf("%s: ok is %v with exit code %d", describe(c), env.OK, o.Exit)
	}
	if code, ok := env.Meta["exit_code"].(float64); !ok || int(code) != o.Exit {
		t.Errorf("%s: meta.exit_code is %v with exit code %d", describe(c), env.Meta["exit_code"], o.Exit)
	}
	return env, o
}

// Printed returns what an envelope holds of a command's own output: the
// text in data.stdout, or the JSON document data is ("" for null: the
// command printed nothing).
func (e Envelope) Printed() string {
	if string(e.Data) == "null" {
		return ""
	}
	var text struct {
		Stdout *string `json:"stdout"`
	}
	if json.Unmarshal(e.Data, &text) == nil && text.Stdout != nil {
		return *text.Stdout
	}
	return string(e.Data)
}

func describe(c Case) string {
	if c.Name != "" {
		return c.Name
	}
	return strings.Join(c.Args, " ")
}

// SameForAgent runs c with the wrapped build as an agent and fails the test
// unless its one envelope ends with exit code exit: on success holding what
// the bare build prints for a script — its JSON document, or its text — and
// leaving the same files; on failure with error.code code.
func SameForAgent(t testing.TB, bare, wrapped string, c Case, exit int, code string) Envelope {
	t.Helper()
	env, got := ForAgent(t, wrapped, c)
	if got.Exit != exit {
		t.Errorf("%s: exit %d for an agent, want %d: %s", describe(c), got.Exit, exit, got.Stdout)
	}
	if exit != 0 {
		var e struct{ Code string }
		if json.Unmarshal(env.Error, &e); e.Code != code {
			t.Errorf("%s: error.code %q, want %q: %s", describe(c), e.Code, code, got.Stdout)
		}
		return env
	}
	want := Run(t, bare, c)
	if printed := env.Printed(); printed != want.Stdout && !sameJSON(printed, want.Stdout) {
		t.Errorf("%s: data holds %q, want what the app prints: %q", describe(c), printed, want.Stdout)
	}
	if diff := cmp.Diff(want.Files, got.Files); diff != "" {
		t.Errorf("%s: the app left other files for an agent (-unwrapped +agent):\n%s", describe(c), diff)
	}
	return env
}

// sameJSON reports whether a and b are the same JSON document.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && cmp.Equal(x, y)
}
