package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// historyApp is release 2 of a tool: deploy (from release 1), old-deploy
// deprecated in favour of it, and, in release 1 only, the given extra
// commands.
func historyApp(extra ...*cli.Command) *cli.Command {
	deploy := &cli.Command{Name: "deploy", Usage: "Deploy", Flags: []cli.Flag{&cli.StringFlag{Name: "target", Usage: "where"}},
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]bool{"deployed": true})
		}}
	urfave.Annotate(deploy, schema.Meta{Danger: schema.Safe})
	old := &cli.Command{Name: "old-deploy", Usage: "Deploy the old way",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]bool{"deployed": true})
		}}
	urfave.Annotate(old, schema.Meta{Danger: schema.Safe, IntroducedIn: "1.0.0", DeprecatedIn: "2.0.0", Replacement: "hist deploy", RemovedIn: "3.0.0"})
	return &cli.Command{Name: "hist", Usage: "a tool with a history", Commands: append([]*cli.Command{deploy, old}, extra...)}
}

// describeOf is the describe document of app at version, as a release
// would keep it for the next one's WithHistory.
func describeOf(t *testing.T, app *cli.Command, version string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts := append(run{}.options(&stdout, &stderr), adapters.WithVersion(version))
	if code := urfave.Run(context.Background(), app, []string{"describe", "--full"}, opts...); code != 0 {
		t.Fatalf("describe: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// TestSubcommandStability holds F-075: a command, flag or exit code of
// the previous release that is gone without having been deprecated there
// fails the app at registration (Wrap); one deprecated there may go. A
// deprecated command still runs, answers as before, and writes the spec's
// structured DEPRECATED line, with its replacement, on stderr. The
// manifest lists when each command was introduced and deprecated:
// describe as introduced_in/deprecated_in/replacement/removed_in, `tool
// manifest` (the spec's closed CommandEntry) in the description.
func TestSubcommandStability(t *testing.T) {
	gone := func() *cli.Command {
		c := &cli.Command{Name: "gone", Usage: "Gone", Action: func(context.Context, *cli.Command) error { return nil }}
		urfave.Annotate(c, schema.Meta{Danger: schema.Safe})
		return c
	}
	retired := func() *cli.Command {
		c := gone()
		c.Name = "retired"
		urfave.Annotate(c, schema.Meta{Danger: schema.Safe, DeprecatedIn: "1.0.0", Replacement: "hist deploy"})
		return c
	}
	v1 := describeOf(t, historyApp(gone(), retired()), "1.0.0")

	_, err := urfave.Wrap(historyApp(retired()), adapters.WithVersion("2.0.0"), adapters.WithHistory(v1))
	if err == nil || !strings.Contains(err.Error(), "gone") || strings.Contains(err.Error(), "retired") {
		t.Errorf("Wrap without the undeprecated command: %v, want an error naming gone and not retired", err)
	}
	noFlag := historyApp(gone())
	noFlag.Commands[0].Flags = nil
	if _, err := urfave.Wrap(noFlag, adapters.WithVersion("2.0.0"), adapters.WithHistory(v1)); err == nil || !strings.Contains(err.Error(), "--target") {
		t.Errorf("Wrap without deploy's --target: %v, want an error naming it", err)
	}
	if _, err := urfave.Wrap(historyApp(gone()), adapters.WithVersion("2.0.0"), adapters.WithHistory(v1)); err != nil {
		t.Errorf("Wrap with every command kept or deprecated: %v", err)
	}
	// The compact describe leaves out what commands share: refused, saying
	// which document to keep.
	var compact bytes.Buffer
	if code := urfave.Run(context.Background(), historyApp(gone()), []string{"describe"}, run{}.options(&compact, &bytes.Buffer{})...); code != 0 {
		t.Fatalf("describe: exit %d", code)
	}
	if _, err := urfave.Wrap(historyApp(gone()), adapters.WithHistory(compact.Bytes())); err == nil || !strings.Contains(err.Error(), "describe --full") {
		t.Errorf("Wrap with a compact describe as history: %v, want an error naming describe --full", err)
	}

	// A deprecated command runs, and says so on stderr.
	var stdout, stderr bytes.Buffer
	opts := append(run{}.options(&stdout, &stderr), adapters.WithVersion("2.0.0"), adapters.WithHistory(v1))
	code := urfave.Run(context.Background(), historyApp(gone()), []string{"old-deploy"}, opts...)
	w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
	if string(w.Data) != `{"deployed":true}` {
		t.Errorf("old-deploy data %s, want its answer", w.Data)
	}
	var line struct {
		Level, Code, Message, Replacement string
		RemovedIn                         string `json:"removed_in"`
	}
	first, _, _ := strings.Cut(stderr.String(), "\n")
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatalf("stderr's first line is not JSON: %v\n%s", err, stderr.String())
	}
	if line.Level != "warn" || line.Code != "DEPRECATED" || line.Replacement != "hist deploy" || line.RemovedIn != "3.0.0" || !strings.Contains(line.Message, "use hist deploy instead") {
		t.Errorf("deprecation line %+v", line)
	}
	// --quiet: the envelope's warning alone, not a byte on stderr (REQ-O-008).
	stdout.Reset()
	stderr.Reset()
	code = urfave.Run(context.Background(), historyApp(gone()), []string{"old-deploy", "--quiet"}, opts...)
	if w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()}); len(w.Warnings) != 1 || stderr.Len() != 0 {
		t.Errorf("old-deploy --quiet: warnings %+v, stderr %q; want the warning in the envelope alone", w.Warnings, stderr.String())
	}

	// The manifests say when each command came, and went.
	fresh := gone()
	fresh.Name = "fresh"
	stdout.Reset()
	stderr.Reset()
	if code := urfave.Run(context.Background(), historyApp(gone(), fresh), []string{"describe", "--full"}, opts...); code != 0 {
		t.Fatalf("describe: exit %d\n%s", code, stderr.String())
	}
	var desc struct {
		Data struct {
			Commands map[string]struct {
				IntroducedIn string `json:"introduced_in"`
				DeprecatedIn string `json:"deprecated_in"`
				Replacement  string `json:"replacement"`
			} `json:"commands"`
		} `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &desc); err != nil {
		t.Fatal(err)
	}
	type history struct{ Introduced, Deprecated, Replacement string }
	got := map[string]history{}
	for _, path := range []string{"deploy", "old-deploy", "fresh"} {
		d := desc.Data.Commands[path]
		got[path] = history{d.IntroducedIn, d.DeprecatedIn, d.Replacement}
	}
	want := map[string]history{
		"deploy":     {Introduced: "1.0.0"}, // release 1 did not say, but had it
		"old-deploy": {"1.0.0", "2.0.0", "hist deploy"},
		"fresh":      {Introduced: "2.0.0"}, // new in this release
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("describe's history (-want +got):\n%s", diff)
	}
	stdout.Reset()
	if code := urfave.Run(context.Background(), historyApp(gone()), []string{"manifest"}, opts...); code != 0 {
		t.Fatalf("manifest: exit %d", code)
	}
	var man struct {
		Data struct {
			Commands map[string]struct{ Description string } `json:"commands"`
		} `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &man); err != nil {
		t.Fatal(err)
	}
	if d := man.Data.Commands["old-deploy"].Description; !strings.Contains(d, "Introduced in 1.0.0. Deprecated in 2.0.0: use hist deploy. Removed in 3.0.0.") {
		t.Errorf("manifest's old-deploy description %q lacks its history", d)
	}
}
