//go:build linux

package adapters_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/proctest"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// procApp is an app whose commands start the child program (see
// internal/proctest) through package proc.
type procApp struct {
	bin     string
	record  string     // where waiting children record the signals they get
	started chan []int // the pids a command started, grandchild first
	ran     int        // how many times clone ran
	envOut  string     // where env writes what the program reported
}

func newProcApp(t *testing.T) *procApp {
	dir := t.TempDir()
	return &procApp{bin: proctest.Child(t), record: filepath.Join(dir, "signals"), envOut: filepath.Join(dir, "env.json"), started: make(chan []int, 1)}
}

// wait starts the child's wait mode and reports its pids.
func (a *procApp) wait(ctx context.Context, background bool, args ...string) (*proc.Cmd, error) {
	cmd := proc.Command(ctx, a.bin, append([]string{"wait", "--record", a.record}, args...)...)
	cmd.Background = background
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReader(out)
	var pids []int
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("child: %w", err)
		}
		_, pid, _ := strings.Cut(strings.TrimSpace(line), " ")
		n, _ := strconv.Atoi(pid)
		pids = append(pids, n)
		if strings.HasPrefix(line, "ready") {
			break
		}
	}
	a.started <- pids
	return cmd, nil
}

func (a *procApp) root() *cli.Command {
	envNames := []string{"PAGER", "GIT_PAGER", "EDITOR", "NO_COLOR", "CI", "NO_UPDATE_NOTIFIER", "LC_ALL", "APP_TRACE_ID", "TRACE_ID"}
	env := urfave.Annotate(&cli.Command{Name: "env", Usage: "Report a program's environment",
		Action: func(ctx context.Context, _ *cli.Command) error {
			out, err := proc.Command(ctx, a.bin, append([]string{"env"}, envNames...)...).Output()
			if err != nil {
				return err
			}
			return os.WriteFile(a.envOut, out, 0o644)
		}}, schema.Meta{Danger: schema.Safe})
	local := urfave.Annotate(&cli.Command{Name: "local", Usage: "Report a program's locale",
		Action: func(ctx context.Context, _ *cli.Command) error {
			out, err := proc.Command(ctx, a.bin, "number").Output()
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(strings.TrimSpace(string(out)))
		}}, schema.Meta{Danger: schema.Safe, PreserveLocale: true})
	leave := urfave.Annotate(&cli.Command{Name: "leave", Usage: "Start a program and return",
		Action: func(ctx context.Context, _ *cli.Command) error {
			_, err := a.wait(ctx, false, "--spawn", "--ignore-term")
			return err
		}}, schema.Meta{Danger: schema.Safe})
	hold := urfave.Annotate(&cli.Command{Name: "hold", Usage: "Run a program until it ends",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "ignore-term"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := []string{"--spawn"}
			if c.Bool("ignore-term") {
				args = append(args, "--ignore-term")
			}
			cmd, err := a.wait(ctx, false, args...)
			if err != nil {
				return err
			}
			return errors.Join(cmd.Wait(), ctx.Err())
		}}, schema.Meta{Danger: schema.Safe})
	clone := urfave.Annotate(&cli.Command{Name: "clone", Usage: "Pass input to a program",
		Flags: []cli.Flag{&cli.StringFlag{Name: "repo", Sources: cli.EnvVars("APP_REPO")}, &cli.StringFlag{Name: "note"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			a.ran++
			out, err := proc.Command(ctx, a.bin, "args", c.String("repo"), c.Args().First()).Output()
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(json.RawMessage(out))
		}}, schema.Meta{Danger: schema.Safe,
		Flags:      map[string]schema.FlagMeta{"repo": {Subprocess: true}},
		Args:       []schema.Arg{{Name: "dir", Type: schema.String, Subprocess: true}},
		Subprocess: schema.Subprocess{Binary: "git", Hardcoded: []string{"clone", "--"}}})
	edit := urfave.Annotate(&cli.Command{Name: "edit", Usage: "Open $EDITOR",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return proc.Command(ctx, a.bin, "record", a.record, "notes.md").Run() // the test's $EDITOR
		}}, schema.Meta{Danger: schema.Mutating})
	watch := urfave.Annotate(&cli.Command{Name: "watch", Usage: "Start a watcher",
		Action: func(ctx context.Context, _ *cli.Command) error {
			cmd, err := a.wait(ctx, true)
			if err != nil {
				return err
			}
			envelope.From(ctx).Effect(envelope.Created) // a process started (C-003)
			return envelope.From(ctx).Result(map[string]any{"background_pid": cmd.Process.Pid, "cleanup_command": "app unwatch"})
		}}, schema.Meta{Danger: schema.Mutating, Background: &schema.Background{CleanupCommand: "app unwatch", MaxLifetime: time.Hour}})
	sneak := urfave.Annotate(&cli.Command{Name: "sneak", Usage: "Start a background process undeclared",
		Action: func(ctx context.Context, _ *cli.Command) error {
			_, err := a.wait(ctx, true)
			return err
		}}, schema.Meta{Danger: schema.Mutating})
	return &cli.Command{Name: "app", Commands: []*cli.Command{env, local, leave, hold, clone, edit, watch, sneak}}
}

