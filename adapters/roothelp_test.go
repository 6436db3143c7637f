package adapters_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	spf13 "github.com/spf13/cobra"
	cliv2 "github.com/urfave/cli/v2"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/adapters/urfavev2"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// TestRootEnvHelp: the paragraph the adapters end the root's description
// with names the variables the app declares and, for a ported app only,
// those Duet reads for it — its own, a ported command's Meta.Flags ones —
// and those every Duet tool reads (O-043); an unported app without
// declared variables gets nothing.
func TestRootEnvHelp(t *testing.T) {
	token := adapters.WithEnvVar("APP_TOKEN", "string", "the API token")
	const declared = "Environment variables it reads:\nAPP_TOKEN (string): the API token"
	const duet = "Settings it reads from the environment (`tool manifest` describes each): TOOL_MAX_OUTPUT_BYTES, TOOL_MAX_STDIN_BYTES, TOOL_CONFIG_DIR, TOOL_STATE_DIR, " +
		"TOOL_AUDIT_LOG, TOOL_SESSION_ID, TOOL_TRACE_ID"
	sync := &schema.Command{Name: "sync", Path: []string{"sync"}, Declared: true,
		Meta: schema.Meta{Flags: map[string]schema.FlagMeta{"api-key": {Env: []string{"TOOL_API_KEY"}}}}}
	plain := &schema.Command{Name: "tool"}
	withKey := &schema.Command{Name: "tool", Commands: []*schema.Command{sync}}
	for _, tt := range []struct {
		name   string
		root   *schema.Command
		ported bool
		opts   []adapters.Option
		want   string
	}{
		{"unported, nothing declared", plain, false, nil, ""},
		{"unported, a variable declared", plain, false, []adapters.Option{token}, declared},
		{"ported, nothing declared", plain, true, nil, duet + ".\n\n" + describe.AmbientEnv},
		{"ported, a variable declared", plain, true, []adapters.Option{token}, declared + "\n\n" + duet + ".\n\n" + describe.AmbientEnv},
		{"ported, a flag's variable in Meta.Flags", withKey, true, nil, duet + "; and for flags: TOOL_API_KEY (sync --api-key).\n\n" + describe.AmbientEnv},
	} {
		if diff := cmp.Diff(tt.want, adapters.RootEnvHelp(tt.root, tt.ported, tt.opts...)); diff != "" {
			t.Errorf("%s: RootEnvHelp (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestRootHelpNamesAmbientEnv holds the three adapters to O-043: the root
// --help of an app that ports a command names every variable AGENTS.md's
// AmbientEnv sentence names, and that of an app nobody ported does not
// change. Each app is run as a person at a terminal would, with no agent in
// the environment.
func TestRootHelpNamesAmbientEnv(t *testing.T) {
	apps := map[string]func(ported bool, opts ...adapters.Option) (stdout, stderr string){
		"urfave v3": func(ported bool, opts ...adapters.Option) (string, string) {
			list := &cli.Command{Name: "list", Usage: "List items", Action: func(context.Context, *cli.Command) error { return nil }}
			if ported {
				urfave.Annotate(list, schema.Meta{Danger: schema.Safe})
			}
			root := &cli.Command{Name: "tool", Usage: "a tool", Commands: []*cli.Command{list}}
			return runHelp(func(ctx context.Context, args []string, opts ...adapters.Option) int {
				return urfave.Run(ctx, root, args, opts...)
			}, opts)
		},
		"urfave v2": func(ported bool, opts ...adapters.Option) (string, string) {
			app := &cliv2.App{Name: "tool", Usage: "a tool"}
			list := &cliv2.Command{Name: "list", Usage: "List items", Action: func(*cliv2.Context) error { return nil }}
			if ported {
				urfavev2.Annotate(app, list, schema.Meta{Danger: schema.Safe})
			}
			app.Commands = []*cliv2.Command{list}
			return runHelp(func(ctx context.Context, args []string, opts ...adapters.Option) int {
				return urfavev2.Run(ctx, app, args, opts...)
			}, opts)
		},
		"cobra": func(ported bool, opts ...adapters.Option) (string, string) {
			root := &spf13.Command{Use: "tool", Short: "a tool"}
			list := &spf13.Command{Use: "list", Short: "List items", RunE: func(*spf13.Command, []string) error { return nil }}
			if ported {
				cobra.Annotate(list, schema.Meta{Danger: schema.Safe})
			}
			root.AddCommand(list)
			return runHelp(func(ctx context.Context, args []string, opts ...adapters.Option) int {
				return cobra.Run(ctx, root, args, opts...)
			}, opts)
		},
	}
	for name, help := range apps {
		t.Run(name, func(t *testing.T) {
			stdout, stderr := help(true)
			got := stdout + stderr
			if !strings.Contains(got, describe.AmbientEnv) {
				t.Errorf("--help of a ported app does not end its description with %q:\n%s", describe.AmbientEnv, got)
			}
			// The declared variables come first, the ambient sentence after.
			stdout, stderr = help(true, adapters.WithEnvVar("APP_TOKEN", "string", "the API token"))
			got = stdout + stderr
			if i, j := strings.Index(got, "APP_TOKEN (string): the API token"), strings.Index(got, describe.AmbientEnv); i < 0 || j < i {
				t.Errorf("--help of a ported app that declares APP_TOKEN: want it, then %q:\n%s", describe.AmbientEnv, got)
			}
			stdout, stderr = help(false)
			if got := stdout + stderr; strings.Contains(got, "Also read") {
				t.Errorf("--help of an app nobody ported names Duet's variables:\n%s", got)
			}
		})
	}
}

// runHelp runs `tool --help` as a person at a terminal, with no agent in
// the environment, and returns what it wrote.
func runHelp(run func(context.Context, []string, ...adapters.Option) int, opts []adapters.Option) (stdout, stderr string) {
	var out, errb bytes.Buffer
	opts = append([]adapters.Option{adapters.WithStdio(strings.NewReader(""), &out, &errb),
		adapters.WithTerminal(adapters.Console), adapters.WithEnv([]string{"HOME=/nonexistent"})}, opts...)
	run(context.Background(), []string{"--help"}, opts...)
	return out.String(), errb.String()
}

// TestAgentsMDAmbientEnv: AGENTS.md names the variables every Duet tool
// reads under the condition the root --help does (TestRootEnvHelp): for an
// app that ports a command, and then in the same words.
func TestAgentsMDAmbientEnv(t *testing.T) {
	for _, ported := range []bool{true, false} {
		list := &cli.Command{Name: "list", Usage: "List items", Action: func(context.Context, *cli.Command) error { return nil }}
		if ported {
			urfave.Annotate(list, schema.Meta{Danger: schema.Safe})
		}
		root := &cli.Command{Name: "tool", Usage: "a tool", Commands: []*cli.Command{list}}
		var out, errb bytes.Buffer
		urfave.Run(context.Background(), root, []string{"describe", "--agents-md", "--format", "text"},
			adapters.WithStdio(strings.NewReader(""), &out, &errb), adapters.WithTerminal(adapters.Console), adapters.WithEnv([]string{"HOME=/nonexistent"}))
		md := out.String()
		if !strings.Contains(md, "## Environment Variables\n") {
			t.Fatalf("ported %v: describe --agents-md wrote no Environment Variables section:\n%s%s", ported, md, errb.String())
		}
		if got := strings.Contains(md, "\n"+describe.AmbientEnv+"\n"); got != ported {
			t.Errorf("ported %v: AGENTS.md names Duet's variables: %v, want %v:\n%s", ported, got, ported, md)
		}
	}
}
