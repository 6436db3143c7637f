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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// TestUpdatesQuietWhereNobodyReads: update notices are silenced wherever
// nobody would read one — nobody can answer, stdout is not a terminal, or
// CI says yes — for the programs a command starts (CI=1, unless CI already
// says yes; CI=false is not kept) and through the app's own hook; a person
// at a terminal, outside CI, keeps them (F-050).
func TestUpdatesQuietWhereNobodyReads(t *testing.T) {
	a := newProcApp(t)
	person := adapters.Console
	tests := []struct {
		name  string
		tty   adapters.Terminal
		env   []string
		quiet bool
		ci    any
	}{
		{"an agent", adapters.Piped, nil, true, "1"},
		{"an agent in CI=false", adapters.Piped, []string{"CI=false"}, true, "1"},
		{"an agent in CI=true", adapters.Piped, []string{"CI=true"}, true, "true"},
		{"a person", person, []string{"TERM=dumb"}, false, nil},
		{"a person in CI", person, []string{"TERM=dumb", "CI=true"}, true, "true"},
		{"a person whose stdout is piped", adapters.StdinTerminal | adapters.StderrTerminal, []string{"TERM=dumb"}, true, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			r := run{env: append([]string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir()}, tt.env...), tty: tt.tty,
				opts: []urfave.Option{adapters.WithUpdateNotifierSuppression(func() { calls++ })}}
			if res := a.do(t, r, "env"); res.code != 0 {
				t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			raw, err := os.ReadFile(a.envOut)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			var notifier any
			if tt.quiet {
				notifier = "1"
			}
			want := map[string]any{"CI": tt.ci, "NO_UPDATE_NOTIFIER": notifier}
			if diff := cmp.Diff(want, map[string]any{"CI": got["CI"], "NO_UPDATE_NOTIFIER": got["NO_UPDATE_NOTIFIER"]}); diff != "" {
				t.Errorf("the program's environment (-want +got):\n%s", diff)
			}
			if want := map[bool]int{true: 1}[tt.quiet]; calls != want {
				t.Errorf("the app's hook ran %d times, want %d", calls, want)
			}
		})
	}
}