func (a *procApp) do(t *testing.T, r run, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), a.root(), args, r.options(&stdout, &stderr)...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// signals reads the child's signal records, sorted: "pid=SIGNAL".
func (a *procApp) signals(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(a.record)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	lines := strings.Fields(strings.ReplaceAll(string(raw), " ", "="))
	slices.Sort(lines)
	return lines
}

func each(sig string, pids []int) []string {
	var out []string
	for _, p := range pids {
		out = append(out, strconv.Itoa(p)+"="+sig)
	}
	slices.Sort(out)
	return out
}

// TestCommandsChildEnvironment: a command's programs get the invocation's
// settings — for an agent no pager, editor, colour or update notice, a C
// locale and the trace id; for a person at a terminal their editor.
func TestCommandsChildEnvironment(t *testing.T) {
	a := newProcApp(t)
	base := []string{"PATH=" + os.Getenv("PATH"), "PAGER=less", "EDITOR=vim", "LC_ALL=de_DE.UTF-8", "TMPDIR=" + t.TempDir()}
	tests := []struct {
		name string
		r    run
		want string
	}{
		{"agent", run{env: base},
			`{"APP_TRACE_ID":"req-test","CI":"1","EDITOR":"true","GIT_PAGER":"cat","LC_ALL":"C","NO_COLOR":"1","NO_UPDATE_NOTIFIER":"1","PAGER":"cat","TRACE_ID":"req-test"}`},
		{"agent with a trace id", run{env: append(slices.Clip(base), "APP_TRACE_ID=trace-9")},
			`{"APP_TRACE_ID":"trace-9","CI":"1","EDITOR":"true","GIT_PAGER":"cat","LC_ALL":"C","NO_COLOR":"1","NO_UPDATE_NOTIFIER":"1","PAGER":"cat","TRACE_ID":"trace-9"}`},
		{"agent with the spec's literal trace variable", run{env: append(slices.Clip(base), "TOOL_TRACE_ID=span-7")},
			`{"APP_TRACE_ID":"span-7","CI":"1","EDITOR":"true","GIT_PAGER":"cat","LC_ALL":"C","NO_COLOR":"1","NO_UPDATE_NOTIFIER":"1","PAGER":"cat","TRACE_ID":"span-7"}`},
		{"person", run{env: base, tty: adapters.Console},
			`{"APP_TRACE_ID":"req-test","CI":null,"EDITOR":"vim","GIT_PAGER":"cat","LC_ALL":"C","NO_COLOR":null,"NO_UPDATE_NOTIFIER":null,"PAGER":"cat","TRACE_ID":"req-test"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := a.do(t, tt.r, "env"); res.code != 0 {
				t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			raw, err := os.ReadFile(a.envOut)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(raw)); got != tt.want {
				t.Errorf("the program's environment:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	w := wantOK(t, a.do(t, run{env: base}, "local"))
	if string(w.Data) != `{"value":"1.234,56"}` {
		t.Errorf("a command that keeps the locale: %s, want the German number", w.Data)
	}
}

// TestUpdateNotifierHook: the app's own suppression runs before a command
// where nobody can answer, and not for a person.
func TestUpdateNotifierHook(t *testing.T) {
	a := newProcApp(t)
	for _, tty := range []adapters.Terminal{adapters.Piped, adapters.Console} {
		calls := 0
		r := run{env: []string{"TMPDIR=" + t.TempDir()}, tty: tty,
			opts: []urfave.Option{adapters.WithUpdateNotifierSuppression(func() { calls++ })}}
		if res := a.do(t, r, "env"); res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		if want := map[adapters.Terminal]int{adapters.Piped: 1, adapters.Console: 0}[tty]; calls != want {
			t.Errorf("terminal %v: the hook ran %d times, want %d", tty, calls, want)
		}
	}
}

// TestVerboseLogsArgv: --verbose shows each program started as a JSON
// argv on stderr.
func TestVerboseLogsArgv(t *testing.T) {
	a := newProcApp(t)
	res := a.do(t, run{env: []string{"TMPDIR=" + t.TempDir()}}, "clone", "--repo", "my repo", "--verbose")
	wantOK(t, res)
	if want := fmt.Sprintf("run [%q,\"args\",\"my repo\",\"\"]\n", a.bin); !strings.Contains(res.stderr, want) {
		t.Errorf("stderr %q lacks %q", res.stderr, want)
	}
	// F-025: with a caller's trace id, the line carries it.
	res = a.do(t, run{env: []string{"TMPDIR=" + t.TempDir(), "TOOL_TRACE_ID=span-3"}}, "clone", "--repo", "my repo", "--verbose")
	wantOK(t, res)
	if want := fmt.Sprintf("run [%q,\"args\",\"my repo\",\"\"] trace_id=span-3\n", a.bin); !strings.Contains(res.stderr, want) {
		t.Errorf("stderr %q lacks %q", res.stderr, want)
	}
}

// TestLeftoverChildrenStopped: what a command started and left running is
// stopped before the answer — SIGTERM, then SIGKILL once the grace period
// has passed — and the answer names the session's PID file, which is gone.
func TestLeftoverChildrenStopped(t *testing.T) {
	a := newProcApp(t)
	tmp := t.TempDir()
	r := run{env: []string{"TMPDIR=" + tmp}, opts: []urfave.Option{adapters.WithGrace(200 * time.Millisecond)}}
	w := wantOK(t, a.do(t, r, "leave"))
	pids := <-a.started
	for _, pid := range pids {
		proctest.AwaitGone(t, pid)
	}
	if diff := cmp.Diff(each("SIGTERM", pids), a.signals(t)); diff != "" {
		t.Errorf("signals received (-want +got):\n%s", diff)
	}
	want := filepath.Join(tmp, "app", "sessions", "req-test.pids")
	if got := w.Meta["session_pid_file"]; got != want {
		t.Errorf("meta.session_pid_file = %v, want %s", got, want)
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PID file after the command: %v, want removed", err)
	}
	w = wantOK(t, a.do(t, r, "clone", "--repo", "r"))
	if _, ok := w.Meta["session_pid_file"]; !ok {
		t.Errorf("meta.session_pid_file missing after a command that started a program")
	}
}

// TestSignalsPassedOn: a SIGTERM or SIGINT the invocation receives reaches
// the programs the command started, and their process groups, before the
// answer; one that ignores SIGTERM is killed after the grace period.
func TestSignalsPassedOn(t *testing.T) {
	tests := []struct {
		name   string
		sig    os.Signal
		ignore bool
		exit   int
	}{
		{"SIGTERM", syscall.SIGTERM, false, 143},
		{"SIGINT", os.Interrupt, false, 130},
		{"SIGTERM ignored", syscall.SIGTERM, true, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newProcApp(t)
			sigs := make(chan os.Signal, 1)
			r := run{env: []string{"TMPDIR=" + t.TempDir()}, opts: []urfave.Option{adapters.WithSignals(sigs), adapters.WithGrace(500 * time.Millisecond)}}
			args := []string{"hold"}
			if tt.ignore {
				args = append(args, "--ignore-term")
			}
			done := make(chan result, 1)
			go func() {
				var stdout, stderr bytes.Buffer
				code := urfave.Run(context.Background(), a.root(), args, r.options(&stdout, &stderr)...)
				done <- result{code, stdout.String(), stderr.String()}
			}()
			pids := <-a.started
			sigs <- tt.sig
			res := <-done
			w := wantError(t, res, tt.exit, "CANCELLED")
			// The answer came after the children were signalled, and,
			// when they ignored it, killed.
			name := map[os.Signal]string{syscall.SIGTERM: "SIGTERM", os.Interrupt: "SIGINT"}[tt.sig]
			if diff := cmp.Diff(each(name, pids), a.signals(t)); diff != "" {
				t.Errorf("signals received by the time of the answer (-want +got):\n%s", diff)
			}
			for _, pid := range pids {
				if proctest.Alive(pid) && !tt.ignore {
					proctest.AwaitGone(t, pid) // exiting on its own
				}
				proctest.AwaitGone(t, pid)
			}
			if w.Meta["session_pid_file"] == nil {
				t.Errorf("meta.session_pid_file missing")
			}
		})
	}
}

// TestSubprocessArgumentsChecked: a shell metacharacter in a value the
// command passes to a program is refused before it runs (exit 2), naming
// the field and the character; a clean value reaches the program as given.
func TestSubprocessArgumentsChecked(t *testing.T) {
	tests := []struct {
		name  string
		env   []string
		args  []string
		field string
		char  string
	}{
		{"flag", nil, []string{"clone", "--repo", "https://x/r.git; rm -rf /"}, "repo", "';'"},
		{"argument", nil, []string{"clone", "--repo", "r", "dir\nrm"}, "dir", `'\n'`},
		{"backtick", nil, []string{"clone", "--repo", "`id`"}, "repo", "'`'"},
		{"from the environment", []string{"APP_REPO=a|b"}, []string{"clone"}, "repo", "'|'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newProcApp(t)
			w := wantError(t, a.do(t, run{env: append([]string{"TMPDIR=" + t.TempDir()}, tt.env...)}, tt.args...), 2, proc.CodeMetacharacter)
			if a.ran != 0 {
				t.Errorf("the command ran")
			}
			if w.Error.Phase != envelope.Validation || len(w.Error.Errors) != 1 {
				t.Fatalf("error %+v, want one validation problem", w.Error)
			}
			p := w.Error.Errors[0]
			if p.Code != proc.CodeMetacharacter || p.Field != tt.field || !strings.Contains(p.Message, tt.char) {
				t.Errorf("problem %+v, want %s on %s naming %s", p, proc.CodeMetacharacter, tt.field, tt.char)
			}
		})
	}
	a := newProcApp(t)
	w := wantOK(t, a.do(t, run{env: []string{"TMPDIR=" + t.TempDir()}, tty: adapters.Piped}, "clone", "--repo", "my repo/*.git", "--note", "a; b", "d"))
	if string(w.Data) != `["my repo/*.git","d"]`+"\n" && string(w.Data) != `["my repo/*.git","d"]` {
		t.Errorf("the program got %s", w.Data)
	}
}

