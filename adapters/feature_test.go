package adapters_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// probe is a feature that records what the lifecycle asks of it, and does
// what its fields say.
type probe struct {
	name   string
	log    *[]string
	answer bool  // Begin answers
	fail   error // Begin fails
	flag   string
	cmd    string // a command it adds, with a sub-command "sub"
	check  error
}

func (p probe) Name() string { return p.name }

func (p probe) Flags(c *schema.Command) []schema.Flag {
	if p.flag == "" || !c.Runnable || c.Builtin {
		return nil
	}
	return []schema.Flag{{Name: p.flag, Type: schema.String, Usage: "a probe's flag"}}
}

func (p probe) Check(c *schema.Command) error {
	if c.Name == "add" {
		return p.check
	}
	return nil
}

func (p probe) Begin(_ context.Context, inv *adapters.Invocation) (bool, error) {
	v, _ := inv.Flag(p.flag)
	*p.log = append(*p.log, "begin "+p.name+" "+v)
	inv.Set(p.name, "kept by "+p.name)
	if p.answer {
		inv.Output().Result(map[string]string{"answered_by": p.name})
	}
	return p.answer, p.fail
}

func (p probe) End(inv *adapters.Invocation, fail *envelope.Error) {
	code := ""
	if fail != nil {
		code = " " + fail.Code
	}
	*p.log = append(*p.log, "end "+p.name+code+" ("+inv.Get(p.name).(string)+")")
}

func (p probe) Commands() []adapters.Command {
	if p.cmd == "" {
		return nil
	}
	run := func(word string) func(context.Context, *adapters.Invocation) error {
		return func(_ context.Context, inv *adapters.Invocation) error {
			return inv.Output().Result(map[string]string{"ran": word, "by": p.name})
		}
	}
	return []adapters.Command{{
		Node: &schema.Command{Name: p.cmd, Usage: "a probe's group", Commands: []*schema.Command{
			{Name: "sub", Usage: "a probe's command", Runnable: true, NoArgs: true, Meta: schema.Meta{Danger: schema.Safe}},
		}},
		Run: run(p.cmd + ".sub"),
	}}
}

var (
	_ adapters.Flagger   = probe{}
	_ adapters.Checker   = probe{}
	_ adapters.Hook      = probe{}
	_ adapters.Commander = probe{}
)

func featureApp(log *[]string) *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "add", Action: func(ctx context.Context, _ *cli.Command) error {
			*log = append(*log, "add ran")
			return envelope.From(ctx).Result(map[string]string{"added": "x"})
		}}, schema.Meta{Danger: schema.Safe}),
	}}
}

// runFeatures runs app once as an agent, with features.
func runFeatures(t *testing.T, log *[]string, features []adapters.Feature, args ...string) (int, wire) {
	t.Helper()
	r := runAgentIn(t, t.TempDir(), featureApp(log), []urfave.Option{adapters.WithFeatures(features...)}, args...)
	return r.code, envelopeOf(t, r)
}

