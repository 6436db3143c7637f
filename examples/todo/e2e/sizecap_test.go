package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2ESizeCapDefault: a list of 10,000 items, 2.5 MB of JSON, is cut at
// the default 1 MiB cap with meta.truncated, meta.total_count and
// meta.returned_count; meta.truncation_hint is a todo command line that,
// run as it is, answers the next page; TODO_MAX_OUTPUT_BYTES=5242880 (the
// spec's TOOL_MAX_OUTPUT_BYTES, named for the tool) raises the cap so the
// whole list fits; and an answer under the cap has no meta.truncated
// (REQ-F-052).
func TestE2ESizeCapDefault(t *testing.T) { onEach(t, testSizeCapDefault) }

func testSizeCapDefault(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	const total = 10000
	items := make([]map[string]any, total)
	for i := range items {
		items[i] = item("t"+strconv.Itoa(i+1), "item "+strconv.Itoa(i+1)+" "+strings.Repeat("with a title long enough ", 6), false)
	}
	sb.seed(t, items...)

	r := sb.run(t, "list", "--limit", "0")
	if len(r.stdout) > 1<<20 {
		t.Errorf("stdout is %d bytes, over the 1 MiB cap", len(r.stdout))
	}
	env := expectEnvelope(t, "list --limit 0", r, 0)
	data, _ := env["data"].([]any)
	n := len(data)
	want := map[string]any{"meta.truncated": true, "meta.total_count": float64(total), "meta.returned_count": float64(n)}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("capped envelope (-want +got):\n%s", diff)
	}
	if n == 0 || n >= total {
		t.Fatalf("the capped list has %d of %d items", n, total)
	}

	hint, _ := get(env, "meta.truncation_hint").(string)
	words := strings.Fields(hint)
	if len(words) < 2 || words[0] != "todo" || strings.ContainsAny(hint, `'"\`) {
		t.Fatalf("meta.truncation_hint %q is not a plain todo command line", hint)
	}
	next := expectEnvelope(t, "the hint: "+hint, sb.run(t, words[1:]...), 0)
	page, _ := next["data"].([]any)
	if len(page) == 0 || get(page[0], "id") != "t"+strconv.Itoa(n+1) {
		t.Errorf("running the hint %q answered %d items from %v, want the items after t%d", hint, len(page), get(next, "data.0.id"), n)
	}

	raised := expectEnvelope(t, "list with a 5 MB cap", sb.runEnv(t, []string{"TODO_MAX_OUTPUT_BYTES=5242880"}, "list", "--limit", "0"), 0)
	if all, _ := raised["data"].([]any); len(all) != total || get(raised, "meta.truncated") == true {
		t.Errorf("with TODO_MAX_OUTPUT_BYTES=5242880: %d items, meta.truncated %v; want all %d and not truncated", len(all), get(raised, "meta.truncated"), total)
	}

	small := expectEnvelope(t, "show t1", sb.run(t, "show", "t1"), 0)
	if v := get(small, "meta.truncated"); v != nil && v != false {
		t.Errorf("an answer under the cap has meta.truncated %v", v)
	}
}
