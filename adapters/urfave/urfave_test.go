package urfave_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

func noop(context.Context, *cli.Command) error { return nil }

func TestAnnotate(t *testing.T) {
	cmd := &cli.Command{Name: "x", Metadata: map[string]any{"mine": 1}}
	meta := schema.Meta{Danger: schema.Mutating, List: true}
	if got := urfave.Annotate(cmd, meta); got != cmd {
		t.Error("Annotate does not return its command")
	}
	if cmd.Metadata["mine"] != 1 {
		t.Error("Annotate dropped the app's own metadata")
	}
	bare := urfave.Annotate(&cli.Command{Name: "y"}, meta)
	if bare.Metadata == nil {
		t.Error("Annotate left Metadata nil")
	}
}

func TestTree(t *testing.T) {
	list := &cli.Command{
		Name: "list", Aliases: []string{"ls"}, Usage: "List things", Action: noop,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Aliases: []string{"s"}, Usage: "filter", Value: "open", Sources: cli.EnvVars("APP_STATUS")},
			&cli.IntFlag{Name: "count", Required: true},
			&cli.BoolFlag{Name: "all"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second},
			&cli.StringSliceFlag{Name: "tag"},
			&cli.FloatFlag{Name: "ratio", Hidden: true},
			&ownFlag{},
		},
	}
	urfave.Annotate(list, schema.Meta{Danger: schema.Safe, List: true, Flags: map[string]schema.FlagMeta{"status": {Enum: []string{"open", "done"}}}})
	root := &cli.Command{Name: "app", Commands: []*cli.Command{
		{Name: "group", Commands: []*cli.Command{list}},
	}}
	app, err := urfave.Wrap(root)
	if err != nil {
		t.Fatal(err)
	}
	tree := app.Tree()
	node := tree.Find("group.list")
	if node == nil {
		t.Fatalf("no group.list in the tree")
	}
	if diff := cmp.Diff([]string{"group", "list"}, node.Path); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}
	if !node.Runnable || tree.Find("group").Runnable {
		t.Errorf("runnable: list %v group %v, want true, false", node.Runnable, tree.Find("group").Runnable)
	}
	if tree.Sub("describe") == nil {
		t.Error("Wrap did not add describe")
	}
	want := []schema.Flag{
		{Name: "status", Short: "s", Type: schema.String, Usage: "filter", Default: "open", Env: []string{"APP_STATUS"}, Enum: []string{"open", "done"}, Persistent: true},
		{Name: "count", Type: schema.Integer, Required: true, Default: 0, Persistent: true},
		{Name: "all", Type: schema.Boolean, Default: false, Persistent: true},
		{Name: "wait", Type: schema.String, Format: "duration", Default: "5s", Persistent: true},
		{Name: "tag", Type: schema.Array, Items: schema.String, Persistent: true},
		{Name: "ratio", Type: schema.Number, Hidden: true, Default: float64(0), Persistent: true},
		{Name: "own", Short: "o", Type: schema.String, Required: true},
	}
	var own []schema.Flag
	for _, f := range node.Flags {
		if !f.Builtin {
			own = append(own, f)
		}
	}
	if diff := cmp.Diff(want, own, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	for _, name := range []string{"timeout", "validate-only", "fields", "limit", "cursor", "output", "schema"} {
		if node.Flag(name) == nil {
			t.Errorf("list lacks the built-in --%s", name)
		}
	}
	if y := node.Flag("yes"); y != nil && !y.Hidden { // a hidden, idle --yes is accepted (C-005)
		t.Error("a safe command got a confirming --yes")
	}
}

// ownFlag is an app's own flag type: urfave's Flag interface, required and
// local, and none of urfave's other optional interfaces.
type ownFlag struct{ value string }

func (f *ownFlag) String() string        { return "--own" }
func (f *ownFlag) Get() any              { return f.value }
func (f *ownFlag) PreParse() error       { return nil }
func (f *ownFlag) PostParse() error      { return nil }
func (f *ownFlag) Set(_, v string) error { f.value = v; return nil }
func (f *ownFlag) Names() []string       { return []string{"own", "o"} }
func (f *ownFlag) IsSet() bool           { return f.value != "" }
func (f *ownFlag) IsRequired() bool      { return true }
func (f *ownFlag) IsLocal() bool         { return true }

