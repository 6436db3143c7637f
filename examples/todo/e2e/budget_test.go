package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/tokens"
)

// TestE2ETokenBudget tokenizes what todo answers (REQ-O-049) with
// tokens.Estimate, the tokenizer todo counts with (within 10% of
// cl100k_base: tokens/tiktoken's tests; the npm gpt-tokenizer is not
// available offline): --token-limit 500 gives data
// of at most 500 tokens with meta.truncated and meta.token_limit;
// --token-offset k*200 --token-limit 200 gives the (k+1)th window, each
// starting where the one before ended, so the windows together hold every
// item once, and so do pages that follow meta.pagination.next_cursor;
// --token-count answers the count of the whole data, data null,
// in every --format; and every command has the three flags.
func TestE2ETokenBudget(t *testing.T) { onEach(t, testTokenBudget) }

func testTokenBudget(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	var items []map[string]any
	var ids []string
	for i := 1; i <= 30; i++ {
		id := "t" + strconv.Itoa(i)
		items = append(items, item(id, fmt.Sprintf("item number %d with a few more words to count", i), false))
		ids = append(ids, id)
	}
	sb.seed(t, items...)
	count := func(s []byte) int { return tokens.Estimate.Count(string(s)) }
	// data returns the raw data of list's envelope, as written, and its meta.
	data := func(t *testing.T, args ...string) (json.RawMessage, map[string]any) {
		t.Helper()
		r := sb.run(t, append([]string{"list", "--limit", "50"}, args...)...)
		env := expectEnvelope(t, "list", r, 0)
		var raw struct{ Data json.RawMessage }
		if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
			t.Fatal(err)
		}
		return raw.Data, env["meta"].(map[string]any)
	}
	idsOf := func(t *testing.T, raw json.RawMessage) (got []string, cut bool) {
		t.Helper()
		var list []any
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("data is not a list: %s", raw)
		}
		for _, it := range list {
			if it == "[TRUNCATED]" {
				cut = true
				continue
			}
			got = append(got, it.(map[string]any)["id"].(string))
		}
		return got, cut
	}
	whole, _ := data(t)
	total := count(whole)
	if total < 1000 {
		t.Fatalf("the whole list is %d tokens; the test wants more than two windows of 500", total)
	}

	t.Run("--token-limit 500", func(t *testing.T) {
		raw, meta := data(t, "--token-limit", "500")
		if n := count(raw); n > 500 {
			t.Errorf("data is %d tokens, want at most 500", n)
		}
		want := map[string]any{"truncated": true, "token_limit": 500.0}
		if diff := cmp.Diff(want, map[string]any{"truncated": meta["truncated"], "token_limit": meta["token_limit"]}); diff != "" {
			t.Errorf("meta (-want +got):\n%s", diff)
		}
		if got, cut := idsOf(t, raw); len(got) == 0 || !cut {
			t.Errorf("kept %q, cut %v; want some items and the marker", got, cut)
		}
	})

	t.Run("windows of 200 tokens page through every item", func(t *testing.T) {
		var seen []string
		for k := 0; k < 30; k++ {
			raw, meta := data(t, "--token-limit", "200", "--token-offset", strconv.Itoa(200*k))
			if n := count(raw); n > 200 {
				t.Errorf("window %d is %d tokens, want at most 200", k, n)
			}
			if meta["token_offset"] != float64(200*k) {
				t.Errorf("window %d: meta.token_offset %v", k, meta["token_offset"])
			}
			got, cut := idsOf(t, raw)
			if len(got) == 0 {
				t.Fatalf("window %d is empty after %q: %s", k, seen, raw)
			}
			seen = append(seen, got...)
			if !cut {
				break
			}
		}
		if diff := cmp.Diff(ids, seen); diff != "" {
			t.Errorf("items of the windows in order (-want +got):\n%s", diff)
		}
	})

	t.Run("a cut page's cursor goes on where it stopped", func(t *testing.T) {
		var seen []string
		args := []string{"--token-limit", "200"}
		for k := 0; k < 30; k++ {
			raw, meta := data(t, args...)
			got, cut := idsOf(t, raw)
			seen = append(seen, got...)
			pg := meta["pagination"].(map[string]any)
			if pg["returned"] != float64(len(got)) || pg["has_more"] != cut || pg["truncated"] != cut {
				t.Errorf("page %d kept %d items, cut %v; meta.pagination %v", k, len(got), cut, pg)
			}
			if !cut {
				break
			}
			args = []string{"--token-limit", "200", "--cursor", pg["next_cursor"].(string)}
		}
		if diff := cmp.Diff(ids, seen); diff != "" {
			t.Errorf("items of the pages in order (-want +got):\n%s", diff)
		}
	})

	t.Run("--token-count in every format", func(t *testing.T) {
		raw, meta := data(t, "--token-count")
		if string(raw) != "null" || meta["token_count"] != float64(total) {
			t.Errorf("data %s, meta.token_count %v; want null and %d", raw, meta["token_count"], total)
		}
		n := strconv.Itoa(total)
		for format, want := range map[string]string{
			"text": "token_count: " + n + "\n",
			"tsv":  "token_count\n" + n + "\n",
			"id":   n + "\n",
		} {
			r := sb.run(t, "list", "--limit", "50", "--token-count", "--format", format)
			if r.code != 0 || r.stdout != want {
				t.Errorf("--format %s: exit %d, stdout %q; want %q", format, r.code, r.stdout, want)
			}
		}
		r := sb.run(t, "list", "--limit", "50", "--token-count", "--format", "jsonl")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		summary := decodeSummary(t, []byte(lines[len(lines)-1]))
		if len(lines) != 1 || get(summary, "meta.token_count") != float64(total) || summary["total"] != 0.0 {
			t.Errorf("--format jsonl: %d lines, meta.token_count %v, total %v; want one summary line of no items and %d", len(lines), get(summary, "meta.token_count"), summary["total"], total)
		}
	})

	t.Run("every command has the three flags", func(t *testing.T) {
		env := expectEnvelope(t, "describe", sb.run(t, "describe", "--full"), 0)
		var missing []string
		for name, c := range env["data"].(map[string]any)["commands"].(map[string]any) {
			flags, _ := c.(map[string]any)["flags"].(map[string]any)
			for _, f := range []string{"token-limit", "token-offset", "token-count"} {
				if _, ok := flags[f]; !ok {
					missing = append(missing, name+" --"+f)
				}
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("missing: %q", missing)
		}
	})
}
