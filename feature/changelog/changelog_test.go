package changelog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/feature/changelog"
	"github.com/duet-cli/duet/feature/level3"
)

var history = []changelog.Entry{
	{Version: "1.0.0", Date: "2026-01-01", Added: []string{"command show"}},
	{Version: "2.0.0", Date: "2026-06-01", Breaking: true, Removed: []string{"flag --count"}},
	{Version: "1.10.0", Date: "2026-03-01", Changed: []string{"data.name"}},
}

type answer struct {
	Data  json.RawMessage
	Error *struct{ Code, Field string }
}

// run runs an app with one command of its own as an agent does.
func run(t *testing.T, opts []urfave.Option, args ...string) (int, answer) {
	t.Helper()
	app := &cli.Command{Name: "app", Commands: []*cli.Command{{Name: "show", Action: func(context.Context, *cli.Command) error { return nil }}}}
	var stdout bytes.Buffer
	code := urfave.Run(context.Background(), app, args, append([]urfave.Option{adapters.WithSpecStrict(),
		adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer))}, opts...)...)
	var a answer
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		t.Fatalf("app %s: stdout is no envelope: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	return code, a
}

// TestChangelog holds `app changelog` to O-029's entries: newest first,
// each with version, date, breaking, added, removed and changed (empty
// lists, not null); --since keeps the versions after it; a --since that is
// not a version is invalid input.
func TestChangelog(t *testing.T) {
	type entry struct {
		Version  string   `json:"version"`
		Date     string   `json:"date"`
		Breaking bool     `json:"breaking"`
		Added    []string `json:"added"`
		Removed  []string `json:"removed"`
		Changed  []string `json:"changed"`
	}
	v2 := entry{Version: "2.0.0", Date: "2026-06-01", Breaking: true, Added: []string{}, Removed: []string{"flag --count"}, Changed: []string{}}
	v110 := entry{Version: "1.10.0", Date: "2026-03-01", Added: []string{}, Removed: []string{}, Changed: []string{"data.name"}}
	v1 := entry{Version: "1.0.0", Date: "2026-01-01", Added: []string{"command show"}, Removed: []string{}, Changed: []string{}}
	withHistory := []urfave.Option{adapters.WithFeatures(changelog.New(history...))}
	tests := []struct {
		name string
		opts []urfave.Option
		args []string
		want []entry
	}{
		{"all", withHistory, nil, []entry{v2, v110, v1}},
		{"since 1.0.0", withHistory, []string{"--since", "1.0.0"}, []entry{v2, v110}},
		{"since the last", withHistory, []string{"--since", "2.0.0"}, []entry{}},
		{"the bundle's, none", []urfave.Option{adapters.WithFeatures(level3.Features()...)}, nil, []entry{}},
		{"the app's replaces the bundle's", []urfave.Option{adapters.WithFeatures(level3.Features()...), withHistory[0]}, nil, []entry{v2, v110, v1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, a := run(t, tt.opts, append([]string{"changelog"}, tt.args...)...)
			var got struct {
				Entries []entry `json:"entries"`
			}
			if err := json.Unmarshal(a.Data, &got); code != 0 || err != nil {
				t.Fatalf("exit %d, data %s (%v)", code, a.Data, err)
			}
			if diff := cmp.Diff(tt.want, got.Entries); diff != "" {
				t.Errorf("changelog %v (-want +got):\n%s", tt.args, diff)
			}
		})
	}
	if code, a := run(t, withHistory, "changelog", "--since", "soon"); code != 2 || a.Error == nil || a.Error.Code != "INVALID_VERSION" || a.Error.Field != "since" {
		t.Errorf("--since soon: exit %d, error %+v; want 2 INVALID_VERSION on since", code, a.Error)
	}
	if code, a := run(t, nil, "changelog"); code != 2 || a.Error == nil || a.Error.Code != "UNKNOWN_COMMAND" {
		t.Errorf("the core, without the feature: exit %d, error %+v; want 2 UNKNOWN_COMMAND", code, a.Error)
	}
}

func Example() {
	app := &cli.Command{Name: "app", Commands: []*cli.Command{{Name: "show", Action: func(context.Context, *cli.Command) error { return nil }}}}
	var stdout bytes.Buffer
	urfave.Run(context.Background(), app, []string{"changelog", "--since", "1.10.0", "--format", "text"},
		adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)), adapters.WithFeatures(changelog.New(history...)))
	fmt.Print(stdout.String())
	// Output:
	// 2.0.0  2026-06-01 (breaking)
	//   removed flag --count
}
