package urfavev2_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfavev2"
)

// TestExec: an app that keeps its own main gets back what a command nobody
// ported returns, for its main to report as before, and prints nothing of
// it itself; when Duet answers (an agent), the answer is written and Exec
// returns its exit code as an *adapters.ExitError, which wraps the
// command's own error — it never exits the process, which would end an
// app's test suite run under a coding agent.
func TestExec(t *testing.T) {
	broke := errors.New("it broke")
	app := func() *cli.App {
		return &cli.App{Name: "app", Commands: []*cli.Command{
			{Name: "ok", Action: func(c *cli.Context) error { _, err := c.App.Writer.Write([]byte("fine\n")); return err }},
			{Name: "fail", Action: func(*cli.Context) error { return broke }},
			{Name: "coded", Action: func(*cli.Context) error { return cli.Exit("", 4) }},
		}}
	}
	for _, tt := range []struct {
		args           []string
		agent          bool
		err            error
		exit           int // of the error, by adapters.ExitCode
		stdout, stderr string
	}{
		{args: []string{"app", "ok"}, stdout: "fine\n"},
		{args: []string{"app", "fail"}, err: broke, exit: 1},
		{args: []string{"app", "ok"}, agent: true, stdout: `"stdout":"fine\n"`},
		{args: []string{"app", "fail"}, agent: true, err: broke, exit: 1, stdout: `"code":"GENERAL_ERROR"`},
		{args: []string{"app", "nope"}, agent: true, exit: 2, stdout: `"code":"UNKNOWN_COMMAND"`},
		// The app's own code, which a script gets from urfave, reaches an
		// agent as it is, never as 1.
		{args: []string{"app", "coded"}, agent: true, exit: 4, stdout: `"code":"APP_EXIT","message":"coded exited with code 4"`},
	} {
		var stdout, stderr strings.Builder
		opts := []adapters.Option{adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithTerminal(adapters.Piped)}
		if tt.agent {
			opts = append(opts, adapters.WithEnv([]string{"CLAUDECODE=1"}))
		}
		err := urfavev2.Exec(context.Background(), app(), tt.args, opts...)
		var answered *adapters.ExitError
		switch {
		case tt.agent && tt.exit != 0 && (!errors.As(err, &answered) || answered.Code != tt.exit):
			t.Errorf("%q as an agent: err %v; want an *adapters.ExitError with code %d", tt.args, err, tt.exit)
		case tt.agent && tt.err != nil && !errors.Is(err, tt.err):
			t.Errorf("%q as an agent: err %v; want it to wrap the command's own, %v", tt.args, err, tt.err)
		case !tt.agent && !errors.Is(err, tt.err), adapters.ExitCode(err) != tt.exit:
			t.Errorf("%q: err %v (exit code %d); want %v (exit code %d)", tt.args, err, adapters.ExitCode(err), tt.err, tt.exit)
		case tt.agent && !strings.Contains(stdout.String(), tt.stdout), !tt.agent && stdout.String() != tt.stdout, !tt.agent && stderr.String() != tt.stderr:
			t.Errorf("%q: stdout %q, stderr %q; want %q, %q", tt.args, stdout.String(), stderr.String(), tt.stdout, tt.stderr)
		}
	}
}
