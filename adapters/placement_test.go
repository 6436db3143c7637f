package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// placementApp has a command that takes options anywhere (list) and one
// that passes what follows its first argument to a program (exec, strict).
func placementApp() *cli.Command {
	echo := func(ctx context.Context, cmd *cli.Command) error {
		return envelope.From(ctx).Result(map[string]any{"args": cmd.Args().Slice(), "env": cmd.String("env"), "limit": cmd.Int("limit")})
	}
	return &cli.Command{Name: "tool", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "list", Action: echo, Flags: []cli.Flag{&cli.IntFlag{Name: "limit"}}},
			schema.Meta{Danger: schema.Safe, Args: []schema.Arg{{Name: "filter", Type: schema.String, Variadic: true}}}),
		urfave.Annotate(&cli.Command{Name: "exec", Action: echo, Flags: []cli.Flag{&cli.StringFlag{Name: "env"}}},
			schema.Meta{Danger: schema.Safe, OptionPlacement: schema.Strict, Args: []schema.Arg{{Name: "argv", Type: schema.String, Variadic: true}}}),
	}}
}

func runPlacement(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), placementApp(), args, run{}.options(&stdout, &stderr)...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestOptionPlacement: options are read wherever they are given, before or
// after the command's name and its arguments (F-067); a command declared
// strict refuses an option after its first argument instead of passing it
// on or misreading it, and says so in --schema (C-027).
func TestOptionPlacement(t *testing.T) {
	same := [][]string{
		{"list", "a", "--limit", "5"},
		{"list", "--limit", "5", "a"},
		{"--limit", "5", "list", "a"},
		{"--limit=5", "list", "a"},
		{"--format", "json", "list", "a", "--limit", "5"},
	}
	want := wantOK(t, runPlacement(t, same[0]...)).Data
	if !bytes.Contains(want, []byte(`"limit":5`)) || !bytes.Contains(want, []byte(`"args":["a"]`)) {
		t.Fatalf("list a --limit 5 = %s", want)
	}
	for _, args := range same[1:] {
		if got := wantOK(t, runPlacement(t, args...)).Data; !bytes.Equal(got, want) {
			t.Errorf("%q = %s, want %s as for %q", args, got, want, same[0])
		}
	}

	w := wantError(t, runPlacement(t, "exec", "make", "--env", "prod"), 2, "OPTION_AFTER_ARGUMENT")
	if w.Error.Phase != envelope.Validation || w.Error.Field != "env" {
		t.Errorf("exec make --env prod: phase %q field %q", w.Error.Phase, w.Error.Field)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "--env", "prod", "make"}, `{"args":["make"],"env":"prod","limit":0}`},
		{[]string{"exec", "--env", "prod", "make", "--", "--env", "x"}, `{"args":["make","--env","x"],"env":"prod","limit":0}`},
		{[]string{"--env", "prod", "exec", "make"}, `{"args":["make"],"env":"prod","limit":0}`},
		{[]string{"exec", "make", "--", "--env", "x"}, `{"args":["make","--env","x"],"env":"","limit":0}`},
	} {
		if got := string(wantOK(t, runPlacement(t, tt.args...)).Data); got != tt.want {
			t.Errorf("%q = %s, want %s", tt.args, got, tt.want)
		}
	}

	for cmd, want := range map[string]string{"exec": "strict", "list": "any"} {
		var doc map[string]any
		if err := json.Unmarshal(wantOK(t, runPlacement(t, cmd, "--schema")).Data, &doc); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, doc["option_placement"]); diff != "" {
			t.Errorf("%s --schema option_placement (-want +got):\n%s", cmd, diff)
		}
	}
}
