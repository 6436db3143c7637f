package envelope_test

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/envelope"
)

// TestAnchorCursor: an anchored cursor reads back as its anchor, only for
// its own query; an offset cursor still reads as its offset; anything else
// is INVALID_CURSOR, and DecodeCursor refuses an anchored one.
func TestAnchorCursor(t *testing.T) {
	anchor := "2026-03-17T14:00:01.000Z r-1:2" // colons and a space in it
	c := envelope.EncodeAnchorCursor(anchor, "q:1")
	if off, got, err := envelope.ReadCursor(c, "q:1"); err != nil || got != anchor || off != 0 {
		t.Errorf("ReadCursor(anchored) = %d, %q, %v; want 0, %q", off, got, err, anchor)
	}
	if off, got, err := envelope.ReadCursor(envelope.EncodeCursor(40, "q"), "q"); err != nil || got != "" || off != 40 {
		t.Errorf("ReadCursor(offset 40) = %d, %q, %v", off, got, err)
	}
	for name, bad := range map[string]string{
		"another query":     c,
		"garbage":           "not-a-cursor",
		"an empty anchor":   envelope.EncodeAnchorCursor("", "q"),
		"a negative offset": envelope.EncodeCursor(-1, "q"),
	} {
		query := "q"
		if _, _, err := envelope.ReadCursor(bad, query); envelope.As(err).Code != "INVALID_CURSOR" {
			t.Errorf("%s: ReadCursor = %v, want INVALID_CURSOR", name, err)
		}
	}
	if _, err := envelope.DecodeCursor(c, "q:1"); err == nil {
		t.Error("DecodeCursor took an anchored cursor for an offset")
	}
}

// TestPaginated: a command that works out its own pagination gets it in
// meta.pagination as it gave it, its data as it is (an object, not paged
// again by the window), and in jsonl a line per item with the pagination
// on the summary line.
func TestPaginated(t *testing.T) {
	next := envelope.EncodeAnchorCursor("a", "q")
	total := 5
	pg := envelope.Pagination{Total: &total, Returned: 2, Truncated: true, HasMore: true, NextCursor: &next}
	w := envelope.Window{Limit: 1, Query: "q"} // the window does not cut a Paginated result
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &w})
	out.Paginated(map[string]any{"entries": []string{"x", "y"}}, pg)
	out.Finish(fixedMeta(), nil)
	env := decodeOne(t, stdout.Bytes())
	if got := string(env.Data); got != `{"entries":["x","y"]}` {
		t.Errorf("data = %s", got)
	}
	got, _ := env.Meta["pagination"].(map[string]any)
	if got["total"] != 5.0 || got["returned"] != 2.0 || got["has_more"] != true || got["next_cursor"] != next {
		t.Errorf("meta.pagination = %v", got)
	}

	out, stdout, _ = newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL), Window: &w})
	out.Paginated([]string{"x", "y"}, pg)
	out.Finish(fixedMeta(), nil)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"next_cursor":"`+next+`"`) || !strings.Contains(lines[2], `"_summary":true`) {
		t.Errorf("jsonl:\n%s", stdout)
	}

	// A later Result is paged by the window again.
	out, stdout, _ = newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &w})
	out.Paginated([]string{"x"}, pg)
	out.Result([]string{"x", "y"})
	out.Finish(fixedMeta(), nil)
	if got, _ := decodeOne(t, stdout.Bytes()).Meta["pagination"].(map[string]any); got["total"] != 2.0 {
		t.Errorf("Result after Paginated: meta.pagination = %v", got)
	}
}
