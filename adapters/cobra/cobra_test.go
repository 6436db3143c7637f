package cobra_test

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
	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/schema"
)

// answer is one invocation's outcome, stdout decoded when it is an envelope.
type answer struct {
	code           int
	stdout, stderr string
	env            struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error *envelope.Error `json:"error"`
		Meta  map[string]any  `json:"meta"`
	}
}

// run runs root in agent mode with env as its whole environment.
func run(t *testing.T, root *cobra.Command, env []string, args ...string) answer {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := answer{code: duetcobra.Run(context.Background(), root, args,
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv(env), adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict())}
	a.stdout, a.stderr = stdout.String(), stderr.String()
	if strings.HasPrefix(a.stdout, "{") {
		if err := json.Unmarshal(jsontest.One(t, stdout.Bytes()), &a.env); err != nil {
			t.Fatalf("stdout is not an envelope: %v\n%s", err, a.stdout)
		}
	}
	return a
}

func (a answer) wantError(t *testing.T, exit int, codes ...string) {
	t.Helper()
	if a.code != exit || a.env.Error == nil {
		t.Fatalf("exit %d, error %v; want exit %d\nstdout %s\nstderr %s", a.code, a.env.Error, exit, a.stdout, a.stderr)
	}
	var got []string
	for _, e := range a.env.Error.Errors {
		got = append(got, e.Code)
	}
	if len(got) == 0 {
		got = []string{a.env.Error.Code}
	}
	if diff := cmp.Diff(codes, got); diff != "" {
		t.Errorf("error codes (-want +got):\n%s\n%s", diff, a.stdout)
	}
}

func noop(*cobra.Command, []string) error { return nil }

func TestTree(t *testing.T) {
	list := &cobra.Command{Use: "list", Short: "List things", Aliases: []string{"ls"}, RunE: noop}
	f := list.Flags()
	f.StringP("status", "s", "open", "filter")
	f.Bool("all", false, "everything")
	f.Int("count", 10, "how many")
	f.Uint8("small", 0, "a byte")
	f.Float64("ratio", 0.5, "a ratio")
	f.Duration("wait", 5*time.Second, "how long")
	f.StringSlice("tag", nil, "tags")
	f.StringArray("name", []string{"a", "b"}, "names")
	f.IntSlice("id", nil, "ids")
	f.IntSlice("port", []int{80, 443}, "ports")
	f.StringToString("label", nil, "labels")
	f.StringToInt("weight", nil, "weights")
	f.CountP("verbose", "v", "louder")
	f.String("secret", "", "hidden one")
	_ = f.MarkHidden("secret")
	f.String("space", "", "the space")
	_ = list.MarkFlagRequired("space")
	root := &cobra.Command{Use: "app", Short: "the app"}
	root.PersistentFlags().String("config", "", "config file")
	group := &cobra.Command{Use: "group", Short: "a group"}
	group.AddCommand(list)
	root.AddCommand(group)

	app, err := duetcobra.Wrap(root)
	if err != nil {
		t.Fatal(err)
	}
	node := app.Tree().Find("group.list")
	if node == nil || !node.Runnable || app.Tree().Find("group").Runnable {
		t.Fatalf("group.list %+v, want a runnable command under a group that is not", node)
	}
	var own []schema.Flag
	for _, f := range node.Flags {
		if !f.Builtin {
			own = append(own, f)
		}
	}
	want := []schema.Flag{
		{Name: "all", Type: schema.Boolean, Usage: "everything", Default: false},
		{Name: "count", Type: schema.Integer, Usage: "how many", Default: int64(10)},
		{Name: "id", Type: schema.Array, Items: schema.Integer, Usage: "ids"},
		{Name: "label", Type: schema.Object, Items: schema.String, Usage: "labels"},
		{Name: "name", Type: schema.Array, Items: schema.String, Usage: "names", Default: []any{"a", "b"}},
		{Name: "port", Type: schema.Array, Items: schema.Integer, Usage: "ports", Default: []any{int64(80), int64(443)}},
		{Name: "ratio", Type: schema.Number, Usage: "a ratio", Default: 0.5},
		{Name: "secret", Type: schema.String, Usage: "hidden one", Hidden: true},
		{Name: "small", Type: schema.Integer, Usage: "a byte", Default: int64(0)},
		{Name: "space", Type: schema.String, Usage: "the space", Required: true},
		{Name: "status", Short: "s", Type: schema.String, Usage: "filter", Default: "open"},
		{Name: "tag", Type: schema.Array, Items: schema.String, Usage: "tags"},
		{Name: "verbose", Short: "v", Type: schema.Integer, Usage: "louder", Count: true, Default: int64(0)},
		{Name: "wait", Type: schema.String, Format: "duration", Usage: "how long", Default: "5s"},
		{Name: "weight", Type: schema.Object, Items: schema.Integer, Usage: "weights"},
	}
	if diff := cmp.Diff(want, own, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if c := app.Tree().Flag("config"); c == nil || !c.Persistent || node.Flag("config") == nil {
		t.Errorf("--config: %+v on the root, %+v on list; want a persistent flag both accept", c, node.Flag("config"))
	}
	for _, hidden := range []string{"help", "completion", cobra.ShellCompRequestCmd} {
		if c := app.Tree().Sub(hidden); c != nil && !c.Hidden {
			t.Errorf("cobra's %q is in the tree and not hidden", hidden)
		}
	}
}

// groupApp has one command with a flag of each group kind.
func groupApp(ran *bool) *cobra.Command {
	pick := &cobra.Command{Use: "pick", RunE: func(*cobra.Command, []string) error { *ran = true; return nil }}
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		pick.Flags().String(name, "", "flag "+name)
	}
	pick.MarkFlagsMutuallyExclusive("a", "b")
	pick.MarkFlagsRequiredTogether("c", "d")
	pick.MarkFlagsOneRequired("e", "f")
	duetcobra.Annotate(pick, schema.Meta{Danger: schema.Safe})
	root := &cobra.Command{Use: "app"}
	root.AddCommand(pick)
	return root
}

