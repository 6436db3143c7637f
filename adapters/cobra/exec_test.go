package cobra_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// execApp is a cobra app with a ported command (echo) and two unported ones
// (say, whisper), each of which reports the argument it got.
func execApp(said *[]string) *cobra.Command {
	root := &cobra.Command{Use: "app", SilenceUsage: true}
	echo := &cobra.Command{Use: "echo", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		return envelope.From(cmd.Context()).Result(map[string]string{"said": args[0]})
	}}
	duetcobra.Annotate(echo, schema.Meta{Danger: schema.Safe})
	say := &cobra.Command{Use: "say", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		if err := cmd.Context().Err(); err != nil || envelope.From(cmd.Context()).Used() {
			return fmt.Errorf("say %s ran with the context of an earlier run (%v)", args[0], err)
		}
		*said = append(*said, args[0])
		return nil
	}}
	whisper := &cobra.Command{Use: "whisper", RunE: say.RunE, Args: say.Args}
	root.AddCommand(echo, say, whisper)
	return root
}

// withArgs runs fn with os.Args set to args, as a test of an app's main
// does.
func withArgs(t *testing.T, args []string, fn func()) {
	t.Helper()
	old := os.Args
	os.Args = args
	defer func() { os.Args = old }()
	fn()
}

// TestExecAsExecute: duetcobra.Exec behaves as root.Execute() does when one
// process runs the app several times, as an app's own test suite does:
// each call reads the process's arguments of its time (none kept from an
// earlier call, a plain root.Execute() after it included), and a ported
// command answers every time (cobra keeps the context it gave a command;
// Duet gives the command back the one it had).
func TestExecAsExecute(t *testing.T) {
	var said []string
	root := execApp(&said)
	var stdout bytes.Buffer
	agent := []adapters.Option{adapters.WithStdio(strings.NewReader(""), &stdout, &bytes.Buffer{}),
		adapters.WithEnv([]string{"CLAUDECODE=1"}), adapters.WithTerminal(adapters.Piped)}

	for _, word := range []string{"first", "second"} {
		withArgs(t, []string{"app", "say", word}, func() {
			if err := duetcobra.Exec(root); err != nil {
				t.Errorf("Exec say %s: %v", word, err)
			}
		})
	}
	withArgs(t, []string{"app", "say", "third"}, func() {
		if err := root.Execute(); err != nil {
			t.Errorf("root.Execute after Exec: %v", err)
		}
	})
	if got := strings.Join(said, " "); got != "first second third" {
		t.Errorf("say got %q, want each call's own argument: first second third", got)
	}

	// An agent's failed call is answered, and its exit code returned —
	// the process goes on, as a test suite run by a coding agent must.
	stdout.Reset()
	withArgs(t, []string{"app", "echo"}, func() {
		var answered *adapters.ExitError
		if err := duetcobra.Exec(root, agent...); !errors.As(err, &answered) || answered.Code != 2 || adapters.ExitCode(err) != 2 {
			t.Errorf("Exec echo (no argument) for an agent: %v; want an *adapters.ExitError with code 2", err)
		}
	})
	if !strings.Contains(stdout.String(), `"ok":false`) {
		t.Errorf("Exec echo (no argument) for an agent answered %q; want its error's envelope", stdout.String())
	}

	for _, word := range []string{"one", "two"} {
		stdout.Reset()
		withArgs(t, []string{"app", "echo", word}, func() {
			if err := duetcobra.Exec(root, agent...); err != nil {
				t.Errorf("Exec echo %s: %v", word, err)
			}
		})
		var env struct{ Data map[string]string }
		if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || env.Data["said"] != word {
			t.Errorf("echo %s, ported, answered %q (%v); want its own envelope", word, stdout.String(), err)
		}
	}

	// The lifecycle's context, done once the run ends, is not left on the
	// root for the app's own Execute.
	withArgs(t, []string{"app", "whisper", "fourth"}, func() {
		if err := root.Execute(); err != nil {
			t.Errorf("root.Execute after an agent's Exec: %v", err)
		}
	})
}

