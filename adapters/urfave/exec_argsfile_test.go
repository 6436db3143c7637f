package urfave_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/argsfile"
)

// TestExecTakesArgsFile: an app that keeps its own main (Exec) runs the
// command line an MCP server or a web UI handed over in a file, as one
// that calls Main does, and the file and its variable are gone after.
func TestExecTakesArgsFile(t *testing.T) {
	path, env, err := argsfile.Write(t.TempDir(), []string{"hello", "a very long prompt"})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(argsfile.Env, env[len(argsfile.Env)+1:])
	var got []string
	root := &cli.Command{Name: "app", Commands: []*cli.Command{{
		Name:   "hello",
		Action: func(_ context.Context, cmd *cli.Command) error { got = cmd.Args().Slice(); return nil },
	}}}
	if err := urfave.Exec(context.Background(), root, []string{"app"}); err != nil {
		t.Fatalf("Exec: %v", err)
	}
	if diff := cmp.Diff([]string{"a very long prompt"}, got); diff != "" {
		t.Errorf("hello's arguments (-want +got):\n%s", diff)
	}
	if _, set := os.LookupEnv(argsfile.Env); set {
		t.Errorf("%s is still set", argsfile.Env)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file is still there: %v", err)
	}
}
