package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// plainApp is an app nobody ported, written the way urfave apps are: it
// prints with the command's Writer, fails with plain errors and exit codes
// of its own. One command, "ported", answers through envelope.Output.
func plainApp() *cli.Command {
	ported := urfave.Annotate(&cli.Command{Name: "ported", Usage: "Answer through Duet",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]any{"id": "i1", "n": 2})
		}}, schema.Meta{Danger: schema.Safe})
	return &cli.Command{
		Name:  "plain",
		Usage: "a plain app",
		Commands: []*cli.Command{
			{Name: "hello", Usage: "Say hello", Flags: []cli.Flag{&cli.StringFlag{Name: "name", Value: "world", Sources: cli.EnvVars("PLAIN_NAME")}},
				Action: func(_ context.Context, cmd *cli.Command) error {
					fmt.Fprintf(cmd.Root().Writer, "hello, %s\n", cmd.String("name"))
					return nil
				}},
			{Name: "doc", Usage: "Print a JSON document",
				Action: func(_ context.Context, cmd *cli.Command) error {
					fmt.Fprintln(cmd.Root().Writer, `{"a": [1, 2]}`)
					return nil
				}},
			{Name: "fail", Usage: "Fail", Action: func(context.Context, *cli.Command) error { return errors.New("it broke") }},
			{Name: "exit", Usage: "Exit 4", Action: func(context.Context, *cli.Command) error { return cli.Exit("not there", 4) }},
			{Name: "typed", Usage: "Fail the Duet way", Action: func(context.Context, *cli.Command) error {
				return envelope.Errorf(5, "NOT_THERE", "the thing is not there")
			}},
			{Name: "boom", Usage: "Panic", Action: func(context.Context, *cli.Command) error { panic("kaboom") }},
			ported,
		},
	}
}

// runPlain runs one command line of plainApp; strict and tty as given, env
// as the whole environment.
func runPlain(t *testing.T, tty adapters.Terminal, strict bool, env []string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts := []urfave.Option{
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv(env), adapters.WithTerminal(tty),
		adapters.WithRequestID(func() string { return "req-test" }),
	}
	if strict {
		opts = append(opts, adapters.WithSpecStrict())
	}
	code := urfave.Run(context.Background(), plainApp(), args, opts...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestFaithful: for a person and a script, a command nobody ported runs as
// the app would without Duet.
func TestFaithful(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want result
	}{
		{"output as printed", []string{"hello", "--name", "you"}, result{0, "hello, you\n", ""}},
		{"a flag of a subcommand from the environment", []string{"hello"}, result{0, "hello, env\n", ""}},
		{"a plain error as urfave's apps print it", []string{"fail"}, result{1, "", "it broke\n"}},
		{"an ExitCoder's message and code", []string{"exit"}, result{4, "", "not there\n"}},
		{"a typed error as Duet shows it", []string{"typed"}, result{5, "", "ERROR [NOT_THERE]: the thing is not there.\n"}},
		{"a group's unknown word, as urfave refuses it", []string{"nope"}, result{3, "", "No help topic for 'nope'\n"}},
	}
	for _, tt := range tests {
		for _, tty := range []adapters.Terminal{adapters.Piped, adapters.Console} {
			t.Run(fmt.Sprintf("%s/terminal=%v", tt.name, tty == adapters.Console), func(t *testing.T) {
				got := runPlain(t, tty, false, []string{"NO_COLOR=1", "PLAIN_NAME=env"}, tt.args...)
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(result{})); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestFaithfulPanic: the app's panic is reported as the Go runtime reports
// one, exit code 2, without taking the caller of Run down.
func TestFaithfulPanic(t *testing.T) {
	r := runPlain(t, adapters.Piped, false, nil, "boom")
	if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "panic: kaboom\n\ngoroutine ") {
		t.Errorf("exit %d, stdout %q, stderr %.80q; want exit 2 and the runtime's report on stderr", r.code, r.stdout, r.stderr)
	}
}

// TestFaithfulHelp: the app's help is the app's; Duet's built-ins are not
// listed for a command nobody ported, and are for an agent.
func TestFaithfulHelp(t *testing.T) {
	person := runPlain(t, adapters.Console, false, nil, "hello", "--help")
	for _, builtin := range []string{"--format", "--output", "--schema", "--timeout", "describe"} {
		if strings.Contains(person.stdout, builtin) {
			t.Errorf("a person's help lists Duet's %s:\n%s", builtin, person.stdout)
		}
	}
	if !strings.Contains(person.stdout, "--name") {
		t.Errorf("a person's help lacks the app's own flag:\n%s", person.stdout)
	}
	agent := runPlain(t, adapters.Piped, false, []string{"CLAUDECODE=1"}, "hello", "--help")
	if !strings.Contains(agent.stderr, "--format") || !strings.Contains(agent.stderr, "--output") || !strings.Contains(agent.stderr, "--name") {
		t.Errorf("an agent's help (on stderr) lists neither Duet's built-ins nor the app's flags:\n%s", agent.stderr)
	}
}

// TestPortedForAScript: a ported command prints its text rendering for a
// script, without colour, as for a person.
func TestPortedForAScript(t *testing.T) {
	for _, tty := range []adapters.Terminal{adapters.Piped, adapters.Console} {
		r := runPlain(t, tty, false, nil, "ported")
		if r.code != 0 || !strings.Contains(r.stdout, "i1") || tty == adapters.Piped && strings.Contains(r.stdout, "\x1b[") {
			t.Errorf("terminal %v: exit %d, stdout %q; want the text rendering, without colour in a pipe", tty, r.code, r.stdout)
		}
	}
}

// TestDuetFlagsForAnUnportedCommand: a Duet flag a person gives is Duet's
// to answer, even on a command nobody ported.
func TestDuetFlagsForAnUnportedCommand(t *testing.T) {
	r := runPlain(t, adapters.Piped, false, nil, "hello", "--schema")
	if r.code != 0 || !strings.Contains(r.stdout, `"danger_level": "unknown"`) {
		t.Errorf("--schema: exit %d, stdout %s", r.code, r.stdout)
	}
}

// TestAgentGetsWhatWasPrinted: for an agent, what an unported command
// prints is the envelope's data: the document it printed, else its text;
// its errors are typed.
func TestAgentGetsWhatWasPrinted(t *testing.T) {
	agent := []string{"CLAUDECODE=1"}
	w := wantOK(t, runPlain(t, adapters.Piped, false, agent, "hello"))
	if string(w.Data) != `{"stdout":"hello, world\n"}` {
		t.Errorf("data = %s, want the text it printed", w.Data)
	}
	w = wantOK(t, runPlain(t, adapters.Console, false, agent, "doc"))
	if string(w.Data) != `{"a":[1,2]}` {
		t.Errorf("data = %s, want the document it printed", w.Data)
	}
	wantError(t, runPlain(t, adapters.Piped, false, agent, "fail"), 1, "GENERAL_ERROR")
	wantError(t, runPlain(t, adapters.Piped, false, agent, "typed"), 5, "NOT_THERE")
	wantError(t, runPlain(t, adapters.Piped, false, agent, "nope"), 2, "UNKNOWN_COMMAND")
	wantError(t, runPlain(t, adapters.Piped, true, nil, "boom"), 1, "INTERNAL_ERROR")
}

// TestStrayOutput: what a ported command prints beside its result never
// reaches stdout (REQ-F-060): prose is a THIRD_PARTY_STDOUT warning quoting
// it, a JSON document is dropped, and --debug shows it on stderr,
// attributed.
func TestStrayOutput(t *testing.T) {
	tests := []struct {
		name, printed string
		args          []string
		warnings      []envelope.Warning
		stderr        string
	}{
		{"prose", "working...\n", nil, []envelope.Warning{{Code: "THIRD_PARTY_STDOUT", Message: "working. Next: it is not part of the answer; the tool's author should answer through envelope.Output only"}}, ""},
		{"a JSON document", `{"n":2}` + "\n", nil, []envelope.Warning{}, ""},
		{"under --debug", "working...\n", []string{"--debug"}, []envelope.Warning{{Code: "THIRD_PARTY_STDOUT", Message: "working. Next: it is not part of the answer; the tool's author should answer through envelope.Output only"}},
			"[stdout, not the answer] working...\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "x",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					fmt.Fprint(cmd.Root().Writer, tt.printed)
					return envelope.From(ctx).Result(map[string]int{"n": 1})
				}}, schema.Meta{Danger: schema.Safe})}}
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), app, append([]string{"x"}, tt.args...), adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
				adapters.WithEnv([]string{"APP_FORMAT=json"}), adapters.WithTerminal(adapters.Piped))
			w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
			if string(w.Data) != `{"n":1}` {
				t.Errorf("data %s, want the result alone", w.Data)
			}
			if diff := cmp.Diff(tt.warnings, w.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			// --debug writes its trace too: only the attributed line is held here.
			if got := strayLines(stderr.String()); got != tt.stderr {
				t.Errorf("stderr's stray lines = %q, want %q", got, tt.stderr)
			}
		})
	}
}