func TestClassify(t *testing.T) {
	app, err := urfave.Wrap(&cli.Command{Name: "app", Action: noop})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		msg  string
		code string
	}{
		{"flag provided but not defined: -x", "UNKNOWN_FLAG"},
		{`invalid value "a" for flag -n: parse error`, "INVALID_FLAG_VALUE"},
		{`Required flag "space" not set`, "MISSING_REQUIRED_FLAG"},
		{`unknown command "x"`, "UNKNOWN_COMMAND"},
		{"something else", "USAGE_ERROR"},
	}
	for _, tt := range tests {
		e := app.Classify(errors.New(tt.msg))
		if e == nil || e.Code != tt.code || e.Exit != 2 || e.Phase != "validation" {
			t.Errorf("Classify(%q) = %+v, want %s, exit 2, validation", tt.msg, e, tt.code)
		}
	}
	if app.Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
}

// TestRunEndToEnd: Run wraps, runs the action and answers with one envelope.
func TestRunEndToEnd(t *testing.T) {
	ran := false
	root := &cli.Command{Name: "app", Commands: []*cli.Command{{Name: "go", Action: func(context.Context, *cli.Command) error { ran = true; return nil }}}}
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), root, []string{"go"},
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict())
	if code != 0 || !ran {
		t.Fatalf("exit %d ran %v; stderr %s", code, ran, stderr.String())
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || len(env) != 5 {
		t.Errorf("stdout = %s", stdout.String())
	}
}

func TestHelpInAgentMode(t *testing.T) {
	root := &cli.Command{Name: "app", Usage: "the app", Commands: []*cli.Command{{Name: "go", Usage: "go somewhere", Action: noop}}}
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), root, []string{"--help"},
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict())
	if code != 0 {
		t.Errorf("exit = %d", code)
	}
	var env struct {
		OK   bool            `json:"ok"`
		Data json.RawMessage `json:"data"`
		Meta map[string]any  `json:"meta"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		t.Fatalf("stdout is not an envelope: %q", stdout.String())
	}
	if !env.OK || string(env.Data) != "null" || env.Meta["help"] != true {
		t.Errorf("help stub = %s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "go somewhere") {
		t.Errorf("help text not on stderr: %q", stderr.String())
	}
}

// TestExtensionGroup: an extension's command with sub-commands is a group —
// each sub-command runs the extension, which reads which one (Host.Path)
// and every value of a repeated flag (Host.FlagValues); the group alone
// shows its help, and an unknown sub-command is refused before it runs.
func TestExtensionGroup(t *testing.T) {
	var ran [][]string
	ext := adapters.WithExtension(adapters.Extension{
		Command: schema.Command{Name: "grp", Usage: "a group", Commands: []*schema.Command{
			{Name: "one", Usage: "the first", Flags: []schema.Flag{{Name: "v", Type: schema.Array, Usage: "values"}}},
			{Name: "two", Usage: "the second"},
		}},
		Run: func(_ context.Context, h *adapters.Host) int {
			ran = append(ran, append(h.Path(), h.FlagValues("v")...))
			return 0
		},
	})
	for _, tt := range []struct {
		args []string
		exit int
		ran  [][]string
		out  string
	}{
		{[]string{"grp", "one", "--v", "a", "--v", "b"}, 0, [][]string{{"grp", "one", "a", "b"}}, ""},
		{[]string{"grp", "two"}, 0, [][]string{{"grp", "two"}}, ""},
		{[]string{"grp"}, 0, nil, "the second"},
		{[]string{"grp", "three"}, 2, nil, ""},
	} {
		ran = nil
		var stdout, stderr bytes.Buffer
		app := &cli.Command{Name: "app", Commands: []*cli.Command{{Name: "x", Action: noop}}}
		exit := urfave.Run(context.Background(), app, tt.args, ext,
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithTerminal(adapters.Console), adapters.WithEnv([]string{"HOME=/nonexistent"}))
		if exit != tt.exit || !cmp.Equal(tt.ran, ran) || !strings.Contains(stdout.String()+stderr.String(), tt.out) {
			t.Errorf("%v: exit %d, ran %q; want %d, %q\nstdout %s\nstderr %s", tt.args, exit, ran, tt.exit, tt.ran, &stdout, &stderr)
		}
	}
}