func TestFlagGroups(t *testing.T) {
	var ran bool
	a := run(t, groupApp(&ran), nil, "pick", "--a", "1", "--b", "2", "--c", "3")
	a.wantError(t, 2, "MUTUALLY_EXCLUSIVE_FLAGS", "FLAGS_REQUIRED_TOGETHER", "ONE_FLAG_REQUIRED")
	if ran || a.env.Error.Phase != envelope.Validation {
		t.Errorf("ran %v, phase %q; want not run, validation", ran, a.env.Error.Phase)
	}

	a = run(t, groupApp(&ran), nil, "pick", "--schema")
	var doc struct {
		Groups []schema.Group `json:"flag_groups"`
	}
	if err := json.Unmarshal(a.env.Data, &doc); err != nil {
		t.Fatal(err)
	}
	want := []schema.Group{
		{Kind: schema.MutuallyExclusive, Flags: []string{"a", "b"}},
		{Kind: schema.RequiredTogether, Flags: []string{"c", "d"}},
		{Kind: schema.OneRequired, Flags: []string{"e", "f"}},
	}
	if diff := cmp.Diff(want, doc.Groups); diff != "" {
		t.Errorf("--schema flag_groups (-want +got):\n%s", diff)
	}

	a = run(t, groupApp(&ran), nil, "pick", "--a", "1", "--c", "3", "--d", "4", "--f", "6")
	if a.code != 0 || !ran {
		t.Errorf("exit %d, ran %v; want the command to run: %s", a.code, ran, a.stdout)
	}
}

// trapApp has the shapes cobra handles badly on its own: required
// positional arguments, a required flag, and a group without RunE.
func trapApp(ran *bool) *cobra.Command {
	show := &cobra.Command{Use: "show <id>", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { *ran = true; return nil }}
	show.Flags().String("space", "", "the space")
	_ = show.MarkFlagRequired("space")
	duetcobra.Annotate(show, schema.Meta{Danger: schema.Safe, Args: []schema.Arg{{Name: "id", Required: true, Type: schema.String}}})
	group := &cobra.Command{Use: "runs", Short: "runs"}
	group.AddCommand(show)
	root := &cobra.Command{Use: "app", SilenceErrors: false, SilenceUsage: false}
	root.AddCommand(group)
	return root
}

func TestTraps(t *testing.T) {
	var ran bool
	if a := run(t, trapApp(&ran), nil, "runs", "show", "--schema"); a.code != 0 || !a.env.OK {
		t.Errorf("--schema on a command with a required argument: exit %d\n%s", a.code, a.stdout)
	}
	tests := []struct {
		args  []string
		codes []string
	}{
		{[]string{"runs", "show"}, []string{"MISSING_REQUIRED_FLAG", "MISSING_ARGUMENT"}},
		{[]string{"runs", "show", "r1", "r2", "--space", "s"}, []string{"UNEXPECTED_ARGUMENT"}},
		{[]string{"runs", "nope"}, []string{"UNKNOWN_COMMAND"}},
		{[]string{"nope", "deeper"}, []string{"UNKNOWN_COMMAND"}},
		{[]string{"runs", "show", "r1", "--space", "s", "--bogus"}, []string{"UNKNOWN_FLAG"}},
	}
	for _, tt := range tests {
		a := run(t, trapApp(&ran), nil, tt.args...)
		a.wantError(t, 2, tt.codes...)
		if a.env.Error.Phase != envelope.Validation || ran {
			t.Errorf("%q: phase %q, ran %v; want validation, not run", tt.args, a.env.Error.Phase, ran)
		}
		// The app left cobra's error and usage printing on: Duet's
		// envelope is the only answer, and cobra prints nothing.
		if strings.Contains(a.stderr, "Error:") || strings.Contains(a.stderr, "Usage:") {
			t.Errorf("%q: cobra printed on stderr: %q", tt.args, a.stderr)
		}
	}
	if a := run(t, trapApp(&ran), nil, "runs", "show", "r1", "--space", "s"); a.code != 0 || !ran {
		t.Errorf("valid call: exit %d, ran %v\n%s", a.code, ran, a.stdout)
	}
}