// TestSubprocessSchema: --schema and describe show the program a command
// passes input to, which of its flags and arguments are passed, a kept
// locale and a background process.
func TestSubprocessSchema(t *testing.T) {
	a := newProcApp(t)
	r := run{env: []string{"TMPDIR=" + t.TempDir()}}
	var doc struct {
		Subprocess *schema.SubprocessEntry     `json:"subprocess"`
		Flags      map[string]schema.FlagEntry `json:"flags"`
		Arguments  []schema.Arg                `json:"arguments"`
	}
	w := wantOK(t, a.do(t, r, "clone", "--schema"))
	if err := json.Unmarshal(w.Data, &doc); err != nil {
		t.Fatal(err)
	}
	want := &schema.SubprocessEntry{Binary: "git", UserControlledArgs: []string{"repo", "dir"}, HardcodedArgs: []string{"clone", "--"}}
	if diff := cmp.Diff(want, doc.Subprocess); diff != "" {
		t.Errorf("subprocess (-want +got):\n%s", diff)
	}
	if !doc.Flags["repo"].Subprocess || doc.Flags["note"].Subprocess || len(doc.Arguments) != 1 || !doc.Arguments[0].Subprocess {
		t.Errorf("flags %+v, arguments %+v: want repo and dir marked", doc.Flags, doc.Arguments)
	}
	var watch map[string]any
	w = wantOK(t, a.do(t, r, "watch", "--schema"))
	json.Unmarshal(w.Data, &watch)
	for k, v := range map[string]any{"spawns_background_process": true, "cleanup_command": "app unwatch", "max_lifetime_seconds": 3600.0} {
		if watch[k] != v {
			t.Errorf("watch --schema: %s = %v, want %v", k, watch[k], v)
		}
	}
	w = wantOK(t, a.do(t, r, "local", "--schema"))
	if !strings.Contains(string(w.Data), `"preserve_locale":true`) {
		t.Errorf("local --schema lacks preserve_locale: %s", w.Data)
	}
	w = wantOK(t, a.do(t, r, "describe", "--full"))
	for _, s := range []string{`"user_controlled_args":["repo","dir"]`, `"spawns_background_process":true`} {
		if !strings.Contains(string(w.Data), s) {
			t.Errorf("describe lacks %s", s)
		}
	}
}