// TestHelpPaddingAsBare: a person's --help of an app that ports one
// command lists the app's commands padded as the app alone pads them
// (cobra pads names to the longest of a parent's commands, and Duet's
// hidden built-ins, generate-skills and the like, are longer than the
// app's), and the built-ins still answer by name afterwards.
func TestHelpPaddingAsBare(t *testing.T) {
	newApp := func() *cobra.Command {
		root := &cobra.Command{Use: "app", Short: "an app"}
		ls := &cobra.Command{Use: "ls", Short: "list things", RunE: func(*cobra.Command, []string) error { return nil }}
		root.AddCommand(ls, &cobra.Command{Use: "rm", Short: "remove a thing", RunE: func(*cobra.Command, []string) error { return nil }})
		return root
	}
	commands := func(help string) string {
		_, rest, _ := strings.Cut(help, "Available Commands:\n")
		block, _, _ := strings.Cut(rest, "\n\n")
		return block
	}
	var bare bytes.Buffer
	plain := newApp()
	plain.SetArgs([]string{"--help"})
	plain.SetOut(&bare)
	if err := plain.Execute(); err != nil {
		t.Fatal(err)
	}

	ported := newApp()
	duetcobra.Annotate(ported.Commands()[0], schema.Meta{Danger: schema.Safe})
	app, err := duetcobra.Wrap(ported)
	if err != nil {
		t.Fatal(err)
	}
	var person bytes.Buffer
	adapters.Run(context.Background(), app, []string{"--help"},
		adapters.WithStdio(strings.NewReader(""), &person, &bytes.Buffer{}),
		adapters.WithEnv([]string{"HOME=" + t.TempDir()}), adapters.WithTerminal(adapters.Console))
	if diff := cmp.Diff(commands(bare.String()), commands(person.String())); diff != "" {
		t.Errorf("a person's --help lists the commands padded otherwise than the app alone (-bare +wrapped):\n%s", diff)
	}

	// The built-ins keep their names: the same app answers manifest.
	var agent bytes.Buffer
	code := adapters.Run(context.Background(), app, []string{"manifest"},
		adapters.WithStdio(strings.NewReader(""), &agent, &bytes.Buffer{}),
		adapters.WithEnv([]string{"HOME=" + t.TempDir(), "CLAUDECODE=1"}), adapters.WithTerminal(adapters.Piped))
	if code != 0 || !strings.Contains(agent.String(), `"commands"`) {
		t.Errorf("manifest after a person's --help: exit %d\n%s", code, agent.String())
	}
}

// TestCompletionForAgent: cobra's own completion command prints the script
// for a person and for a pipe (`source <(app completion bash)` reads one),
// and answers an agent that names itself with one envelope, the script in
// data.
func TestCompletionForAgent(t *testing.T) {
	for _, tt := range []struct {
		env      []string
		envelope bool
	}{
		{env: nil},
		{env: []string{"CLAUDECODE=1"}, envelope: true},
	} {
		root := &cobra.Command{Use: "app"}
		root.AddCommand(&cobra.Command{Use: "ls", Run: func(*cobra.Command, []string) {}})
		var stdout, stderr bytes.Buffer
		code := duetcobra.Run(context.Background(), root, []string{"completion", "bash"},
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(tt.env),
			adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict())
		var env struct {
			OK   bool
			Data struct{ Stdout string }
		}
		switch {
		case code != 0 || stderr.Len() > 0:
			t.Errorf("%v: exit %d, stderr %q", tt.env, code, stderr.String())
		case !tt.envelope && !strings.HasPrefix(stdout.String(), "# bash completion"):
			t.Errorf("%v: stdout %.80q; want cobra's script", tt.env, stdout.String())
		case tt.envelope && (json.Unmarshal(stdout.Bytes(), &env) != nil || !env.OK || !strings.HasPrefix(env.Data.Stdout, "# bash completion")):
			t.Errorf("%v: stdout %.80q; want one envelope holding cobra's script", tt.env, stdout.String())
		}
	}
}