// TestFeatureHooks holds the lifecycle to what adapters.Hook promises:
// features begin in the order given and end in reverse; one that answers or
// fails ends the run before the command, and only the features that began
// before it end; values kept in Begin are there in End.
func TestFeatureHooks(t *testing.T) {
	tests := []struct {
		name     string
		features func(log *[]string) []adapters.Feature
		code     int
		want     []string
	}{
		{"both run around the command", func(log *[]string) []adapters.Feature {
			return []adapters.Feature{probe{name: "a", log: log, flag: "a-key"}, probe{name: "b", log: log}}
		}, 0, []string{"begin a k", "begin b ", "add ran", "end b (kept by b)", "end a (kept by a)"}},
		{"the second answers", func(log *[]string) []adapters.Feature {
			return []adapters.Feature{probe{name: "a", log: log, flag: "a-key"}, probe{name: "b", log: log, answer: true}}
		}, 0, []string{"begin a k", "begin b ", "end a (kept by a)"}},
		{"the first fails", func(log *[]string) []adapters.Feature {
			return []adapters.Feature{probe{name: "a", log: log, flag: "a-key", fail: envelope.Errorf(exitcode.Conflict, "PROBE_REFUSED", "no")}, probe{name: "b", log: log}}
		}, 6, []string{"begin a k"}},
		{"given again under its name, the later replaces it", func(log *[]string) []adapters.Feature {
			return []adapters.Feature{probe{name: "a", log: log, answer: true}, probe{name: "b", log: log}, probe{name: "a", log: log, flag: "a-key"}}
		}, 0, []string{"begin a k", "begin b ", "add ran", "end b (kept by b)", "end a (kept by a)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			code, answer := runFeatures(t, &log, tt.features(&log), "add", "--a-key", "k")
			if code != tt.code {
				t.Errorf("exit %d, want %d: %v", code, tt.code, answer)
			}
			if diff := cmp.Diff(tt.want, log); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFeatureCommandsAndChecks: a feature's command is added under the root
// as a built-in, its group shows help and its sub-command runs; an app's
// command of that name keeps its place; a Checker's error fails Wrap naming
// the command; and without the feature none of it is there.
func TestFeatureCommandsAndChecks(t *testing.T) {
	var log []string
	p := probe{name: "p", log: &log, cmd: "probe"}
	code, answer := runFeatures(t, &log, []adapters.Feature{p}, "probe", "sub")
	if code != 0 || !strings.Contains(string(answer.Data), `"ran":"probe.sub"`) {
		t.Errorf("probe sub: exit %d, data %s; want 0 and the feature's action", code, answer.Data)
	}
	if code, _ := runFeatures(t, &log, nil, "probe", "sub"); code != 2 {
		t.Errorf("probe sub without the feature: exit %d, want 2", code)
	}
	// The app's own command of the name wins.
	taken := probe{name: "p", log: &log, cmd: "add"}
	log = nil
	if code, _ := runFeatures(t, &log, []adapters.Feature{taken}, "add"); code != 0 || !slices.Contains(log, "add ran") {
		t.Errorf("the app's add with a feature's add: exit %d, calls %v; want the app's", code, log)
	}
	if _, answer := runFeatures(t, &log, []adapters.Feature{taken}, "describe", "--index"); strings.Contains(string(answer.Data), "add.sub") {
		t.Errorf("describe lists the feature's add.sub beside the app's add: %s", answer.Data)
	}

	// A command without its action, or a nil feature, is a clear error
	// or nothing: never a panic.
	if _, err := urfave.Wrap(featureApp(&log), adapters.WithFeatures(nil, actionless{})); err == nil || !strings.Contains(err.Error(), `feature "actionless"`) {
		t.Errorf("Wrap with a command that has no Run = %v, want an error naming the feature", err)
	}
	// Run reports Wrap's error on the process's stderr, exit 1 (as Main).
	if exit := urfave.Run(context.Background(), featureApp(&log), []string{"add"}, adapters.WithSpecStrict(),
		adapters.WithStdio(strings.NewReader(""), io.Discard, io.Discard), adapters.WithFeatures(nil, actionless{})); exit != 1 {
		t.Errorf("a run with a command that has no Run: exit %d, want 1", exit)
	}

	broken := probe{name: "p", log: &log, check: errors.New("add cannot take a probe")}
	_, err := urfave.Wrap(featureApp(&log), adapters.WithFeatures(broken))
	if err == nil || !strings.Contains(err.Error(), `command "add"`) || !strings.Contains(err.Error(), "add cannot take a probe") {
		t.Errorf("Wrap with a Checker that refuses add = %v, want an error naming the command and the reason", err)
	}
}

// actionless adds a command it gives no action.
type actionless struct{}

func (actionless) Name() string { return "actionless" }

func (actionless) Commands() []adapters.Command {
	return []adapters.Command{{Node: &schema.Command{Name: "idle", Runnable: true}}}
}

// shouting adds --format shout: the JSON envelope, upper-cased.
type shouting struct{}

func (shouting) Name() string { return "shouting" }

func (shouting) Formats() map[envelope.Format]func(dst, env []byte) ([]byte, error) {
	return map[envelope.Format]func(dst, env []byte) ([]byte, error){
		"shout": func(dst, env []byte) ([]byte, error) { return append(dst, bytes.ToUpper(env)...), nil },
	}
}

// TestFeatureFormat: a Formatter's format is one --format takes, and its
// answer is the whole envelope re-encoded, as toon's is — not a format the
// core knows by name.
func TestFeatureFormat(t *testing.T) {
	var log []string
	var stdout bytes.Buffer
	code := urfave.Run(context.Background(), featureApp(&log), []string{"add", "--format", "shout"}, adapters.WithSpecStrict(),
		adapters.WithStdio(strings.NewReader(""), &stdout, io.Discard), adapters.WithFeatures(shouting{}))
	if got := stdout.String(); code != 0 || !strings.HasPrefix(got, `{"OK":TRUE,"DATA":{"ADDED":"X"}`) {
		t.Errorf("add --format shout: exit %d, stdout %q; want 0 and the envelope upper-cased", code, got)
	}
}