func strayLines(stderr string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "[stdout") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestUnknownDangerIsNotSafe: a command that declares no danger is unknown
// in --schema, and not marked read-only.
func TestUnknownDangerIsNotSafe(t *testing.T) {
	r := runPlain(t, adapters.Piped, false, []string{"CLAUDECODE=1"}, "hello", "--schema")
	var env struct {
		Data struct {
			Danger string `json:"danger_level"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil || env.Data.Danger != "unknown" {
		t.Errorf("danger_level %q (%v), want unknown: %s", env.Data.Danger, err, r.stdout)
	}
}

// TestPlainRun: an app nobody ported runs without its command line being
// read at all, and still gets the flag values the environment it was given
// holds, at every depth.
func TestPlainRun(t *testing.T) {
	newApp := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{{Name: "group", Commands: []*cli.Command{{
			Name:  "leaf",
			Flags: []cli.Flag{&cli.StringFlag{Name: "who", Sources: cli.EnvVars("APP_WHO")}},
			Action: func(_ context.Context, cmd *cli.Command) error {
				fmt.Fprintln(cmd.Root().Writer, "who:", cmd.String("who"))
				return nil
			},
		}}}}}
	}
	for _, args := range [][]string{{"group", "leaf"}, {"group", "leaf", "--who", "flag"}} {
		var stdout bytes.Buffer
		code := urfave.Run(context.Background(), newApp(), args, adapters.WithStdio(strings.NewReader(""), &stdout, &bytes.Buffer{}),
			adapters.WithEnv([]string{"APP_WHO=env"}), adapters.WithTerminal(adapters.Piped))
		want := "who: env\n"
		if len(args) > 2 {
			want = "who: flag\n"
		}
		if code != 0 || stdout.String() != want {
			t.Errorf("%q: exit %d, stdout %q, want %q", args, code, stdout.String(), want)
		}
	}
}
