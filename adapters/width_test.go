package adapters_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// policyURL is longer than any width the tests wrap at: it must stay whole.
const policyURL = "https://example.com/policies/deployments/production/freeze-windows/2026-q1"

// widthApp's deploy warns and fails with prose long enough to wrap.
func widthApp() *cli.Command {
	deploy := &cli.Command{Name: "deploy", Usage: "Deploy", Action: func(ctx context.Context, _ *cli.Command) error {
		envelope.From(ctx).Warn("SLOW_TARGET", "the target answered slowly and the results may lag behind the dashboard", "")
		return envelope.Errorf(exitcode.Precondition, "DEPLOY_FROZEN", "deploys are frozen this week by the policy at %s until Monday", policyURL)
	}}
	urfave.Annotate(deploy, schema.Meta{Danger: schema.Safe})
	return &cli.Command{Name: "ship", Commands: []*cli.Command{deploy}}
}

// runWidth runs widthApp's deploy; NO_COLOR keeps escapes out of stderr.
func runWidth(t *testing.T, env []string, tty adapters.Terminal, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), widthApp(), append([]string{"deploy"}, args...),
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv(append([]string{"NO_COLOR=1"}, env...)),
		adapters.WithTerminal(tty))
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestWidthWrapsProseForAPerson holds F-056: at a terminal, the warnings
// and the error on stderr wrap at --width (or $COLUMNS) columns, words kept
// whole, a URL wider than the width unbroken on its own line; --width 0, a
// pipe, or a terminal of unknown size leave them unwrapped; and JSON is one
// line whatever the width.
func TestWidthWrapsProseForAPerson(t *testing.T) {
	terminal := adapters.Console
	unwrapped := "WARNING [SLOW_TARGET]: the target answered slowly and the results may lag behind the dashboard.\n" +
		"ERROR [DEPLOY_FROZEN]: deploys are frozen this week by the policy at " + policyURL + " until Monday.\n"
	at40 := "WARNING [SLOW_TARGET]: the target\n" +
		"answered slowly and the results may lag\n" +
		"behind the dashboard.\n" +
		"ERROR [DEPLOY_FROZEN]: deploys are\n" +
		"frozen this week by the policy at\n" +
		policyURL + "\n" +
		"until Monday.\n"
	tests := []struct {
		name string
		env  []string
		tty  adapters.Terminal
		args []string
		want string
	}{
		{"--width 40 at a terminal", nil, terminal, []string{"--width", "40"}, at40},
		{"--width=40 wins over COLUMNS", []string{"COLUMNS=100"}, terminal, []string{"--width=40"}, at40},
		{"COLUMNS is the terminal's width", []string{"COLUMNS=40"}, terminal, nil, at40},
		{"--width 0 never wraps", []string{"COLUMNS=40"}, terminal, []string{"--width", "0"}, unwrapped},
		{"a terminal of unknown width", nil, terminal, nil, unwrapped},
		{"stderr is a pipe", []string{"COLUMNS=40"}, adapters.StdoutTerminal, nil, unwrapped},
		{"--width wider than every line", nil, terminal, []string{"--width", "500"}, unwrapped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runWidth(t, tt.env, tt.tty, tt.args...)
			if r.code != int(exitcode.Precondition) {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitcode.Precondition, r.stderr)
			}
			if diff := cmp.Diff(tt.want, r.stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("JSON is never wrapped", func(t *testing.T) {
		for _, args := range [][]string{{"--format", "json"}, {"--format", "json", "--width", "40"}} {
			r := runWidth(t, []string{"COLUMNS=40"}, terminal, args...)
			w := wantError(t, r, int(exitcode.Precondition), "DEPLOY_FROZEN")
			if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
				t.Errorf("stdout is not one line:\n%s", r.stdout)
			}
			if !strings.Contains(w.Error.Message, policyURL) || strings.Contains(w.Error.Message, "\n") {
				t.Errorf("error.message = %q, want the URL whole on one line", w.Error.Message)
			}
			if r.stderr != "" {
				t.Errorf("stderr = %q, want nothing", r.stderr)
			}
		}
	})

	t.Run("a negative width is refused", func(t *testing.T) {
		r := runWidth(t, nil, terminal, "--format", "json", "--width", "-1")
		w := wantError(t, r, int(exitcode.ArgError), "INVALID_FLAG_VALUE")
		if w.Error.Phase != envelope.Validation {
			t.Errorf("phase = %q, want validation", w.Error.Phase)
		}
	})
}
