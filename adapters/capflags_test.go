package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// capApp lists 10,000 tasks (a list command: --limit, --cursor) and imports
// them, answering with a report of every task it created (a list it does
// not page: no --limit, no --cursor).
func capApp() *cli.Command {
	type task struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	tasks := make([]task, 10000)
	for i := range tasks {
		tasks[i] = task{ID: fmt.Sprintf("t%d", i), Title: fmt.Sprintf("task number %d", i)}
	}
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "list", Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(tasks)
		}}, schema.Meta{Danger: schema.Safe, List: true}),
		urfave.Annotate(&cli.Command{Name: "import", Flags: []cli.Flag{&cli.StringFlag{Name: "input-file"}},
			Action: func(ctx context.Context, _ *cli.Command) error {
				out := envelope.From(ctx)
				out.Effect(envelope.Created)
				return out.Result(tasks)
			}}, schema.Meta{Danger: schema.Mutating}),
	}}
}

// TestSizeCapHintNamesOnlyTheCommandsFlags: the size cap's
// meta.truncation_hint names only flags the command takes (REQ-F-052). A
// list command's hint is the command line of the next page, which runs; an
// import's report, a list the command cannot page, names neither --limit
// nor --cursor and carries no meta.pagination.
func TestSizeCapHintNamesOnlyTheCommandsFlags(t *testing.T) {
	r := run{env: []string{"APP_MAX_OUTPUT_BYTES=20000"}}
	runApp := func(args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), capApp(), args, r.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	flagWord := regexp.MustCompile(`(^|\s)--[a-z][a-z0-9-]*`)
	takes := map[string][]string{
		"list":   {"--limit", "--cursor", "--fields"},
		"import": {"--input-file", "--fields"},
	}
	for _, args := range [][]string{{"list", "--limit", "0"}, {"import", "--input-file", "tasks.json"}} {
		t.Run(args[0], func(t *testing.T) {
			w := wantOK(t, runApp(args...))
			hint, _ := w.Meta["truncation_hint"].(string)
			if w.Meta["truncated"] != true || hint == "" {
				t.Fatalf("meta.truncated %v, truncation_hint %q: want the cap to cut", w.Meta["truncated"], hint)
			}
			for _, f := range flagWord.FindAllString(hint, -1) {
				if f = strings.TrimSpace(f); !slices.Contains(takes[args[0]], f) {
					t.Errorf("truncation_hint %q names %s, which %q does not take", hint, f, args[0])
				}
			}
			_, paged := w.Meta["pagination"]
			if want := args[0] == "list"; paged != want {
				t.Errorf("meta.pagination present %v, want %v", paged, want)
			}
			if args[0] != "list" {
				return
			}
			// The next page's command line runs as given.
			next := strings.Fields(hint)
			if len(next) < 2 || next[0] != "app" {
				t.Fatalf("truncation_hint %q is not a command line of app", hint)
			}
			page := wantOK(t, runApp(next[1:]...))
			var items []map[string]any
			if err := json.Unmarshal(page.Data, &items); err != nil || len(items) == 0 {
				t.Errorf("the next page %q returned %d items (%v), want some", hint, len(items), err)
			}
		})
	}
}
