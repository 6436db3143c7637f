//go:build linux

// Package e2e drives e2eapp — Duet's end-to-end fixture, internal/e2eapp —
// as a built binary, black-box, the way an agent does (pipes, an
// environment, signals) or a person does (a pseudo-terminal), and shows,
// criterion by criterion, the requirements of the CLI Agent Spec v1.16 whose
// proof was in-process only. Each test names the requirement and the
// criterion it shows. Where Duet does not do what a criterion asks, the test
// recognises what Duet does instead, skips with "GAP (library): …" naming
// the code at fault, and otherwise asserts the criterion: it passes the day
// the gap is closed, and fails if Duet does anything else (see gap below).
// `go test -v` lists the gaps.
//
// TestMain builds e2eapp and e2eapp-misdeclared once. Every run gets an
// environment made from nothing but PATH and a home of its own, so the
// machine running the tests (CI, NO_COLOR, an agent's markers) cannot change
// the audience Duet detects.
//
// The package is Linux-only, as the pty (internal/ptytest), named pipes and
// process groups are.
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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/internal/ptytest"
)

var (
	// e2eapp is the fixture's binary; misdeclared is e2eapp with one more
	// command declared as E2EAPP_MISDECLARE says.
	e2eapp, misdeclared string
	// binDir holds the binaries, for those built on demand too.
	binDir string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "e2eapp-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	binDir = dir
	e2eapp, misdeclared = filepath.Join(dir, "e2eapp"), filepath.Join(dir, "e2eapp-misdeclared")
	for bin, pkg := range map[string]string{
		e2eapp:      "github.com/duet-cli/duet/internal/e2eapp/cmd/e2eapp",
		misdeclared: "github.com/duet-cli/duet/internal/e2eapp/cmd/e2eapp-misdeclared",
	} {
		if err := goBuild(bin, pkg); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func goBuild(bin, pkg string) error {
	build := exec.Command("go", "build", "-o", bin, pkg)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return nil
}

// onDemand builds a binary the first time a test needs it: todo (another
// app, whose bare invocation is help) and duetvet (Duet's analyzers).
type onDemand struct {
	pkg  string
	once sync.Once
	path string
	err  error
}

var (
	todo    = &onDemand{pkg: "github.com/duet-cli/duet/examples/todo/cmd/todo"}
	duetvet = &onDemand{pkg: "github.com/duet-cli/duet/lint/cmd/duetvet"}
)

func (b *onDemand) bin(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		b.path = filepath.Join(binDir, filepath.Base(b.pkg))
		b.err = goBuild(b.path, b.pkg)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// ===========================================================================
// A sandbox: a home of the run's own and an environment made from nothing.

type sandbox struct {
	bin string // the binary under test
	dir string // everything a run writes is under it
	env []string
}

func newSandbox(t *testing.T) *sandbox { return sandboxFor(t, e2eapp) }

func sandboxFor(t *testing.T, bin string) *sandbox {
	t.Helper()
	dir := t.TempDir()
	sb := &sandbox{bin: bin, dir: dir}
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	sb.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "home", ".config"),
		"TMPDIR=" + tmp,
		"TERM=xterm-256color", // for pty runs; cases override it
	}
	return sb
}

// path is a path in the sandbox.
func (sb *sandbox) path(elem ...string) string {
	return filepath.Join(append([]string{sb.dir}, elem...)...)
}

// result is what one run left behind.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// run runs the binary with stdout and stderr on pipes and stdin empty, as
// an agent does, in the sandbox's directory.
func (sb *sandbox) run(t *testing.T, args ...string) result {
	t.Helper()
	return sb.runEnv(t, nil, args...)
}

// runEnv is run with extra environment; exec uses the last value of a
// duplicated key, so extra overrides the sandbox.
func (sb *sandbox) runEnv(t *testing.T, extra []string, args ...string) result {
	t.Helper()
	return sb.runIn(t, sb.dir, extra, args...)
}

// runIn is runEnv in dir.
func (sb *sandbox) runIn(t *testing.T, dir string, extra []string, args ...string) result {
	t.Helper()
	cmd := sb.command(dir, extra, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return wait(t, cmd, &stdout, &stderr)
}

// command is the exec.Cmd of a run.
func (sb *sandbox) command(dir string, extra []string, args ...string) *exec.Cmd {
	cmd := exec.Command(sb.bin, args...)
	cmd.Env, cmd.Dir = append(slices.Clone(sb.env), extra...), dir
	return cmd
}

// wait runs cmd, bounded by a minute (a bound on a hang, not an
// assertion), and returns what it left.
func wait(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) result {
	t.Helper()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%q did not finish within a minute\nstdout: %s\nstderr: %s", cmd.Args, stdout, stderr)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err), took: time.Since(start)}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode() // -1 when a signal killed the process
	}
	return -2
}

// pty starts the binary on a pseudo-terminal, as a person's shell does.
func (sb *sandbox) pty(t *testing.T, extra []string, args ...string) *ptytest.Session {
	t.Helper()
	return ptytest.Start(t, sb.command(sb.dir, extra, args...))
}

// ptyStaying is pty with the binary run by a shell that outlives it by a
// second, as a person's shell does: a program e2eapp leaves running (a
// browser) is not hung up on the moment e2eapp exits, which ends the
// session ptytest gives it.
func (sb *sandbox) ptyStaying(t *testing.T, extra []string, args ...string) *ptytest.Session {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `"$0" "$@"; code=$?; sleep 1; exit $code`, sb.bin}, args...)...)
	cmd.Env, cmd.Dir = append(slices.Clone(sb.env), extra...), sb.dir
	return ptytest.Start(t, cmd)
}

