package adapters_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// quoteMeta is the declaration of the group rules' test command: one
// identifier of three (any_of), and one match mode of two (one_of).
var quoteMeta = schema.Meta{Danger: schema.Safe, NoArgs: true,
	Flags:    map[string]schema.FlagMeta{"fuzzy": {Env: []string{"QAPP_FUZZY"}}},
	Requires: []schema.Rule{schema.AnyOf("isin", "figi", "symbol"), schema.OneOf("exact", "fuzzy")}}

// runQuote runs `qapp quote args...` on fw, as an agent, and says whether
// the command ran.
func runQuote(t *testing.T, fw string, env []string, args ...string) (result, bool) {
	t.Helper()
	ran := false
	action := func(ctx context.Context) error { ran = true; return envelope.From(ctx).Result("quoted") }
	var root any
	switch fw {
	case "urfave":
		quote := urfave.Annotate(&cli.Command{Name: "quote", Usage: "quote", Flags: []cli.Flag{
			&cli.StringFlag{Name: "isin"}, &cli.StringFlag{Name: "figi"}, &cli.StringFlag{Name: "symbol"},
			&cli.BoolFlag{Name: "exact"}, &cli.BoolFlag{Name: "fuzzy"}},
			Action: func(ctx context.Context, _ *cli.Command) error { return action(ctx) }}, quoteMeta)
		root = &cli.Command{Name: "qapp", Usage: "quotes", Commands: []*cli.Command{quote}}
	case "cobra":
		c := &cobra.Command{Use: "qapp", Short: "quotes"}
		quote := &cobra.Command{Use: "quote", Short: "quote", RunE: func(c *cobra.Command, _ []string) error { return action(c.Context()) }}
		for _, n := range []string{"isin", "figi", "symbol"} {
			quote.Flags().String(n, "", "")
		}
		quote.Flags().Bool("exact", false, "")
		quote.Flags().Bool("fuzzy", false, "")
		c.AddCommand(duetcobra.Annotate(quote, quoteMeta))
		root = c
	}
	var stdout, stderr bytes.Buffer
	opts := []urfave.Option{adapters.WithSpecStrict(), adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(env)}
	argv := append([]string{"quote"}, args...)
	var code int
	if cmd, ok := root.(*cli.Command); ok {
		code = urfave.Run(context.Background(), cmd, argv, opts...)
	} else {
		code = duetcobra.Run(context.Background(), root.(*cobra.Command), argv, opts...)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}, ran
}

// TestRuleGroups: any_of and one_of rules (REQ-C-026), on both frameworks.
// A group with no flag given, and a one_of with two given, are refused
// before the command runs, naming every flag of the group; a boolean flag
// given false is not given, from the command line or the environment.
func TestRuleGroups(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		tests := []struct {
			name string
			env  []string
			args []string
			code string // "": accepted
		}{
			{"one identifier, one mode", nil, []string{"--isin", "US0378331005", "--exact"}, ""},
			{"two identifiers", nil, []string{"--isin", "x", "--symbol", "AAPL", "--fuzzy"}, ""},
			{"no identifier", nil, []string{"--exact"}, "MISSING_REQUIRED_FLAG"},
			{"no mode", nil, []string{"--symbol", "AAPL"}, "MISSING_REQUIRED_FLAG"},
			{"both modes", nil, []string{"--symbol", "AAPL", "--exact", "--fuzzy"}, "MUTUALLY_EXCLUSIVE_FLAGS"},
			{"exact false, fuzzy", nil, []string{"--symbol", "AAPL", "--exact=false", "--fuzzy"}, ""},
			{"exact false alone", nil, []string{"--symbol", "AAPL", "--exact=false"}, "MISSING_REQUIRED_FLAG"},
			{"fuzzy from the environment", []string{"QAPP_FUZZY=true"}, []string{"--symbol", "AAPL"}, ""},
			{"fuzzy false from the environment", []string{"QAPP_FUZZY=false"}, []string{"--symbol", "AAPL"}, "MISSING_REQUIRED_FLAG"},
			{"exact, and fuzzy from the environment", []string{"QAPP_FUZZY=1"}, []string{"--symbol", "AAPL", "--exact"}, "MUTUALLY_EXCLUSIVE_FLAGS"},
		}
		for _, tc := range tests {
			r, ran := runQuote(t, fw, tc.env, tc.args...)
			if tc.code == "" {
				wantOK(t, r)
				if !ran {
					t.Errorf("%s: accepted, but the command did not run", tc.name)
				}
				continue
			}
			w := wantError(t, r, 2, tc.code)
			if ran {
				t.Errorf("%s: the command ran", tc.name)
			}
			group := []string{"isin", "figi", "symbol"}
			if strings.Contains(w.Error.Message, "exact") {
				group = []string{"exact", "fuzzy"}
			}
			for _, name := range group {
				if !strings.Contains(w.Error.Message, "--"+name) {
					t.Errorf("%s: message %q does not name --%s", tc.name, w.Error.Message, name)
				}
			}
			if diff := cmp.Diff(group, w.Error.ValidValues); diff != "" {
				t.Errorf("%s: valid_values (-want +got):\n%s", tc.name, diff)
			}
		}
		// Both groups broken at once: one problem each.
		w := wantError(t, must(runQuote(t, fw, nil)), 2, "VALIDATION_FAILED")
		if len(w.Error.Errors) != 2 {
			t.Errorf("no flag at all: problems %+v, want one per group", w.Error.Errors)
		}
	})
	// --schema lists the groups as the spec's shapes.
	r, _ := runQuote(t, "urfave", nil, "--schema")
	want := []any{map[string]any{"any_of": []any{"isin", "figi", "symbol"}}, map[string]any{"one_of": []any{"exact", "fuzzy"}}}
	if diff := cmp.Diff(want, dataOf[map[string]any](t, wantOK(t, r))["requires"]); diff != "" {
		t.Errorf("requires (-want +got):\n%s", diff)
	}
}

func must(r result, _ bool) result { return r }

// TestRuleGroupsDeclared: a group rule that cannot be meant is refused
// when the app is wrapped.
func TestRuleGroupsDeclared(t *testing.T) {
	tests := []struct {
		rule schema.Rule
		says string
	}{
		{schema.AnyOf("isin"), "needs at least two flags"},
		{schema.OneOf("exact", "exact"), "names --exact twice"},
		{schema.OneOf("exact", "nope"), `names "nope"`},
		{schema.Rule{AnyOf: []string{"isin", "figi"}, OneOf: []string{"exact", "fuzzy"}}, "not both"},
		{schema.Rule{AnyOf: []string{"isin", "figi"}, IfFlag: "exact"}, "cannot be combined"},
	}
	for _, tc := range tests {
		cmd := urfave.Annotate(&cli.Command{Name: "quote", Usage: "quote", Flags: []cli.Flag{
			&cli.StringFlag{Name: "isin"}, &cli.StringFlag{Name: "figi"}, &cli.BoolFlag{Name: "exact"}},
			Action: func(context.Context, *cli.Command) error { return nil }},
			schema.Meta{Danger: schema.Safe, Requires: []schema.Rule{tc.rule}})
		_, err := urfave.Wrap(&cli.Command{Name: "qapp", Usage: "quotes", Commands: []*cli.Command{cmd}})
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: Wrap error %v, want one saying %q", tc.rule, err, tc.says)
		}
	}
}
