package adapters_test

import (
	"context"
	"strings"
	"testing"

	spf13 "github.com/spf13/cobra"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

// TestGlobalScope holds Wrap to REQ-F-079's reserved names where the app
// asked for the spec's strictness: a ported command's own flag that reuses
// a global option's long name, alias or short name is refused with both
// flags named; an unported command, a non-strict app, and a flag only the
// root takes (not global) keep the app's flag.
func TestGlobalScope(t *testing.T) {
	strict := []urfave.Option{adapters.WithSpecStrict()}
	for _, tt := range []struct {
		name   string
		root   []cli.Flag // the app's own root flags
		local  cli.Flag   // the flag of command "render"
		ported bool
		opts   []urfave.Option
		says   []string // what Wrap's error says; nil: Wrap succeeds
	}{
		{name: "Duet's --format reused", local: &cli.StringFlag{Name: "format"}, ported: true, opts: strict,
			says: []string{`command "render": flag --format reuses --format, a name of the global option --format`, "REQ-F-079"}},
		{name: "Duet's --quiet reused as an alias", local: &cli.BoolFlag{Name: "silent", Aliases: []string{"quiet"}}, ported: true, opts: strict,
			says: []string{`flag --silent reuses --quiet, a name of the global option --quiet`}},
		{name: "the app's -f/--format against -f/--force",
			root:  []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}}},
			local: &cli.BoolFlag{Name: "force", Aliases: []string{"f"}}, ported: true, opts: strict,
			says: []string{`flag --force (-f) reuses -f, the short name of the global option --format (-f)`}},
		{name: "the app's global --data-dir reused",
			root:  []cli.Flag{&cli.StringFlag{Name: "data-dir"}},
			local: &cli.StringFlag{Name: "data-dir"}, ported: true, opts: strict,
			says: []string{`flag --data-dir reuses --data-dir, a name of the global option --data-dir`}},
		{name: "a root-local flag is not global",
			root:  []cli.Flag{&cli.StringFlag{Name: "data-dir", Local: true}},
			local: &cli.StringFlag{Name: "data-dir"}, ported: true, opts: strict},
		{name: "a command-local built-in (--output) is not global", local: &cli.StringFlag{Name: "output"}, ported: true, opts: strict},
		{name: "an unported command keeps its flag", local: &cli.StringFlag{Name: "format"}, ported: false, opts: strict},
		{name: "a non-strict app keeps its flag", local: &cli.StringFlag{Name: "format"}, ported: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			render := &cli.Command{Name: "render", Flags: []cli.Flag{tt.local}, Action: func(context.Context, *cli.Command) error { return nil }}
			if tt.ported {
				urfave.Annotate(render, schema.Meta{Danger: schema.Safe})
			}
			list := urfave.Annotate(&cli.Command{Name: "list", Action: func(context.Context, *cli.Command) error { return nil }}, schema.Meta{Danger: schema.Safe})
			root := &cli.Command{Name: "tool", Flags: tt.root, Commands: []*cli.Command{render, list}}
			_, err := urfave.Wrap(root, tt.opts...)
			if tt.says == nil {
				if err != nil {
					t.Fatalf("Wrap: %v, want the app's flag adopted", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Wrap succeeded; want it refused saying %q", tt.says)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Wrap error %q does not say %q", err, s)
				}
			}
		})
	}
}

// TestGlobalScopeCobra: the check is the engine's, so a cobra app's
// persistent root flag is a global option as urfave's is. (A short name
// reused under cobra never gets this far: pflag panics on it.)
func TestGlobalScopeCobra(t *testing.T) {
	root := &spf13.Command{Use: "tool"}
	root.PersistentFlags().String("profile-dir", "", "where profiles are")
	deploy := &spf13.Command{Use: "deploy", RunE: func(*spf13.Command, []string) error { return nil }}
	deploy.Flags().String("profile-dir", "", "the deploy profile's directory")
	root.AddCommand(cobra.Annotate(deploy, schema.Meta{Danger: schema.Mutating}))
	_, err := cobra.Wrap(root, adapters.WithSpecStrict())
	if want := `command "deploy": flag --profile-dir reuses --profile-dir, a name of the global option --profile-dir`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Wrap error %v, want one saying %q", err, want)
	}
	if _, err := cobra.Wrap(root); err != nil {
		t.Errorf("Wrap without WithSpecStrict: %v, want deploy's --profile-dir adopted", err)
	}
}
