//go:build linux

package proc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/proctest"
	"github.com/duet-cli/duet/proc"
)

// session returns a context carrying a new session with o, whose PID file
// goes in a directory of the test's; the session ends with the test.
func session(t *testing.T, o proc.Options) (context.Context, *proc.Session) {
	t.Helper()
	if o.TempDir == "" {
		o.TempDir = t.TempDir()
	}
	if o.RequestID == "" {
		o.RequestID = "req-1"
	}
	s := proc.NewSession(o)
	t.Cleanup(s.End)
	return proc.NewContext(context.Background(), s), s
}

// envOf runs the child with base as the session's environment and returns
// the values it saw of names (nil: unset).
func envOf(t *testing.T, ctx context.Context, bin string, cmdEnv []string, preserve bool, names ...string) map[string]*string {
	t.Helper()
	cmd := proc.Command(ctx, bin, append([]string{"env"}, names...)...)
	cmd.Env = cmdEnv
	cmd.PreserveLocale = preserve
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child env: %v", err)
	}
	var got map[string]*string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("child env said %q: %v", out, err)
	}
	return got
}

func ptr(s string) *string { return &s }

// TestEnvironment: what a program's environment says, whatever the
// invocation's said, for each audience.
func TestEnvironment(t *testing.T) {
	bin := proctest.Child(t)
	host := []string{"PATH=" + os.Getenv("PATH"), "PAGER=less", "GIT_PAGER=less -R", "MANPAGER=most", "LESS=-S",
		"EDITOR=vim", "VISUAL=emacs", "GIT_EDITOR=nano", "FORCE_COLOR=1", "LC_ALL=de_DE.UTF-8", "LANG=de_DE.UTF-8", "KEEP=me"}
	names := []string{"PAGER", "GIT_PAGER", "MANPAGER", "LESS", "MORE", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_TERMINAL_PROMPT",
		"CI", "NO_UPDATE_NOTIFIER", "npm_config_update_notifier", "HOMEBREW_NO_AUTO_UPDATE", "PIP_DISABLE_PIP_VERSION_CHECK",
		"NO_COLOR", "FORCE_COLOR", "LC_ALL", "LC_NUMERIC", "LANG", "APP_TRACE_ID", "TRACE_ID", "KEEP"}
	nobody := map[string]*string{ // an agent or a script: nobody can answer, no colour
		"PAGER": ptr("cat"), "GIT_PAGER": ptr("cat"), "MANPAGER": ptr("cat"), "LESS": ptr("-F -X -R"), "MORE": ptr(""),
		"EDITOR": ptr("true"), "VISUAL": ptr("true"), "GIT_EDITOR": ptr("true"), "GIT_TERMINAL_PROMPT": ptr("0"),
		"CI": ptr("1"), "NO_UPDATE_NOTIFIER": ptr("1"), "npm_config_update_notifier": ptr("false"),
		"HOMEBREW_NO_AUTO_UPDATE": ptr("1"), "PIP_DISABLE_PIP_VERSION_CHECK": ptr("1"),
		"NO_COLOR": ptr("1"), "FORCE_COLOR": nil, "LC_ALL": ptr("C"), "LC_NUMERIC": ptr("C"), "LANG": ptr("de_DE.UTF-8"),
		"APP_TRACE_ID": ptr("trace-7"), "TRACE_ID": ptr("trace-7"), "KEEP": ptr("me"),
	}
	with := func(m map[string]*string, kv ...any) map[string]*string {
		out := map[string]*string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			v, _ := kv[i+1].(*string)
			out[kv[i].(string)] = v
		}
		return out
	}
	person := with(nobody, // at a terminal, with colour: editors and notices are theirs
		"EDITOR", ptr("vim"), "VISUAL", ptr("emacs"), "GIT_EDITOR", ptr("nano"), "GIT_TERMINAL_PROMPT", nil,
		"CI", nil, "NO_UPDATE_NOTIFIER", nil, "npm_config_update_notifier", nil, "HOMEBREW_NO_AUTO_UPDATE", nil,
		"PIP_DISABLE_PIP_VERSION_CHECK", nil, "NO_COLOR", nil, "FORCE_COLOR", ptr("1"))

	tests := []struct {
		name     string
		opts     proc.Options
		cmdEnv   []string // the Cmd's own Env
		preserve bool     // Cmd.PreserveLocale
		want     map[string]*string
	}{
		{"nobody can answer", proc.Options{}, nil, false, nobody},
		{"a person at a terminal", proc.Options{Interactive: true, Color: true}, nil, false, person},
		{"the command keeps the locale", proc.Options{PreserveLocale: true}, nil, false,
			with(nobody, "LC_ALL", ptr("de_DE.UTF-8"), "LC_NUMERIC", nil)},
		{"the program keeps the locale", proc.Options{}, nil, true,
			with(nobody, "LC_ALL", ptr("de_DE.UTF-8"), "LC_NUMERIC", nil)},
		{"the Cmd's own environment", proc.Options{}, []string{"PAGER=less", "CI=true", "NO_COLOR=yes"}, false,
			with(nobody, "CI", ptr("true"), "NO_COLOR", ptr("yes"), "LANG", nil, "KEEP", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Tool, o.TraceID, o.Environ = "app", "trace-7", host
			ctx, _ := session(t, o)
			got := envOf(t, ctx, bin, tt.cmdEnv, tt.preserve, names...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the program's environment (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvironmentReachesGrandchildren: a program the program starts (here
// through a shell script) has the same settings.
func TestEnvironmentReachesGrandchildren(t *testing.T) {
	bin := proctest.Child(t)
	script := filepath.Join(t.TempDir(), "nested.sh")
	if err := os.WriteFile(script, []byte(`"$CHILD" env PAGER GIT_PAGER EDITOR LC_ALL`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, _ := session(t, proc.Options{Environ: []string{"PATH=" + os.Getenv("PATH"), "CHILD=" + bin, "PAGER=less", "EDITOR=vim"}})
	out, err := proc.Command(ctx, "sh", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"EDITOR":"true","GIT_PAGER":"cat","LC_ALL":"C","PAGER":"cat"}`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("grandchild saw %s, want %s", got, want)
	}
}

// TestProcessLocaleUnchanged: only the programs' environment changes, never
// this process's.
func TestProcessLocaleUnchanged(t *testing.T) {
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("PAGER", "less")
	bin := proctest.Child(t)
	ctx, _ := session(t, proc.Options{})
	if _, err := proc.Command(ctx, bin, "env").Output(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LC_ALL") != "de_DE.UTF-8" || os.Getenv("PAGER") != "less" {
		t.Errorf("this process's LC_ALL=%q PAGER=%q changed", os.Getenv("LC_ALL"), os.Getenv("PAGER"))
	}
}

// TestLocaleNumbers: a program that formats numbers by the locale prints
// C numbers, unless the locale is kept.
func TestLocaleNumbers(t *testing.T) {
	bin := proctest.Child(t)
	for _, tt := range []struct {
		preserve bool
		want     string
	}{{false, "1234.56"}, {true, "1.234,56"}} {
		ctx, _ := session(t, proc.Options{Environ: []string{"LANG=de_DE.UTF-8", "LC_ALL=de_DE.UTF-8"}, PreserveLocale: tt.preserve})
		out, err := proc.Command(ctx, bin, "number").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("preserve locale %v: %q, want %q", tt.preserve, got, tt.want)
		}
	}
}

// TestUpdateNotifierSilenced: an update notifier says nothing where nobody
// is there to read it, and speaks to a person.
func TestUpdateNotifierSilenced(t *testing.T) {
	bin := proctest.Child(t)
	for _, tt := range []struct {
		interactive bool
		wantBanner  bool
	}{{false, false}, {true, true}} {
		ctx, _ := session(t, proc.Options{Environ: []string{}, Interactive: tt.interactive, Color: tt.interactive})
		cmd := proc.Command(ctx, bin, "banner")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(stderr.String(), "Update available"); got != tt.wantBanner || stdout.String() != "done\n" {
			t.Errorf("interactive %v: stdout %q, stderr %q; want banner %v", tt.interactive, stdout.String(), stderr.String(), tt.wantBanner)
		}
	}
}

// TestArgumentsVerbatim: each argument reaches the program as it was given,
// one argument each — no word splitting, no glob, no expansion (F-062).
func TestArgumentsVerbatim(t *testing.T) {
	bin := proctest.Child(t)
	dir := t.TempDir()
	for _, f := range []string{"a.json", "b.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"hello world", "*.json", "[ab].json", "?.json", "$HOME", "`id`", "$(id)", "a; rm -rf /", "x | y", "line\nbreak", `"quoted"`, "'single'", "", "  "}
	ctx, _ := session(t, proc.Options{})
	cmd := proc.Command(ctx, bin, append([]string{"args"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("arguments the program got (-given +got):\n%s", diff)
	}
}

// TestLogShowsArgv: with a log, each program started is written as its argv
// in JSON, so that quoting shows.
func TestLogShowsArgv(t *testing.T) {
	bin := proctest.Child(t)
	var log bytes.Buffer
	ctx, _ := session(t, proc.Options{Log: &log})
	if err := proc.Command(ctx, bin, "args", "-m", "hello world", "<b>").Run(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("run [%q,\"args\",\"-m\",\"hello world\",\"<b>\"]\n", bin)
	if log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}

// TestStartedGetsArgv: Options.Started is told the argv of every program
// the session starts, as given (the --debug trace logs it, REQ-F-062).
func TestStartedGetsArgv(t *testing.T) {
	bin := proctest.Child(t)
	var got [][]string
	ctx, _ := session(t, proc.Options{Started: func(argv []string) { got = append(got, argv) }})
	for _, args := range [][]string{{"args", "-m", "hello world"}, {"args", "*.json"}} {
		if err := proc.Command(ctx, bin, args...).Run(); err != nil {
			t.Fatal(err)
		}
	}
	want := [][]string{{bin, "args", "-m", "hello world"}, {bin, "args", "*.json"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Started was told (-want +got):\n%s", diff)
	}
}

func errorCode(err error) (string, exitcode.Code) {
	var e *envelope.Error
	if !errors.As(err, &e) {
		return "", 0
	}
	return e.Code, e.Exit
}

// TestShellStringProhibited: a command line is refused, never run by a
// shell; a shell running a script file is not a command line.
func TestShellStringProhibited(t *testing.T) {
	script := filepath.Join(t.TempDir(), "ok.sh")
	if err := os.WriteFile(script, []byte("echo script ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		argv    []string
		refused bool
	}{
		{[]string{"git log --oneline"}, true},
		{[]string{"sh", "-c", "echo hi"}, true},
		{[]string{"bash", "-lc", "echo hi"}, true},
		{[]string{"bash", "--norc", "-c", "echo hi"}, true},
		{[]string{"sh", "-o", "errexit", "-c", "echo hi"}, true},
		{[]string{"sh", "-e", script}, false},
		{[]string{"sh", script, "-c"}, false}, // -c is the script's argument
	}
	for _, tt := range tests {
		ctx, _ := session(t, proc.Options{})
		cmd := proc.Command(ctx, tt.argv[0], tt.argv[1:]...)
		out, err := cmd.Output()
		code, exit := errorCode(err)
		switch {
		case tt.refused && (code != proc.CodeShellString || exit != exitcode.GeneralError):
			t.Errorf("%q: err %v (code %q, exit %d), want %s", tt.argv, err, code, exit, proc.CodeShellString)
		case tt.refused && cmd.Process != nil:
			t.Errorf("%q: refused, but a process was started", tt.argv)
		case !tt.refused && (err != nil || string(out) != "script ran\n"):
			t.Errorf("%q: %q, %v; want the script to run", tt.argv, out, err)
		}
	}
}

// TestEditorRequired: where nobody can answer, the editor $EDITOR or
// $VISUAL names is refused with exit 4; for a person it runs.
func TestEditorRequired(t *testing.T) {
	bin := proctest.Child(t)
	rec := filepath.Join(t.TempDir(), "editor.log")
	for _, v := range []string{"EDITOR", "VISUAL"} {
		ctx, _ := session(t, proc.Options{Environ: []string{v + "=" + bin + " --wait"}})
		err := proc.Command(ctx, bin, "record", rec, "notes.md").Run()
		if code, exit := errorCode(err); code != proc.CodeEditor || exit != exitcode.Precondition {
			t.Errorf("$%s: err %v (code %q, exit %d), want %s exit 4", v, err, code, exit, proc.CodeEditor)
		}
	}
	if _, err := os.Stat(rec); err == nil {
		t.Fatal("the editor ran where nobody can use it")
	}
	ctx, _ := session(t, proc.Options{Environ: []string{"EDITOR=" + bin}, Interactive: true})
	if err := proc.Command(ctx, bin, "record", rec, "notes.md").Run(); err != nil {
		t.Fatalf("a person's editor: %v", err)
	}
	if raw, _ := os.ReadFile(rec); string(raw) != "called notes.md\n" {
		t.Errorf("editor log %q, want the editor called once", raw)
	}
}

// TestEditorSilencedStillRefused: where nobody can answer, Duet sets
// $EDITOR to "true" so that children outside proc open nothing. A command
// that reads that "true" back and starts it on a file is still launching
// the editor: refused with exit 4, as the person's editor would be. "true"
// run with nothing to edit is not an editor, and runs.
func TestEditorSilencedStillRefused(t *testing.T) {
	ctx, _ := session(t, proc.Options{Environ: []string{"EDITOR=true", "PATH=" + os.Getenv("PATH")}})
	err := proc.Command(ctx, "true", "notes.md").Run()
	if code, exit := errorCode(err); code != proc.CodeEditor || exit != exitcode.Precondition {
		t.Errorf("true notes.md: err %v (code %q, exit %d), want %s exit 4", err, code, exit, proc.CodeEditor)
	}
	if err := proc.Command(ctx, "true").Run(); err != nil {
		t.Errorf("true with nothing to edit: %v", err)
	}
}

// TestEditorAlternatives: the EDITOR_REQUIRED error lists, in
// alternatives[], the flags the command declares in the editor's place.
func TestEditorAlternatives(t *testing.T) {
	bin := proctest.Child(t)
	alts := []envelope.Alternative{{Flag: "--message", Description: "the text"}, {Flag: "--from-file"}}
	ctx, _ := session(t, proc.Options{Environ: []string{"EDITOR=" + bin}, Alternatives: alts})
	err := proc.Command(ctx, bin, "record", filepath.Join(t.TempDir(), "log"), "notes.md").Run()
	e := envelope.As(err)
	if e == nil || e.Code != proc.CodeEditor || e.Exit != exitcode.Precondition {
		t.Fatalf("err %v, want %s exit 4", err, proc.CodeEditor)
	}
	if diff := cmp.Diff(alts, e.Alternatives); diff != "" {
		t.Errorf("alternatives (-want +got):\n%s", diff)
	}
	if !strings.Contains(e.Suggestion, "--message or --from-file") {
		t.Errorf("suggestion %q names neither flag", e.Suggestion)
	}
}

// gitRepo makes a repository with one commit and a staged change, and
// returns the environment git runs in (no user or system config).
func gitRepo(t *testing.T) (dir string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir = t.TempDir()
	env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("git", "add", "f.txt")
	c.Dir, c.Env = dir, env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	return dir, env
}

// TestGitOpensNoPagerNorEditor runs real git the way an agent's command
// would: git log on a terminal does not start the pager the environment
// names, and git commit without -m does not start the editor. The same
// command through os/exec does, so the test can fail.
func TestGitOpensNoPagerNorEditor(t *testing.T) {
	bin := proctest.Child(t)
	dir, env := gitRepo(t)
	pagerLog, editorLog := filepath.Join(t.TempDir(), "pager.log"), filepath.Join(t.TempDir(), "editor.log")
	env = append(env, "PAGER="+bin+" record "+pagerLog, "GIT_PAGER="+bin+" record "+pagerLog,
		"EDITOR="+bin+" record "+editorLog, "GIT_EDITOR="+bin+" record "+editorLog)

	logOnTerminal := func(cmd *exec.Cmd, start func() error, wait func() error) {
		t.Helper()
		master, slave, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer master.Close()
		cmd.Stdout = slave // a terminal: git pages
		go bytes.NewBuffer(nil).ReadFrom(master)
		err = start()
		slave.Close()
		if err != nil {
			t.Fatal(err)
		}
		wait()
	}
	commit := func(run func() error) { _ = run() } // fails: the message is empty

	for _, viaProc := range []bool{true, false} {
		os.Remove(pagerLog)
		os.Remove(editorLog)
		if viaProc {
			ctx, _ := session(t, proc.Options{Environ: env})
			log := proc.Command(ctx, "git", "log")
			log.Dir = dir
			logOnTerminal(log.Cmd, log.Start, log.Wait)
			c := proc.Command(ctx, "git", "commit")
			c.Dir = dir
			commit(c.Run)
		} else {
			log := exec.Command("git", "log")
			log.Dir, log.Env = dir, env
			logOnTerminal(log, log.Start, log.Wait)
			c := exec.Command("git", "commit")
			c.Dir, c.Env = dir, env
			commit(c.Run)
		}
		_, pagerErr := os.Stat(pagerLog)
		_, editorErr := os.Stat(editorLog)
		if paged, edited := pagerErr == nil, editorErr == nil; paged == viaProc || edited == viaProc {
			t.Errorf("through proc %v: pager started %v, editor started %v", viaProc, paged, edited)
		}
	}
}

// waiting starts the child's wait mode with args and returns the command
// and the pids it reported, grandchild first when it spawned one.
func waiting(t *testing.T, ctx context.Context, bin string, args ...string) (*proc.Cmd, []int) {
	t.Helper()
	cmd := proc.Command(ctx, bin, append([]string{"wait"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	return cmd, proctest.ReadyPIDs(t, bufio.NewReader(out))
}

// records reads the child's signal records: "pid SIGNAL" lines.
func records(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	lines := strings.Fields(strings.ReplaceAll(string(raw), " ", "="))
	slices.Sort(lines)
	return lines
}

func signalled(sig string, pids ...int) []string {
	var out []string
	for _, p := range pids {
		out = append(out, strconv.Itoa(p)+"="+sig)
	}
	slices.Sort(out)
	return out
}

// TestContextStopsTheGroup: when the context is done, the program and what
// it started get SIGTERM, and exit.
func TestContextStopsTheGroup(t *testing.T) {
	bin := proctest.Child(t)
	rec := filepath.Join(t.TempDir(), "signals")
	parent, _ := session(t, proc.Options{})
	ctx, cancel := context.WithCancel(parent)
	cmd, pids := waiting(t, ctx, bin, "--spawn", "--record", rec)
	cancel()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the child should exit 0 on SIGTERM: %v", err)
	}
	proctest.AwaitGone(t, pids[0])
	if diff := cmp.Diff(signalled("SIGTERM", pids...), records(t, rec)); diff != "" {
		t.Errorf("signals received (-want +got):\n%s", diff)
	}
}

// TestGraceThenKill: a program that ignores SIGTERM is killed, with what it
// started, once its grace period has passed.
func TestGraceThenKill(t *testing.T) {
	bin := proctest.Child(t)
	rec := filepath.Join(t.TempDir(), "signals")
	parent, _ := session(t, proc.Options{Grace: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(parent)
	cmd, pids := waiting(t, ctx, bin, "--spawn", "--ignore-term", "--record", rec)
	cancel()
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("Wait = %v, want killed by SIGKILL", err)
	}
	proctest.AwaitGone(t, pids[0])
	if diff := cmp.Diff(signalled("SIGTERM", pids...), records(t, rec)); diff != "" {
		t.Errorf("signals received before the kill (-want +got):\n%s", diff)
	}
}

// TestLeftoversKilledOnExit: what a program leaves running in its group
// when it exits is killed then.
func TestLeftoversKilledOnExit(t *testing.T) {
	bin := proctest.Child(t)
	ctx, _ := session(t, proc.Options{})
	cmd, pids := waiting(t, ctx, bin, "--spawn", "--exit", "--ignore-term")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	proctest.AwaitGone(t, pids[0])
}

// TestSessionSignalForwards: a signal the invocation passes on reaches the
// program and what it started.
func TestSessionSignalForwards(t *testing.T) {
	bin := proctest.Child(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		rec := filepath.Join(t.TempDir(), "signals")
		ctx, s := session(t, proc.Options{})
		cmd, pids := waiting(t, ctx, bin, "--spawn", "--record", rec)
		s.Signal(sig)
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		proctest.AwaitGone(t, pids[0])
		name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
		if diff := cmp.Diff(signalled(name, pids...), records(t, rec)); diff != "" {
			t.Errorf("%s: signals received (-want +got):\n%s", name, diff)
		}
	}
}

// TestSessionEnd: the PID file lists the programs while they run; End
// stops what is still tracked — SIGTERM, then SIGKILL for one that ignores
// it — removes the file, and refuses a program started after it.
func TestSessionEnd(t *testing.T) {
	bin := proctest.Child(t)
	rec := filepath.Join(t.TempDir(), "signals")
	ctx, s := session(t, proc.Options{Grace: 50 * time.Millisecond})
	if s.PIDFile() != "" {
		t.Errorf("PIDFile = %q before anything started", s.PIDFile())
	}
	polite, politePIDs := waiting(t, ctx, bin, "--record", rec)
	stubborn, stubbornPIDs := waiting(t, ctx, bin, "--spawn", "--ignore-term", "--record", rec)
	file := s.PIDFile()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("PID file while they run: %v", err)
	}
	if got, want := string(raw), fmt.Sprintf("%d\n%d\n", politePIDs[0], stubbornPIDs[1]); got != want {
		t.Errorf("PID file %q, want %q", got, want)
	}
	s.End()
	for _, pid := range append(politePIDs, stubbornPIDs...) {
		proctest.AwaitGone(t, pid)
	}
	if err := polite.Wait(); err != nil {
		t.Errorf("the polite child: %v", err)
	}
	if err := stubborn.Wait(); err == nil {
		t.Errorf("the stubborn child exited 0; want killed")
	}
	if diff := cmp.Diff(signalled("SIGTERM", append(politePIDs, stubbornPIDs...)...), records(t, rec)); diff != "" {
		t.Errorf("signals received (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PID file after End: %v, want removed", err)
	}
	if s.PIDFile() != file {
		t.Errorf("PIDFile after End = %q, want %q", s.PIDFile(), file)
	}
	if code, _ := errorCode(proc.Command(ctx, bin, "env").Run()); code != proc.CodeSessionEnded {
		t.Errorf("a start after End: %q, want %s", code, proc.CodeSessionEnded)
	}
}

// TestPIDFileFollowsExits: a program that exits leaves the PID file.
func TestPIDFileFollowsExits(t *testing.T) {
	bin := proctest.Child(t)
	ctx, s := session(t, proc.Options{})
	first, firstPIDs := waiting(t, ctx, bin)
	_, secondPIDs := waiting(t, ctx, bin)
	syscall.Kill(firstPIDs[0], syscall.SIGTERM)
	first.Wait()
	raw, err := os.ReadFile(s.PIDFile())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw), fmt.Sprintf("%d\n", secondPIDs[0]); got != want {
		t.Errorf("PID file %q, want %q", got, want)
	}
}

// TestBackground: a background process must be declared, must not hold
// this process's output, outlives the session, and stays in its PID file.
func TestBackground(t *testing.T) {
	bin := proctest.Child(t)
	ctx, _ := session(t, proc.Options{})
	undeclared := proc.Command(ctx, bin, "wait")
	undeclared.Background = true
	if code, _ := errorCode(undeclared.Start()); code != proc.CodeBackgroundUndeclared {
		t.Errorf("undeclared: %q, want %s", code, proc.CodeBackgroundUndeclared)
	}

	ctx, s := session(t, proc.Options{Background: true})
	holds := proc.Command(ctx, bin, "wait")
	holds.Background, holds.Stdout = true, os.Stdout
	if code, _ := errorCode(holds.Start()); code != proc.CodeBackgroundOutput {
		t.Errorf("holding stdout: %q, want %s", code, proc.CodeBackgroundOutput)
	}

	cctx, cancel := context.WithCancel(ctx)
	bg := proc.Command(cctx, bin, "wait")
	bg.Background = true
	out, err := bg.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bg.Start(); err != nil {
		t.Fatal(err)
	}
	pid := proctest.ReadyPIDs(t, bufio.NewReader(out))[0]
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	cancel()
	s.End()
	if !proctest.Alive(pid) {
		t.Fatal("the background process did not outlive the session")
	}
	if sid, _ := unix.Getsid(pid); sid != pid {
		t.Errorf("the background process is in session %d, want its own (%d)", sid, pid)
	}
	raw, err := os.ReadFile(s.PIDFile())
	if err != nil {
		t.Fatalf("PID file after End: %v", err)
	}
	if got, want := string(raw), fmt.Sprintf("%d\n", pid); got != want {
		t.Errorf("PID file %q, want %q", got, want)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	if err := bg.Wait(); err != nil {
		t.Errorf("background process: %v", err)
	}
}

// TestProcessGroups: a program leads a group of its own; one given the
// terminal stays in this process's.
func TestProcessGroups(t *testing.T) {
	bin := proctest.Child(t)
	ctx, _ := session(t, proc.Options{})
	own, ownPIDs := waiting(t, ctx, bin)
	if pgid, _ := syscall.Getpgid(ownPIDs[0]); pgid != ownPIDs[0] {
		t.Errorf("group %d, want its own (%d)", pgid, ownPIDs[0])
	}
	term := proc.Command(ctx, bin, "wait")
	term.Terminal = true
	out, _ := term.StdoutPipe()
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	termPIDs := proctest.ReadyPIDs(t, bufio.NewReader(out))
	if pgid, _ := syscall.Getpgid(termPIDs[0]); pgid != syscall.Getpgrp() {
		t.Errorf("terminal program's group %d, want this process's (%d)", pgid, syscall.Getpgrp())
	}
	term.Process.Signal(syscall.SIGTERM)
	own.Process.Signal(syscall.SIGTERM)
	term.Wait()
	own.Wait()
}

// TestOnlyStandardFDsInherited: the program gets stdin, stdout, stderr and
// its ExtraFiles, and none of the files and pipes this process has open
// (F-071).
func TestOnlyStandardFDsInherited(t *testing.T) {
	bin := proctest.Child(t)
	open, err := os.Create(filepath.Join(t.TempDir(), "held-open"))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	extra, err := os.Create(filepath.Join(t.TempDir(), "extra"))
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	// One opened without close-on-exec, as an inherited descriptor or a
	// raw syscall's is.
	rawFD, err := syscall.Open(filepath.Join(t.TempDir(), "raw"), syscall.O_RDWR|syscall.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	raw := os.NewFile(uintptr(rawFD), "raw")
	defer raw.Close()
	var targets []string // what this process's files are, as /proc shows them
	for _, f := range []*os.File{open, r, w, extra, raw} {
		link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, link)
	}
	ctx, _ := session(t, proc.Options{})
	cmd := proc.Command(ctx, bin, "wait")
	cmd.ExtraFiles = []*os.File{extra}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := proctest.ReadyPIDs(t, bufio.NewReader(out))[0]
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, e := range entries {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		if slices.Contains(targets, link) {
			held = append(held, e.Name()+" -> "+link)
		}
	}
	want := []string{"3 -> " + targets[3]} // the ExtraFiles file, and nothing else of ours
	if diff := cmp.Diff(want, held); diff != "" {
		t.Errorf("this process's files the program holds (-want +got):\n%s", diff)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

// TestCheckArg: a value holding a shell metacharacter is refused with exit
// 2, naming the field and the character; spaces and globs are not
// metacharacters to an argv.
func TestCheckArg(t *testing.T) {
	for _, c := range proc.Metacharacters {
		v := "repo" + string(c) + "x"
		err := proc.CheckArg("url", v)
		var e *envelope.Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: %v, want an *envelope.Error", v, err)
		}
		name := "'" + string(c) + "'"
		if c == '\n' {
			name = `'\n'`
		} else if c == '\r' {
			name = `'\r'`
		}
		if e.Code != proc.CodeMetacharacter || e.Exit != exitcode.ArgError || e.Phase != envelope.Validation ||
			e.Field != "url" || !strings.Contains(e.Message, name) {
			t.Errorf("%q: %+v", v, e)
		}
	}
	for _, v := range []string{"hello world", "*.json", "https://example.com/a?b=c#d", "", "ünïcode"} {
		if err := proc.CheckArg("url", v); err != nil {
			t.Errorf("%q refused: %v", v, err)
		}
	}
}
