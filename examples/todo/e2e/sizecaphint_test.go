//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2ESizeCapHintFlags: REQ-F-052: an answer cut by the size cap
// (TODO_MAX_OUTPUT_BYTES) says how to get the rest with flags the command
// has. `todo import --input-file` of 10,000 to-dos answers a list it does
// not page: its meta.truncation_hint names no --limit or --cursor and meta
// has no pagination; `todo list --limit 0`, which pages, has a hint whose
// every --flag is one `todo list --schema` lists, --cursor among them.
func TestE2ESizeCapHintFlags(t *testing.T) { onEach(t, testSizeCapHintFlags) }

func testSizeCapHintFlags(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	const total = 10000
	var lines strings.Builder
	for i := range total {
		fmt.Fprintf(&lines, "{\"title\": \"imported to-do %d with a title of some length\"}\n", i+1)
	}
	input := filepath.Join(sb.dir, "big.jsonl")
	if err := os.WriteFile(input, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	capped := []string{"TODO_MAX_OUTPUT_BYTES=65536"} // far less than 10,000 to-dos take

	// The steps share the store and run in order: import fills it.
	steps := []struct {
		command string // as --schema names it
		args    []string
		pages   bool // the command takes --limit and --cursor
		want    map[string]any
	}{
		{"import", []string{"import", "--input-file", input}, false,
			map[string]any{"meta.effect": "created", "meta.truncated": true, "meta.total_count": float64(total)}},
		{"list", []string{"list", "--limit", "0"}, true,
			map[string]any{"meta.truncated": true, "meta.total_count": float64(total), "meta.pagination.has_more": true}},
	}
	for _, st := range steps {
		env := expectEnvelope(t, st.command+" under the cap", sb.runEnv(t, capped, st.args...), 0)
		if diff := cmp.Diff(st.want, pick(env, st.want)); diff != "" {
			t.Errorf("todo %s: capped envelope (-want +got):\n%s", strings.Join(st.args, " "), diff)
		}
		if data, _ := env["data"].([]any); len(data) == 0 || len(data) >= total {
			t.Errorf("todo %s: data holds %d of %d items, want a cut", st.command, len(data), total)
		}
		hint, _ := get(env, "meta.truncation_hint").(string)
		if hint == "" {
			t.Errorf("todo %s: a cut answer without meta.truncation_hint", st.command)
			continue
		}
		flags := hintFlags(hint)
		has := func(f string) bool { return slices.Contains(flags, f) }
		if st.pages {
			if !has("cursor") || !has("limit") {
				t.Errorf("todo %s pages, but its hint %q names no --limit and --cursor", st.command, hint)
			}
		} else {
			if has("limit") || has("cursor") {
				t.Errorf("todo %s has no --limit or --cursor, but its hint names one: %q", st.command, hint)
			}
			if meta, _ := env["meta"].(map[string]any); meta["pagination"] != nil {
				t.Errorf("todo %s does not page, but meta.pagination is %v", st.command, meta["pagination"])
			}
		}
		accepted := schemaFlags(t, sb, st.command)
		for _, f := range flags {
			if !slices.Contains(accepted, f) {
				t.Errorf("todo %s: the hint %q names --%s, which `todo %s --schema` does not list", st.command, hint, f, strings.ReplaceAll(st.command, ".", " "))
			}
		}
	}
	// The import ran whole: the cut is of its answer, not of its work.
	all := expectEnvelope(t, "count", sb.run(t, "list", "--limit", "1"), 0)
	if got := get(all, "meta.pagination.total"); got != float64(total) {
		t.Errorf("after the import the store holds %v to-dos, want %d", got, total)
	}
}

// hintFlags are the --flags a truncation hint names, without the dashes.
func hintFlags(hint string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?:^|[\s(])--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(hint, -1) {
		out = append(out, m[1])
	}
	return out
}

// schemaFlags are the flags `todo <command> --schema` lists (a dotted
// command is its words).
func schemaFlags(t *testing.T, sb *sandbox, command string) []string {
	t.Helper()
	args := append(strings.Split(command, "."), "--schema")
	env := expectEnvelope(t, command+" --schema", sb.run(t, args...), 0)
	flags, ok := get(env, "data.flags").(map[string]any)
	if !ok || len(flags) == 0 {
		t.Fatalf("%s --schema lists no flags: %v", command, get(env, "data"))
	}
	return keys(flags)
}