// script writes an executable shell script into the sandbox and returns
// its path. (A script run as a program, never sh -c.)
func (sb *sandbox) script(t *testing.T, name, body string) string {
	t.Helper()
	p := sb.path(name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(raw)
}

// ===========================================================================
// Envelopes.

var upperSnake = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// expect checks a run's exit code and that stdout is one envelope that
// agrees with it (ok, error, meta.exit_code), and returns it decoded.
func expect(t *testing.T, what string, r result, code int) map[string]any {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
	}
	raw := jsontest.One(t, []byte(r.stdout))
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s: stdout is not one JSON object: %v\n%s", what, err, r.stdout)
	}
	if diff := cmp.Diff([]string{"data", "error", "meta", "ok", "warnings"}, keys(env)); diff != "" {
		t.Errorf("%s: envelope keys (-want +got):\n%s", what, diff)
	}
	if ok := env["ok"] == true; ok != (r.code == 0) {
		t.Errorf("%s: ok is %v with exit code %d", what, env["ok"], r.code)
	}
	if got := get(env, "meta.exit_code"); got != float64(r.code) {
		t.Errorf("%s: meta.exit_code is %v with exit code %d", what, got, r.code)
	}
	if e, isErr := env["error"].(map[string]any); r.code != 0 {
		if !isErr {
			t.Errorf("%s: exit %d without an error object", what, r.code)
		} else if s, _ := e["code"].(string); !upperSnake.MatchString(s) {
			t.Errorf("%s: error.code %q is not UPPER_SNAKE", what, s)
		} else if _, ok := e["retryable"].(bool); !ok {
			t.Errorf("%s: error.retryable is %v, not a boolean (REQ-C-014)", what, e["retryable"])
		}
	} else if env["error"] != nil {
		t.Errorf("%s: exit 0 with an error: %v", what, env["error"])
	}
	return env
}

// want holds env to the values at want's dot paths. JSON numbers decode as
// float64: spell them 1.0.
func want(t *testing.T, what string, env map[string]any, want map[string]any) {
	t.Helper()
	got := make(map[string]any, len(want))
	for path := range want {
		got[path] = get(env, path)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: envelope (-want +got):\n%s", what, diff)
	}
}

// get follows a dot path through decoded JSON; a number indexes an array.
// A key holding a dot is not reachable.
func get(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// warningCodes are the codes of an envelope's warnings.
func warningCodes(env map[string]any) []string {
	var codes []string
	list, _ := env["warnings"].([]any)
	for _, w := range list {
		code, _ := get(w, "code").(string)
		codes = append(codes, code)
	}
	return codes
}

// schemaOf returns a command's --schema document.
func (sb *sandbox) schemaOf(t *testing.T, command ...string) map[string]any {
	t.Helper()
	env := expect(t, strings.Join(command, " ")+" --schema", sb.run(t, append(command, "--schema")...), 0)
	doc, ok := env["data"].(map[string]any)
	if !ok {
		t.Fatalf("%s --schema: data is not an object: %v", command, env["data"])
	}
	return doc
}

// vetModule writes a Go module whose one file, main.go, is src, and runs
// the built duetvet on it as a user's CI would: it returns duetvet's output
// and its error (non-nil when it reports something).
func vetModule(t *testing.T, src string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module example.com/vetted\n\ngo 1.22\n", "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(bounded(t), duetvet.bin(t), "./...")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// delegates reports whether a manifest entry is a passthrough command's
// (REQ-C-031): every token after its path, --help and --schema included,
// is its tool's.
func delegates(entry any) bool { return get(entry, "arguments") == "passthrough" }

// manifest returns `e2eapp manifest`'s data.
func (sb *sandbox) manifest(t *testing.T) map[string]any {
	t.Helper()
	env := expect(t, "manifest", sb.run(t, "manifest"), 0)
	m, ok := env["data"].(map[string]any)
	if !ok {
		t.Fatalf("manifest: data is not an object: %v", env["data"])
	}
	return m
}

// flagNames are the names of a --schema document's flags.
func flagNames(doc map[string]any) []string {
	flags, _ := doc["flags"].(map[string]any)
	return keys(flags)
}

// ansi matches an ANSI escape sequence.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// mkfifo makes a named pipe in the sandbox.
func (sb *sandbox) mkfifo(t *testing.T, name string) string {
	t.Helper()
	p := sb.path(name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return p
}

// gap skips the rest of a test that has just seen Duet do, instead of what
// a criterion asks, what the report names as a library gap. The test goes
// on to assert what the criterion asks, so that it passes the day the gap
// is closed, and fails if Duet does anything else.
func gap(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Skipf("GAP (library): "+format, args...)
}

// bounded is a context for a helper process of a test.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