// TestRunEErrors checks that an error from RunE is answered by the
// lifecycle, mapped like any other, with nothing printed by cobra.
func TestRunEErrors(t *testing.T) {
	root := &cobra.Command{Use: "app"}
	root.AddCommand(&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error {
		return envelope.Errorf(5, "GONE", "it is gone")
	}})
	root.AddCommand(&cobra.Command{Use: "plain", RunE: func(*cobra.Command, []string) error {
		return errors.New("boom")
	}})
	a := run(t, root, nil, "fail")
	a.wantError(t, 5, "GONE")
	a = run(t, root, nil, "plain")
	a.wantError(t, 1, "GENERAL_ERROR")
	if strings.Contains(a.stderr, "Error: boom") {
		t.Errorf("cobra printed the error: %q", a.stderr)
	}
}

// TestContextAndEnv checks that RunE sees the invocation's context (its
// result handle works) and that a flag bound to an environment variable in
// Meta satisfies cobra's own required-flag check.
func TestContextAndEnv(t *testing.T) {
	var got string
	var verbosity int
	whoami := &cobra.Command{Use: "whoami", RunE: func(cmd *cobra.Command, _ []string) error {
		return envelope.From(cmd.Context()).Result(map[string]any{"token": got, "verbosity": verbosity})
	}}
	whoami.Flags().StringVar(&got, "token", "", "the token")
	whoami.Flags().CountVarP(&verbosity, "loud", "l", "louder") // not -v: --verbose is a global option (REQ-F-079)
	_ = whoami.MarkFlagRequired("token")
	duetcobra.Annotate(whoami, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"token": {Env: []string{"APP_TOKEN"}, Sensitive: true}}})
	if whoami.Context() == nil {
		t.Fatal("Annotate left no declarations on the command")
	}
	root := &cobra.Command{Use: "app"}
	root.AddCommand(whoami)

	a := run(t, root, []string{"APP_TOKEN=from-env"}, "whoami", "-lll")
	if a.code != 0 || string(a.env.Data) != `{"token":"from-env","verbosity":3}` {
		t.Errorf("exit %d data %s; want the token from the environment and -lll counted\n%s", a.code, a.env.Data, a.stdout)
	}
	run(t, root, nil, "whoami").wantError(t, 2, "MISSING_REQUIRED_FLAG")
}

// TestAnnotateLeavesNoTrace checks that Wrap gives a command back the context
// it had before Annotate.
func TestAnnotateLeavesNoTrace(t *testing.T) {
	cmd := duetcobra.Annotate(&cobra.Command{Use: "x", RunE: noop}, schema.Meta{Danger: schema.Mutating})
	duetcobra.Annotate(cmd, schema.Meta{Danger: schema.Destructive, DryRun: true}) // the second call wins
	root := &cobra.Command{Use: "app"}
	root.AddCommand(cmd)
	app, err := duetcobra.Wrap(root)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Context() != nil {
		t.Errorf("the command kept a context after Wrap: %v", cmd.Context())
	}
	if got := app.Tree().Find("x").Danger(); got != schema.Destructive {
		t.Errorf("danger = %q, want the second Annotate's", got)
	}
}

// TestCompletion checks that cobra's completion commands pass through: a
// shell gets cobra's script and candidates, never an envelope, and describe
// lists neither them nor cobra's help command.
func TestCompletion(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "app"}
		root.AddCommand(&cobra.Command{Use: "list", Short: "List things", RunE: noop})
		root.AddCommand(&cobra.Command{Use: "launch", Short: "Launch things", RunE: noop})
		return root
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		a := run(t, newRoot(), nil, "completion", shell)
		if a.code != 0 || strings.HasPrefix(a.stdout, "{") || !strings.Contains(a.stdout, "app") {
			t.Errorf("completion %s: exit %d, stdout %.80q", shell, a.code, a.stdout)
		}
	}
	a := run(t, newRoot(), nil, cobra.ShellCompRequestCmd, "l")
	if a.code != 0 || !strings.Contains(a.stdout, "list\tList things") || !strings.Contains(a.stdout, "launch") {
		t.Errorf("__complete l: exit %d, stdout %q", a.code, a.stdout)
	}
	a = run(t, newRoot(), nil, "describe")
	var m struct {
		Commands map[string]json.RawMessage `json:"commands"`
	}
	if err := json.Unmarshal(a.env.Data, &m); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"help", "completion", cobra.ShellCompRequestCmd} {
		if _, ok := m.Commands[name]; ok {
			t.Errorf("describe lists cobra's %q", name)
		}
	}
}