// TestWrapRejectsBrokenProcDeclarations: a value passed to a program names
// the program; a background process says how it stops and how long it
// lives.
func TestWrapRejectsBrokenProcDeclarations(t *testing.T) {
	tests := []struct {
		name string
		meta schema.Meta
		want []string
	}{
		{"subprocess flag without a program", schema.Meta{Flags: map[string]schema.FlagMeta{"repo": {Subprocess: true}}},
			[]string{"flag --repo is passed to a program"}},
		{"subprocess argument without a program", schema.Meta{Args: []schema.Arg{{Name: "dir", Subprocess: true}}},
			[]string{"argument <dir> is passed to a program"}},
		{"background without cleanup or lifetime", schema.Meta{Background: &schema.Background{}},
			[]string{"CleanupCommand", "MaxLifetime"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := urfave.Annotate(&cli.Command{Name: "broken", Flags: []cli.Flag{&cli.StringFlag{Name: "repo"}},
				Action: func(context.Context, *cli.Command) error { return nil }}, tt.meta)
			_, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{c}})
			if err == nil {
				t.Fatal("Wrap accepted it")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

// TestEditorRefused: a command that opens $EDITOR where nobody can answer
// is refused with exit 4, and the editor never runs.
func TestEditorRefused(t *testing.T) {
	a := newProcApp(t)
	w := wantError(t, a.do(t, run{env: []string{"EDITOR=" + a.bin, "TMPDIR=" + t.TempDir()}}, "edit"), 4, proc.CodeEditor)
	if w.Error.Phase != envelope.Execution || w.Error.Suggestion == "" {
		t.Errorf("error %+v", w.Error)
	}
	if _, err := os.Stat(a.record); err == nil {
		t.Error("the editor ran")
	}
}

// TestBackgroundProcess: a declared background process outlives the
// command, which reports its pid; the PID file the answer names lists it.
// An undeclared one is refused.
func TestBackgroundProcess(t *testing.T) {
	a := newProcApp(t)
	r := run{env: []string{"TMPDIR=" + t.TempDir()}}
	w := wantOK(t, a.do(t, r, "watch"))
	pid := (<-a.started)[0]
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	var data struct {
		PID     int    `json:"background_pid"`
		Cleanup string `json:"cleanup_command"`
	}
	json.Unmarshal(w.Data, &data)
	if data.PID != pid || data.Cleanup != "app unwatch" || !proctest.Alive(pid) {
		t.Fatalf("data %s; pid %d alive %v", w.Data, pid, proctest.Alive(pid))
	}
	file, _ := w.Meta["session_pid_file"].(string)
	raw, err := os.ReadFile(file)
	if err != nil || string(raw) != fmt.Sprintf("%d\n", pid) {
		t.Errorf("PID file %q: %q, %v", file, raw, err)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	proctest.AwaitGone(t, pid)

	wantError(t, a.do(t, r, "sneak"), 1, proc.CodeBackgroundUndeclared)
}

// TestRealSIGTERMStopsChildrenFirst sends a built app a real SIGTERM while
// its command waits for a program that started another: both get SIGTERM
// and are gone by the time the app answers CANCELLED (exit 143).
func TestRealSIGTERMStopsChildrenFirst(t *testing.T) {
	child, app := proctest.Child(t), proctest.App(t)
	rec, tmp := filepath.Join(t.TempDir(), "signals"), t.TempDir()
	cmd := exec.Command(app, "hold", "--format", "json")
	cmd.Env = append(os.Environ(), "PROCTEST_CHILD="+child, "PROCTEST_RECORD="+rec, "TMPDIR="+tmp)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	pids := proctest.ReadyPIDs(t, r)
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, r)
	cmd.Wait()
	w := wantError(t, result{cmd.ProcessState.ExitCode(), stdout.String(), ""}, 143, "CANCELLED")
	raw, _ := os.ReadFile(rec)
	got := strings.Fields(strings.ReplaceAll(string(raw), " ", "="))
	slices.Sort(got)
	if diff := cmp.Diff(each("SIGTERM", pids), got); diff != "" {
		t.Errorf("signals received by the time of the answer (-want +got):\n%s", diff)
	}
	for _, pid := range pids {
		proctest.AwaitGone(t, pid)
	}
	if file, _ := w.Meta["session_pid_file"].(string); !strings.HasPrefix(file, filepath.Join(tmp, "app", "sessions")) {
		t.Errorf("meta.session_pid_file = %q", file)
	}
}

// TestBackgroundHoldsNoFDs: a background process a built app started holds
// none of the app's files once the app has exited — not its stdout, which
// the reader then sees close (F-071).
func TestBackgroundHoldsNoFDs(t *testing.T) {
	child, app := proctest.Child(t), proctest.App(t)
	cmd := exec.Command(app, "watch", "--format", "json")
	cmd.Env = append(os.Environ(), "PROCTEST_CHILD="+child, "TMPDIR="+t.TempDir())
	cmd.WaitDelay = 10 * time.Second // were stdout held open, Output would wait this long and fail
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("app watch: %v\n%s", err, out)
	}
	w := wantOK(t, result{0, string(out), ""})
	var data struct {
		PID int `json:"background_pid"`
	}
	json.Unmarshal(w.Data, &data)
	if data.PID == 0 || !proctest.Alive(data.PID) {
		t.Fatalf("data %s: the background process does not run", w.Data)
	}
	t.Cleanup(func() { syscall.Kill(data.PID, syscall.SIGKILL) })
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", data.PID))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", data.PID, e.Name()))
		// Its stdio is /dev/null; the rest is its own runtime's (epoll,
		// eventfd, the cgroup's CPU limit).
		if link != "/dev/null" && !strings.HasPrefix(link, "anon_inode:") && !strings.HasPrefix(link, "/sys/fs/cgroup/") {
			t.Errorf("the background process holds fd %s -> %s", e.Name(), link)
		}
	}
}

