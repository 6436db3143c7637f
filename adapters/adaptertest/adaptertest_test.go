package adaptertest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// recorder is a testing.TB that keeps the failures reported to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestAssertDeclarations(t *testing.T) {
	noop := func(context.Context, *cli.Command) error { return nil }
	command := func(name string, output schema.Source) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Action: noop}, schema.Meta{Danger: schema.Safe, Output: output})
	}
	root := &cli.Command{Name: "tool", Commands: []*cli.Command{
		command("good", schema.Of[[]struct{ ID string }]()),
		command("none", nil),
		// Wrap cannot see these: Of builds on first use, and a negative
		// minLength passes the structural check but not the meta-schema.
		command("chan", schema.Of[struct{ C chan int }]()),
		command("negative", schema.MustParse(`{"type": "string", "minLength": -1}`)),
	}}
	app, err := urfave.Wrap(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	adaptertest.AssertDeclarations(rec, app)

	var got []string
	for _, e := range rec.errors {
		got = append(got, strings.SplitN(e, ":", 2)[0])
	}
	if diff := cmp.Diff([]string{`"chan"`, `"negative"`}, got); diff != "" {
		t.Errorf("failed commands mismatch (-want +got):\n%s\nerrors: %q", diff, rec.errors)
	}
	if len(rec.errors) == 2 && !strings.Contains(rec.errors[0], "cannot encode chan int") {
		t.Errorf("error for chan does not say why: %s", rec.errors[0])
	}
}

func TestWarnings(t *testing.T) {
	noop := func(context.Context, *cli.Command) error { return nil }
	type stamped struct {
		ID        string    `json:"id"`
		CreatedAt time.Time `json:"created_at"` // a fact about the item
		Timestamp time.Time `json:"timestamp"`  // when it was answered
	}
	root := &cli.Command{Name: "tool", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "show", Action: noop, Flags: []cli.Flag{
			&cli.StringFlag{Name: "space-id"},
			&cli.StringFlag{Name: "owner"},
			&cli.StringFlag{Name: "run-id"},
			&cli.StringFlag{Name: "key"},
		}}, schema.Meta{
			Danger: schema.Safe,
			Args:   []schema.Arg{{Name: "id", Type: schema.String, Required: true}},
			Flags: map[string]schema.FlagMeta{
				"run-id": {Pattern: schema.AlphanumericID},
				"key":    {ID: true},
			},
			Output: schema.Of[[]stamped](),
		}),
		urfave.Annotate(&cli.Command{Name: "get", Action: noop}, schema.Meta{
			Danger: schema.Safe,
			Args:   []schema.Arg{{Name: "uuid", Type: schema.String, ID: true, Pattern: schema.UUID}},
			Output: schema.Of[stamped](),
		}),
		// Not ported: nothing is asked of it.
		{Name: "legacy", Action: noop, Flags: []cli.Flag{&cli.StringFlag{Name: "item-id"}}},
	}}
	app, err := urfave.Wrap(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"get": output field "timestamp" is the time of the call, which belongs in meta.timestamp, not data`,
		`"show": flag --space-id is a resource id with no pattern`,
		`"show": flag --key is a resource id with no pattern`,
		`"show": argument <id> is a resource id with no pattern`,
		`"show": output field "timestamp" is the time of the call, which belongs in meta.timestamp, not data`,
	}
	if diff := cmp.Diff(want, adaptertest.Warnings(app)); diff != "" {
		t.Errorf("Warnings mismatch (-want +got):\n%s", diff)
	}
}

// TestRunRequiresEffect: in the app's test — Go's registration time — a
// mutating command that succeeds without reporting its effect fails the
// test (C-003); one that reports it passes.
func TestRunRequiresEffect(t *testing.T) {
	app, err := urfave.Wrap(&cli.Command{Name: "tool", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "silent", Action: func(context.Context, *cli.Command) error { return nil }},
			schema.Meta{Danger: schema.Mutating}),
		urfave.Annotate(&cli.Command{Name: "said", Action: func(ctx context.Context, _ *cli.Command) error {
			envelope.From(ctx).Effect(envelope.Created)
			return nil
		}}, schema.Meta{Danger: schema.Mutating}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	adaptertest.Run(rec, app, []string{"silent"})
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], `"silent" succeeded without reporting its effect`) {
		t.Errorf("errors %q, want one for the unreported effect", rec.errors)
	}
	rec = &recorder{TB: t}
	adaptertest.Run(rec, app, []string{"said"}).AssertOK(t)
	if len(rec.errors) != 0 {
		t.Errorf("a reported effect: errors %q", rec.errors)
	}
}

// TestWarningsEnvPrefix: a declared flag read from an environment variable
// without the tool's prefix is a warning; one with it is not (F-073).
func TestWarningsEnvPrefix(t *testing.T) {
	noop := func(context.Context, *cli.Command) error { return nil }
	app, err := urfave.Wrap(&cli.Command{Name: "my-tool", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "deploy", Action: noop, Flags: []cli.Flag{
			&cli.StringFlag{Name: "region", Sources: cli.EnvVars("REGION")},
			&cli.BoolFlag{Name: "trace", Sources: cli.EnvVars("MY_TOOL_TRACE")},
		}}, schema.Meta{Danger: schema.Safe}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"deploy": flag --region reads REGION, which lacks the tool's prefix MY_TOOL_`}
	if diff := cmp.Diff(want, adaptertest.Warnings(app)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
}
