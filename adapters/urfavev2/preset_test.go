package urfavev2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfavev2"
	"github.com/duet-cli/duet/schema"
)

// TestPreset: a flag's value from the environment the lifecycle is given
// (not the process's) reaches the action, before v2 checks required flags,
// and the command line's value wins over it — a repeatable flag's too — in
// a ported command and in one nobody ported (whose command line the
// lifecycle leaves unread).
func TestPreset(t *testing.T) {
	type saw struct {
		Region string
		Tags   []string
	}
	for _, tt := range []struct {
		name string
		args []string
		want saw
	}{
		{"from the environment", []string{"deploy"}, saw{"eu", []string{"a", "b"}}},
		{"from the command line", []string{"deploy", "--region", "us", "--tag", "c"}, saw{"us", []string{"c"}}},
	} {
		for _, ported := range []bool{false, true} {
			var got saw
			app := &cli.App{Name: "app"}
			deploy := &cli.Command{
				Name: "deploy",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "region", EnvVars: []string{"APP_REGION"}, Required: true},
					&cli.StringSliceFlag{Name: "tag", EnvVars: []string{"APP_TAGS"}},
				},
				Action: func(c *cli.Context) error {
					got = saw{c.String("region"), c.StringSlice("tag")}
					return nil
				},
			}
			other := &cli.Command{Name: "other", Action: func(*cli.Context) error { return nil }}
			app.Commands = []*cli.Command{deploy, other}
			if ported {
				urfavev2.Annotate(app, deploy, schema.Meta{Danger: schema.Safe})
			} else {
				urfavev2.Annotate(app, other, schema.Meta{Danger: schema.Safe})
			}
			var out strings.Builder
			code := urfavev2.Run(context.Background(), app, tt.args,
				adapters.WithStdio(strings.NewReader(""), &out, &out), adapters.WithTerminal(adapters.Piped),
				adapters.WithEnv([]string{"APP_REGION=eu", "APP_TAGS=a,b"}))
			if code != 0 {
				t.Fatalf("%s (ported %v): exit %d: %s", tt.name, ported, code, out.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (ported %v): the action saw (-want +got):\n%s", tt.name, ported, diff)
			}
		}
	}
}
