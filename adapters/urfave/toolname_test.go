package urfave_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// TestToolName: an app whose root bears a display name ("Acme Notes") is
// named, in the commands Duet suggests and in its variables, as its users
// type it — WithToolName's name, else the binary's — never by words a
// shell cannot run.
func TestToolName(t *testing.T) {
	bin := filepath.Base(os.Args[0])
	for _, tt := range []struct {
		opts   []adapters.Option
		env    string // the variable that asks for text, named after the tool
		suffix string // how the fix for a purge without --yes starts
	}{
		{env: strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(bin)) + "_FORMAT=text", suffix: bin + " purge"},
		{opts: []adapters.Option{adapters.WithToolName("acme")}, env: "ACME_FORMAT=text", suffix: "acme purge"},
	} {
		purge := urfave.Annotate(&cli.Command{Name: "purge", Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			if out.DryRun() {
				out.Effect(envelope.Deleted.Would())
			} else {
				out.Effect(envelope.Deleted)
			}
			return out.Result(map[string]int{"purged": 1})
		}},
			schema.Meta{Danger: schema.Destructive, DryRun: true})
		root := &cli.Command{Name: "Acme Notes", Commands: []*cli.Command{purge}}
		app, err := urfave.Wrap(root, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		code := adapters.Run(context.Background(), app, []string{"purge"},
			adapters.WithStdio(strings.NewReader(""), &stdout, &bytes.Buffer{}), adapters.WithTerminal(adapters.Piped),
			adapters.WithEnv([]string{"CLAUDECODE=1"}))
		if code != 2 || !strings.Contains(stdout.String(), "'"+tt.suffix+" --yes'") || strings.Contains(stdout.String(), "Acme Notes purge") {
			t.Errorf("%v: purge without --yes: exit %d, %s; want exit 2 and a fix that starts %q", tt.opts, code, stdout.String(), tt.suffix)
		}
		stdout.Reset()
		adapters.Run(context.Background(), app, []string{"purge", "--yes"},
			adapters.WithStdio(strings.NewReader(""), &stdout, &bytes.Buffer{}), adapters.WithTerminal(adapters.Piped),
			adapters.WithEnv([]string{"CLAUDECODE=1", tt.env}))
		if strings.HasPrefix(stdout.String(), "{") {
			t.Errorf("%v: %s asked for text; got %s", tt.opts, tt.env, stdout.String())
		}
	}
}
