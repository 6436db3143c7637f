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
// it itself.
func TestExec(t *testing.T) {
	broke := errors.New("it broke")
	app := func() *cli.App {
		return &cli.App{Name: "app", Commands: []*cli.Command{
			{Name: "ok", Action: func(c *cli.Context) error { _, err := c.App.Writer.Write([]byte("fine\n")); return err }},
			{Name: "fail", Action: func(*cli.Context) error { return broke }},
		}}
	}
	for _, tt := range []struct {
		args           []string
		err            error
		stdout, stderr string
	}{
		{[]string{"app", "ok"}, nil, "fine\n", ""},
		{[]string{"app", "fail"}, broke, "", ""},
	} {
		var stdout, stderr strings.Builder
		err := urfavev2.Exec(context.Background(), app(), tt.args,
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithTerminal(adapters.Piped))
		if !errors.Is(err, tt.err) || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
			t.Errorf("%q: err %v, stdout %q, stderr %q; want %v, %q, %q", tt.args, err, stdout.String(), stderr.String(), tt.err, tt.stdout, tt.stderr)
		}
	}
}