// TestBackgroundReported: a command that declares a background process and
// starts one answers with data.background_pid and data.cleanup_command,
// added by the framework to what the command reported (or to nothing),
// never twice where the command named them itself (C-010).
func TestBackgroundReported(t *testing.T) {
	a := newProcApp(t)
	bg := schema.Meta{Danger: schema.Mutating, Background: &schema.Background{CleanupCommand: "app stop", MaxLifetime: time.Hour}}
	start := func(result any) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: "serve", Action: func(ctx context.Context, _ *cli.Command) error {
			if _, err := a.wait(ctx, true); err != nil {
				return err
			}
			envelope.From(ctx).Effect(envelope.Created) // a process started (C-003)
			if result == nil {
				return nil
			}
			return envelope.From(ctx).Result(result)
		}}, bg)
	}
	tests := []struct {
		name   string
		result any
		want   func(pid int) string
	}{
		{"no result", nil, func(pid int) string { return fmt.Sprintf(`{"background_pid":%d,"cleanup_command":"app stop"}`, pid) }},
		{"an object", map[string]any{"port": 8080}, func(pid int) string {
			return fmt.Sprintf(`{"background_pid":%d,"cleanup_command":"app stop","port":8080}`, pid)
		}},
		{"the command's own", map[string]any{"cleanup_command": "app stop --pid 7"}, func(pid int) string {
			return fmt.Sprintf(`{"background_pid":%d,"cleanup_command":"app stop --pid 7"}`, pid)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := &cli.Command{Name: "app", Commands: []*cli.Command{start(tt.result)}}
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), root, []string{"serve"}, run{env: []string{"TMPDIR=" + t.TempDir()}}.options(&stdout, &stderr)...)
			pid := (<-a.started)[0]
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
			if diff := cmp.Diff(tt.want(pid), string(w.Data)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPipefailWarning: where the shell that ran the tool exports its
// options without pipefail, the command warns PIPEFAIL_UNSET; with
// pipefail, or where nothing is known, it says nothing (F-065).
func TestPipefailWarning(t *testing.T) {
	a := newProcApp(t)
	tests := []struct {
		name string
		env  []string
		warn bool
	}{
		{"bash without pipefail", []string{"SHELLOPTS=braceexpand:hashall:interactive-comments"}, true},
		{"bash with pipefail", []string{"SHELLOPTS=braceexpand:hashall:pipefail"}, false},
		{"nothing known", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wantOK(t, a.do(t, run{env: append([]string{"TMPDIR=" + t.TempDir()}, tt.env...)}, "env"))
			got := len(w.Warnings) == 1 && w.Warnings[0].Code == adapters.CodePipefailUnset
			if got != tt.warn || !tt.warn && len(w.Warnings) != 0 {
				t.Errorf("warnings %q, want a %s warning: %v", w.Warnings, adapters.CodePipefailUnset, tt.warn)
			}
		})
	}
}

// TestYesOnACommandThatNeverAsks: --yes is accepted by a ported command
// that never asks and changes nothing (C-005); it is not shown among its
// flags, where it would promise a question there is not.
func TestYesOnACommandThatNeverAsks(t *testing.T) {
	plain := wantOK(t, run{}.do(t, newHarness(t), "show"))
	yes := wantOK(t, run{}.do(t, newHarness(t), "show", "--yes"))
	if diff := cmp.Diff(string(plain.Data), string(yes.Data)); diff != "" {
		t.Errorf("data with --yes (-without +with):\n%s", diff)
	}
	if plain.Meta["effect"] != yes.Meta["effect"] {
		t.Errorf("effect %v with --yes, %v without", yes.Meta["effect"], plain.Meta["effect"])
	}
	doc := wantOK(t, run{}.do(t, newHarness(t), "show", "--schema"))
	var d struct {
		Flags map[string]any `json:"flags"`
	}
	if err := json.Unmarshal(doc.Data, &d); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Flags["yes"]; ok {
		t.Errorf("show --schema lists --yes: %v", d.Flags["yes"])
	}
}

// TestNobodyTypingAtTheTerminal: where nobody can answer and stdin is a
// terminal, a ported command reading stdin for an answer fails at once
// with INPUT_REQUIRED (exit 4) instead of waiting; a person at the terminal
// is asked; a stdin that is not a terminal is the caller's data (F-009,
// F-047).
func TestNobodyTypingAtTheTerminal(t *testing.T) {
	app := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "greet",
			Action: func(ctx context.Context, c *cli.Command) error {
				name, err := bufio.NewReader(c.Root().Reader).ReadString('\n')
				if err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("read the name: %w", err)
				}
				return envelope.From(ctx).Result(map[string]string{"hello": strings.TrimSpace(name)})
			}}, schema.Meta{Danger: schema.Safe})}}
	}
	do := func(r run, args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), app(), args, r.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	person := adapters.Console
	dumb := []string{"TERM=dumb"}

	w := wantError(t, do(run{tty: person, env: dumb, stdin: "bo\n"}, "greet", "--format", "json"), 4, "INPUT_REQUIRED")
	if w.Error.Suggestion == "" || !strings.Contains(w.Error.Suggestion, "app greet --schema") {
		t.Errorf("--format json at a terminal: %+v", w.Error)
	}
	wantError(t, do(run{tty: person, env: append(dumb, "CLAUDECODE=1"), stdin: "bo\n"}, "greet"), 4, "INPUT_REQUIRED")
	if r := do(run{tty: person, env: dumb, stdin: "alice\n"}, "greet"); r.code != 0 || !strings.Contains(r.stdout, "alice") {
		t.Errorf("a person: exit %d, stdout %q", r.code, r.stdout)
	}
	w = wantOK(t, do(run{stdin: "carol\n"}, "greet"))
	if string(w.Data) != `{"hello":"carol"}` {
		t.Errorf("piped: data %s", w.Data)
	}
	w = wantOK(t, do(run{}, "greet"))
	if string(w.Data) != `{"hello":""}` {
		t.Errorf("empty stdin: data %s", w.Data)
	}
}

// TestBareInvocationREPL: a tool whose bare invocation is a REPL
// (Meta.Interactive on the root) is refused with REPL_MODE_PROHIBITED
// (exit 4) where nobody is at a terminal, naming what to pass instead, and
// never enters it; at a terminal it does (F-047).
func TestBareInvocationREPL(t *testing.T) {
	entered := 0
	app := func() *cli.Command {
		return urfave.Annotate(&cli.Command{Name: "app",
			Action: func(ctx context.Context, _ *cli.Command) error {
				entered++
				return envelope.From(ctx).Result(map[string]bool{"repl": true})
			},
			Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "status", Action: func(ctx context.Context, _ *cli.Command) error {
				return envelope.From(ctx).Result(map[string]bool{"up": true})
			}}, schema.Meta{Danger: schema.Safe})}}, schema.Meta{Danger: schema.Safe, Interactive: true})
	}
	do := func(r run, args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), app(), args, r.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	w := wantError(t, do(run{stdin: "\n"}), 4, "REPL_MODE_PROHIBITED")
	if entered != 0 || !strings.Contains(w.Error.Suggestion, "app describe") {
		t.Errorf("refused: entered %d, error %+v", entered, w.Error)
	}
	wantOK(t, do(run{}, "status"))
	if r := do(run{tty: adapters.Console, env: []string{"TERM=dumb"}}); r.code != 0 || entered != 1 {
		t.Errorf("at a terminal: exit %d, entered %d", r.code, entered)
	}
}
