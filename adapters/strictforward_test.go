package adapters_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// TestStrictForwards: a strict command whose framework stops reading
// options at its first argument (StopOnNthArg: 1) gets every later token
// as an argument, options included, and is not refused (REQ-C-027 v1.16);
// the options before the first argument are still its own. The same
// command left to read options anywhere is refused (TestOptionPlacement).
func TestStrictForwards(t *testing.T) {
	first := 1
	app := func() *cli.Command {
		echo := func(ctx context.Context, cmd *cli.Command) error {
			return envelope.From(ctx).Result(map[string]any{"args": cmd.Args().Slice(), "env": cmd.String("env")})
		}
		return &cli.Command{Name: "tool", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "exec", Action: echo, StopOnNthArg: &first, Flags: []cli.Flag{&cli.StringFlag{Name: "env"}}},
				schema.Meta{Danger: schema.Safe, OptionPlacement: schema.Strict, Args: []schema.Arg{{Name: "argv", Type: schema.String, Variadic: true}}}),
		}}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "--env", "prod", "make", "--env", "x", "-j4"}, `{"args":["make","--env","x","-j4"],"env":"prod"}`},
		{[]string{"exec", "make", "--format", "json"}, `{"args":["make","--format","json"],"env":""}`},
		{[]string{"--format", "json", "exec", "--env", "prod", "make", "--unknown"}, `{"args":["make","--unknown"],"env":"prod"}`},
		{[]string{"exec", "--env", "prod", "--", "make", "--env"}, `{"args":["make","--env"],"env":"prod"}`},
	} {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), app(), tt.args, run{}.options(&stdout, &stderr)...)
		if got := string(wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()}).Data); got != tt.want {
			t.Errorf("%q = %s, want %s", tt.args, got, tt.want)
		}
	}
}