// TestDebugLogsArgv: --debug (and <TOOL>_DEBUG) logs the command line of
// every program the command starts, as a JSON array on its trace, with
// secrets redacted as the rest of --debug is: the value of a sensitive
// flag wherever it appears, the value after a secret-named flag of the
// program, a high-entropy value masked (REQ-F-062).
func TestDebugLogsArgv(t *testing.T) {
	bin := proctest.Child(t)
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlc2lnbmF0dXJl"
	app := func() *cli.Command { // a *cli.Command runs once
		push := urfave.Annotate(&cli.Command{Name: "push", Usage: "Pass a token to a program",
			Flags: []cli.Flag{&cli.StringFlag{Name: "auth"}, &cli.StringFlag{Name: "remote"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				argv := []string{"args", "--remote", c.String("remote"), "--password", "hunter2", "--api-key=k3y", "header " + c.String("auth"), jwt, "*.json"}
				out, err := proc.Command(ctx, bin, argv...).Output()
				if err != nil {
					return err
				}
				return envelope.From(ctx).Result(json.RawMessage(out))
			}}, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"auth": {Sensitive: true}}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{push}}
	}
	want := []string{bin, "args", "--remote", "my remote", "--password", "[REDACTED]", "--api-key=[REDACTED]", "header [REDACTED]", "[JWT: sub=u1]", "*.json"}
	for _, tt := range []struct {
		name string
		args []string
		env  []string
	}{
		{"--debug", []string{"push", "--remote", "my remote", "--auth-from-env", "PUSH_AUTH", "--debug"}, nil},
		{"APP_DEBUG", []string{"push", "--remote", "my remote", "--auth-from-env", "PUSH_AUTH"}, []string{"APP_DEBUG=1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			r := run{env: append([]string{"TMPDIR=" + t.TempDir(), "PUSH_AUTH=s3cr3t-value"}, tt.env...)}
			code := urfave.Run(context.Background(), app(), tt.args, r.options(&stdout, &stderr)...)
			wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
			var got [][]string // each program's argv: a JSON array, not text
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				var rec struct {
					Msg  string   `json:"msg"`
					Argv []string `json:"argv"`
				}
				if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "run" {
					got = append(got, rec.Argv)
				}
			}
			if diff := cmp.Diff([][]string{want}, got); diff != "" {
				t.Errorf("the programs --debug logged (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
			}
			if strings.Contains(stderr.String(), "s3cr3t-value") || strings.Contains(stderr.String(), "hunter2") {
				t.Errorf("stderr shows a secret:\n%s", stderr.String())
			}
		})
	}
}
