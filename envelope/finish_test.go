package envelope_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/golden"
	"github.com/duet-cli/duet/internal/jsontest"
)

type record struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Size  int      `json:"size"`
	Tags  []string `json:"tags"`
	Owner *owner   `json:"owner,omitempty"`
}

type owner struct {
	Login string `json:"login"`
	Admin bool   `json:"admin"`
}

func records() []record {
	return []record{
		{ID: "r1", Name: "alpha", Size: 10, Tags: []string{"a", "b"}},
		{ID: "r2", Name: "beta gamma", Size: 2000, Tags: nil},
		{ID: "r3", Name: "tab\there", Size: 0, Tags: []string{}},
	}
}

func object() record {
	return record{ID: "r1", Name: "alpha", Size: 10, Tags: []string{"a"}, Owner: &owner{Login: "ann", Admin: true}}
}

// TestFinishGolden renders one list and one object in every format.
func TestFinishGolden(t *testing.T) {
	results := map[string]any{"list": records(), "object": object()}
	for _, name := range []string{"list", "object"} {
		for _, f := range allFormats {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				mode := agentMode(f)
				if f == envelope.Text {
					mode = humanMode() // text without colour
				}
				out, stdout, stderr := newOutput(envelope.Settings{Mode: mode})
				out.Warn("STALE_CACHE", "the cache is 2 days old", "run 'tool sync'")
				out.Result(results[name])
				if fail := out.Finish(fixedMeta(), nil); fail != nil {
					t.Fatalf("Finish reported %v", fail)
				}
				golden.Assert(t, "finish/"+name+"."+string(f)+".golden", stdout.Bytes())
				if bytes.IndexByte(stdout.Bytes(), 0x1b) >= 0 {
					t.Errorf("stdout carries an escape byte without colour:\n%q", stdout)
				}
				if f == envelope.JSON || f == envelope.JSONL || f == envelope.TOON {
					if stderr.Len() != 0 {
						t.Errorf("stderr with an envelope = %q, want empty (warnings belong in the envelope)", stderr)
					}
				} else if got, want := stderr.String(), "WARNING [STALE_CACHE]: the cache is 2 days old. Next: run 'tool sync'\n"; got != want {
					t.Errorf("stderr = %q, want %q", got, want)
				}
			})
		}
	}
}

func TestFinishEnvelopeShape(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Result(object())
	out.Finish(fixedMeta(), nil)
	if !bytes.HasSuffix(stdout.Bytes(), []byte("}\n")) || bytes.Count(stdout.Bytes(), []byte("\n")) != 1 {
		t.Errorf("envelope is not one line: %q", stdout)
	}
	if diff := cmp.Diff([]string{"ok", "data", "error", "warnings", "meta"}, jsontest.Keys(t, stdout.Bytes())); diff != "" {
		t.Errorf("top-level keys (-want +got):\n%s", diff)
	}
	w := decodeOne(t, stdout.Bytes())
	if !w.OK || w.Error != nil || w.Warnings == nil {
		t.Errorf("ok=%v error=%v warnings=%v; want true, null, []", w.OK, w.Error, w.Warnings)
	}
	for _, k := range []string{"exit_code", "duration_ms", "schema_version", "tool_version", "command", "request_id"} {
		if _, ok := w.Meta[k]; !ok {
			t.Errorf("meta lacks %q: %v", k, w.Meta)
		}
	}
	if keys := metaKeys(t, stdout.Bytes()); keys[0] != "exit_code" {
		t.Errorf("meta keys %v, want exit_code first", keys)
	}
}

func TestFinishErrorGolden(t *testing.T) {
	fail := func() *envelope.Error {
		return envelope.Errorf(exitcode.NotFound, "SPACE_NOT_FOUND", "space %s does not exist", "s9").
			WithSuggestion("run 'tool space list' to see spaces")
	}
	t.Run("human", func(t *testing.T) {
		out, stdout, stderr := newOutput(envelope.Settings{Mode: humanMode()})
		out.Result(object()) // an error wins over a recorded result
		got := out.Finish(fixedMeta(), fail())
		if got == nil || got.Code != "SPACE_NOT_FOUND" {
			t.Errorf("Finish returned %v, want the failure", got)
		}
		if stdout.Len() != 0 {
			t.Errorf("stdout = %q, want empty", stdout)
		}
		if want := "ERROR [SPACE_NOT_FOUND]: space s9 does not exist. Next: run 'tool space list' to see spaces\n"; stderr.String() != want {
			t.Errorf("stderr = %q, want %q", stderr, want)
		}
		golden.Assert(t, "finish/error.human.stderr.golden", stderr.Bytes())
	})
	t.Run("agent", func(t *testing.T) {
		out, stdout, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
		out.Result(object())
		e := fail()
		e.Settle(exitcode.Defaults())
		out.Finish(fixedMeta(), e)
		if stderr.Len() != 0 {
			t.Errorf("stderr = %q, want empty", stderr)
		}
		w := decodeOne(t, stdout.Bytes())
		if w.OK || string(w.Data) != "null" || w.Error == nil || w.Error.Code != "SPACE_NOT_FOUND" {
			t.Errorf("envelope = %s", stdout)
		}
		golden.Assert(t, "finish/error.json.golden", stdout.Bytes())
	})
}

// list decodes data of a single envelope as a list of records.
func dataList(t *testing.T, w wire) []map[string]any {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal(w.Data, &items); err != nil {
		t.Fatalf("data is not a list of objects: %v\n%s", err, w.Data)
	}
	return items
}

func many(n int) []record {
	out := make([]record, n)
	for i := range out {
		out[i] = record{ID: fmt.Sprintf("r%d", i), Name: fmt.Sprintf("item %d", i), Size: i}
	}
	return out
}

func TestPagination(t *testing.T) {
	tests := []struct {
		name       string
		window     envelope.Window
		n          int
		wantIDs    []string
		hasMore    bool
		nextOffset int // -1: next_cursor null
	}{
		{"first page", envelope.Window{Offset: 0, Limit: 3}, 10, []string{"r0", "r1", "r2"}, true, 3},
		{"middle page", envelope.Window{Offset: 2, Limit: 3}, 10, []string{"r2", "r3", "r4"}, true, 5},
		{"last partial page", envelope.Window{Offset: 8, Limit: 3}, 10, []string{"r8", "r9"}, false, -1},
		{"exact end", envelope.Window{Offset: 7, Limit: 3}, 10, []string{"r7", "r8", "r9"}, false, -1},
		{"limit 0 means all", envelope.Window{Offset: 0, Limit: 0}, 4, []string{"r0", "r1", "r2", "r3"}, false, -1},
		{"offset past the end", envelope.Window{Offset: 50, Limit: 3}, 4, []string{}, false, -1},
		{"empty list", envelope.Window{Offset: 0, Limit: 20}, 0, []string{}, false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.window
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &w})
			out.Result(many(tt.n))
			out.Finish(fixedMeta(), nil)
			// A command that pages in its own storage answers alike.
			paged, pagedOut, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &w})
			start, end := min(w.Offset, tt.n), tt.n
			if w.Limit > 0 {
				end = min(start+w.Limit, tt.n)
			}
			paged.Page(many(tt.n)[start:end], tt.n)
			paged.Finish(fixedMeta(), nil)
			if diff := cmp.Diff(stdout.String(), pagedOut.String()); diff != "" {
				t.Errorf("Page differs from Result of the whole list (-Result +Page):\n%s", diff)
			}
			// One that reads only as far as the page and knows whether more
			// follow answers alike but for the total, which it does not know.
			if w.Limit > 0 {
				more, moreOut, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &w})
				more.PageMore(many(tt.n)[start:end], end < tt.n)
				more.Finish(fixedMeta(), nil)
				want := decodeOne(t, stdout.Bytes())
				want.Meta["pagination"].(map[string]any)["total"] = nil
				if diff := cmp.Diff(want, decodeOne(t, moreOut.Bytes())); diff != "" {
					t.Errorf("PageMore differs from Result but for the total (-Result +PageMore):\n%s", diff)
				}
			}
			env := decodeOne(t, stdout.Bytes())
			ids := []string{}
			for _, it := range dataList(t, env) {
				ids = append(ids, it["id"].(string))
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			pg, ok := env.Meta["pagination"].(map[string]any)
			if !ok {
				t.Fatalf("meta.pagination missing: %v", env.Meta)
			}
			if pg["total"] != float64(tt.n) || pg["returned"] != float64(len(tt.wantIDs)) || pg["has_more"] != tt.hasMore {
				t.Errorf("pagination = %v, want total %d returned %d has_more %v", pg, tt.n, len(tt.wantIDs), tt.hasMore)
			}
			cur, present := pg["next_cursor"]
			if !present {
				t.Errorf("pagination has no next_cursor key: %v", pg)
			}
			if tt.nextOffset < 0 {
				if cur != nil {
					t.Errorf("next_cursor = %v, want null", cur)
				}
				return
			}
			s, _ := cur.(string)
			off, err := envelope.DecodeCursor(s, "")
			if err != nil || off != tt.nextOffset {
				t.Errorf("next_cursor %q decodes to %d, %v; want %d", s, off, err, tt.nextOffset)
			}
		})
	}
}

// marshalCounter is an item that counts how often it is encoded.
type marshalCounter struct {
	id    string
	calls *int
}

func (m marshalCounter) MarshalJSON() ([]byte, error) {
	*m.calls++
	return json.Marshal(map[string]string{"id": m.id})
}

// TestPaginationEncodesOnlyThePage checks that a command may return a whole
// collection: only the items of the page are encoded, and the list's length
// is still the total. A list the command encoded itself is cut alike.
func TestPaginationEncodesOnlyThePage(t *testing.T) {
	calls := 0
	items := make([]marshalCounter, 100)
	for i := range items {
		items[i] = marshalCounter{id: fmt.Sprintf("r%d", i), calls: &calls}
	}
	raw := json.RawMessage(`[{"id":"r0"}, {"id":"r1"}, {"id":"r2"}, {"id":"r3"}]`)
	tests := []struct {
		name    string
		result  any
		window  envelope.Window
		want    []string
		total   float64
		encoded int
	}{
		{"values", items, envelope.Window{Offset: 40, Limit: 2}, []string{"r40", "r41"}, 100, 2},
		{"pointer to values", &items, envelope.Window{Offset: 99, Limit: 20}, []string{"r99"}, 100, 1},
		{"raw JSON", raw, envelope.Window{Offset: 1, Limit: 2}, []string{"r1", "r2"}, 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = 0
			w := tt.window
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &w})
			out.Result(tt.result)
			out.Finish(fixedMeta(), nil)
			env := decodeOne(t, stdout.Bytes())
			ids := []string{}
			for _, it := range dataList(t, env) {
				ids = append(ids, it["id"].(string))
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if pg, _ := env.Meta["pagination"].(map[string]any); pg["total"] != tt.total {
				t.Errorf("pagination = %v, want total %v", pg, tt.total)
			}
			if calls != tt.encoded {
				t.Errorf("%d items encoded, want %d", calls, tt.encoded)
			}
		})
	}
}

func TestFieldsProjection(t *testing.T) {
	tests := []struct {
		name   string
		result any
		fields []string
		want   string
	}{
		{"list keeps given order", records()[:2], []string{"name", "id"}, `[{"name":"alpha","id":"r1"},{"name":"beta gamma","id":"r2"}]`},
		{"object", object(), []string{"owner", "size"}, `{"owner":{"login":"ann","admin":true},"size":10}`},
		{"unknown field dropped", object(), []string{"id", "nope"}, `{"id":"r1"}`},
		{"scalars pass through", []int{1, 2}, []string{"id"}, `[1,2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Fields: tt.fields})
			out.Result(tt.result)
			out.Finish(fixedMeta(), nil)
			if got := string(decodeOne(t, stdout.Bytes()).Data); got != tt.want {
				t.Errorf("data = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFieldsProjectionStreamed(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL), Fields: []string{"id"}})
	for _, r := range records() {
		out.Item(r)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []string{`{"_seq":1,"id":"r1"}`, `{"_seq":2,"id":"r2"}`, `{"_seq":3,"id":"r3"}`}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("streamed items (-want +got):\n%s", diff)
	}
}

func TestSizeCap(t *testing.T) {
	const cap = 900 // room for the frame: meta, the counts and the FIELD_TRUNCATED warning
	tests := []struct {
		name   string
		result any
		window *envelope.Window
		list   bool
	}{
		// a list from a command that does not page it: no next_cursor (TestSizeCapHintNamesOwnFlags)
		{"list", many(100), nil, true},
		{"paged list", many(100), &envelope.Window{Offset: 10, Limit: 50}, true},
		{"object", map[string]string{"blob": strings.Repeat("x", 5000)}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), MaxBytes: cap, Window: tt.window})
			out.Result(tt.result)
			out.Finish(fixedMeta(), nil)
			if stdout.Len() > cap {
				t.Errorf("output is %d bytes, cap %d", stdout.Len(), cap)
			}
			env := decodeOne(t, stdout.Bytes())
			if env.Meta["truncated"] != true {
				t.Errorf("meta.truncated = %v, want true", env.Meta["truncated"])
			}
			hint, _ := env.Meta["truncation_hint"].(string)
			if hint == "" {
				t.Errorf("meta.truncation_hint is empty")
			}
			if !env.OK {
				t.Errorf("ok = false for a truncated success")
			}
			if len(env.Warnings) != 1 || env.Warnings[0].Code != "FIELD_TRUNCATED" ||
				!strings.HasPrefix(env.Warnings[0].Message, "data cut to the size cap (field=data returned_bytes=") {
				t.Errorf("warnings = %+v, want one FIELD_TRUNCATED naming data and its bytes", env.Warnings)
			}
			if !tt.list {
				if string(env.Data) != "null" {
					t.Errorf("data = %s, want null", env.Data)
				}
				return
			}
			items := dataList(t, env)
			if len(items) == 0 || len(items) >= 50 {
				t.Errorf("kept %d items, want some but not all", len(items))
			}
			if env.Meta["total_count"] != float64(100) || env.Meta["returned_count"] != float64(len(items)) {
				t.Errorf("meta.total_count, returned_count = %v, %v; want 100, %d", env.Meta["total_count"], env.Meta["returned_count"], len(items))
			}
			if tt.window == nil {
				if pg, has := env.Meta["pagination"]; has {
					t.Errorf("meta.pagination = %v for a list the command does not page, want none", pg)
				}
				return
			}
			pg, _ := env.Meta["pagination"].(map[string]any)
			if pg == nil || pg["has_more"] != true || pg["returned"] != float64(len(items)) || pg["total"] != float64(100) {
				t.Fatalf("pagination = %v", pg)
			}
			off, err := envelope.DecodeCursor(pg["next_cursor"].(string), "")
			start := 0
			if tt.window != nil {
				start = tt.window.Offset
			}
			if err != nil || off != start+len(items) {
				t.Errorf("next_cursor offset = %d, %v; want %d", off, err, start+len(items))
			}
			if env.Meta["total_count"] != float64(100) || env.Meta["returned_count"] != float64(len(items)) {
				t.Errorf("meta.total_count, returned_count = %v, %v; want 100, %d", env.Meta["total_count"], env.Meta["returned_count"], len(items))
			}
			if first := items[0]["id"]; first != fmt.Sprintf("r%d", start) {
				t.Errorf("first item %v, want r%d", first, start)
			}
		})
	}
}

func TestUnderCapIsUntouched(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), MaxBytes: 1 << 20})
	out.Result(many(100))
	out.Finish(fixedMeta(), nil)
	env := decodeOne(t, stdout.Bytes())
	if _, ok := env.Meta["truncated"]; ok {
		t.Errorf("meta.truncated present under the cap")
	}
	if n := len(dataList(t, env)); n != 100 {
		t.Errorf("kept %d items, want 100", n)
	}
}

func TestInvalidUTF8(t *testing.T) {
	bad := record{ID: "r\xff1", Name: "caf\xc3 \xfe\xfe", Tags: []string{"\xed\xa0\x80"}}
	for _, f := range allFormats {
		t.Run(string(f), func(t *testing.T) {
			mode := agentMode(f)
			if f == envelope.Text {
				mode = humanMode()
			}
			out, stdout, _ := newOutput(envelope.Settings{Mode: mode})
			out.Result([]record{bad})
			out.Finish(fixedMeta(), nil)
			b := stdout.Bytes()
			if !utf8.Valid(b) {
				t.Errorf("output is not valid UTF-8: %q", b)
			}
			switch f {
			case envelope.JSON:
				if !json.Valid(b) {
					t.Errorf("envelope is not valid JSON: %q", b)
				}
			case envelope.JSONL:
				for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
					if !json.Valid(line) {
						t.Errorf("line is not valid JSON: %q", line)
					}
				}
			}
		})
	}
	t.Run("raw message", func(t *testing.T) {
		out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
		out.Result(map[string]any{"s": "ok\x80"})
		out.Warn("W", "bad \xff warning", "")
		out.Finish(fixedMeta(), nil)
		if !utf8.Valid(stdout.Bytes()) || !json.Valid(bytes.TrimSpace(stdout.Bytes())) {
			t.Errorf("invalid output: %q", stdout)
		}
	})
}

// TestANSIInErrors: an error's message and a warning a library coloured
// reach an agent as plain text.
func TestANSIInErrors(t *testing.T) {
	for _, f := range []envelope.Format{envelope.JSON, envelope.JSONL} {
		out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(f)})
		out.Warn("LIB", "\x1b[33mcareful\x1b[0m\r", "")
		out.Finish(fixedMeta(), envelope.Errorf(exitcode.Unavailable, "GONE", "\x1b[31mupstream\x1b[0m is down"))
		if bytes.Contains(stdout.Bytes(), []byte(`\u001b`)) || bytes.Contains(stdout.Bytes(), []byte(`\r`)) {
			t.Errorf("%s: an escape reached the agent: %s", f, stdout)
		}
		env := decodeOne(t, stdout.Bytes())
		if env.Error == nil || env.Error.Message != "upstream is down" {
			t.Errorf("%s: the error's text was lost: %s", f, stdout)
		}
		if diff := cmp.Diff([]envelope.Warning{{Code: "LIB", Message: "careful."}}, env.Warnings); diff != "" {
			t.Errorf("%s: warnings (-want +got):\n%s", f, diff)
		}
	}
}

func TestANSIInData(t *testing.T) {
	evil := record{ID: "r1", Name: "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J", Tags: []string{"\x1b[1mbold"}}
	for _, f := range []envelope.Format{envelope.JSON, envelope.JSONL, envelope.Text} {
		t.Run(string(f), func(t *testing.T) {
			mode := agentMode(f)
			if f == envelope.Text {
				mode = humanMode()
			}
			for _, result := range []any{[]record{evil}, evil} {
				out, stdout, _ := newOutput(envelope.Settings{Mode: mode})
				out.Result(result)
				out.Finish(fixedMeta(), nil)
				if i := bytes.IndexByte(stdout.Bytes(), 0x1b); i >= 0 {
					t.Errorf("stdout carries a raw ESC byte at %d: %q", i, stdout)
				}
				if bytes.Contains(stdout.Bytes(), []byte(`\u001b`)) { // F-007: not escaped either, but gone
					t.Errorf("stdout carries an escaped ESC: %s", stdout)
				}
				if !strings.Contains(stdout.String(), "red") {
					t.Errorf("the text of the data was lost: %q", stdout)
				}
			}
		})
	}
	t.Run("streamed text", func(t *testing.T) {
		out, stdout, _ := newOutput(envelope.Settings{Mode: humanMode()})
		out.Item(evil)
		out.Finish(fixedMeta(), nil)
		if bytes.IndexByte(stdout.Bytes(), 0x1b) >= 0 {
			t.Errorf("streamed line carries ESC: %q", stdout)
		}
	})
}

func TestScalarAndNilResults(t *testing.T) {
	var nilSlice []record
	var nilMap map[string]int
	tests := []struct {
		name   string
		result any
		want   string
	}{
		{"int", 42, `{"value":42}`},
		{"string", "hello", `{"value":"hello"}`},
		{"bool", true, `{"value":true}`},
		{"float", 1.5, `{"value":1.5}`},
		{"raw scalar", json.RawMessage(`7`), `{"value":7}`},
		{"nil slice", nilSlice, `[]`},
		{"empty slice", []record{}, `[]`},
		{"nil interface", nil, `null`},
		{"raw nil list", json.RawMessage(`[]`), `[]`},
		{"raw object is compacted", json.RawMessage("{\n  \"a\": [1, 2]\n}\n"), `{"a":[1,2]}`},
		{"raw list items are compacted", json.RawMessage(`[ {"a": 1} , 2 ]`), `[{"a":1},2]`},
		{"nil map is an empty object (F-074)", nilMap, `{}`},
		{"pointer to struct", &owner{Login: "a"}, `{"login":"a","admin":false}`},
		{"bytes are one binary value (F-017)", []byte("hi"), `{"type":"binary","encoding":"base64","value":"aGk=","size_bytes":2}`},
		{"html is not escaped", map[string]string{"q": "a<b&c"}, `{"q":"a<b&c"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			if err := out.Result(tt.result); err != nil {
				t.Fatalf("Result returned %v", err)
			}
			out.Finish(fixedMeta(), nil)
			if got := string(decodeOne(t, stdout.Bytes()).Data); got != tt.want {
				t.Errorf("data = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestNilSliceInListWindow(t *testing.T) {
	var none []record
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Window: &envelope.Window{Limit: 20}})
	out.Result(none)
	out.Finish(fixedMeta(), nil)
	env := decodeOne(t, stdout.Bytes())
	if string(env.Data) != "[]" {
		t.Errorf("data = %s, want []", env.Data)
	}
}

func TestNoResultGivesNull(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Finish(fixedMeta(), nil)
	if got := string(decodeOne(t, stdout.Bytes()).Data); got != "null" {
		t.Errorf("data = %s, want null", got)
	}
}

func TestEncodeFailure(t *testing.T) {
	for name, result := range map[string]any{
		"unencodable value": map[string]any{"ch": make(chan int)},
		"invalid raw JSON":  json.RawMessage(`{"a": tru`),
	} {
		t.Run(name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			out.Result(result)
			got := out.Finish(fixedMeta(), nil)
			if got == nil || got.Code != "ENCODE_FAILED" || got.Exit != exitcode.GeneralError {
				t.Fatalf("Finish = %v, want ENCODE_FAILED", got)
			}
			env := decodeOne(t, stdout.Bytes())
			if env.OK || env.Error == nil || env.Error.Code != "ENCODE_FAILED" {
				t.Errorf("envelope = %s", stdout)
			}
		})
	}
}

func TestFinishWritesOnce(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Result(object())
	out.Finish(fixedMeta(), nil)
	// An abandoned handler that keeps writing after the answer changes nothing.
	out.Result("late")
	out.Warn("LATE", "late", "")
	if err := out.Item(object()); err != envelope.ErrClosed {
		t.Errorf("Item after Finish = %v, want ErrClosed", err)
	}
	if n := bytes.Count(stdout.Bytes(), []byte("\n")); n != 1 {
		t.Errorf("stdout has %d lines, want 1: %s", n, stdout)
	}
}

// TestEffectAndDryRun: a live run reports its effect as is; a dry run
// reports it with the would_ prefix, beside what it would affect, which a
// live run leaves out.
func TestEffectAndDryRun(t *testing.T) {
	for _, tt := range []struct {
		name   string
		dryRun bool
		effect envelope.Effect
		want   map[string]any // the members of meta under test
	}{
		{"live", false, envelope.Deleted, map[string]any{"effect": "deleted", "would_affect": nil, "dry_run": nil}},
		{"dry run", true, envelope.Deleted, map[string]any{"effect": "would_delete", "would_affect": map[string]any{"items": []any{"t1"}}, "dry_run": true}},
		{"dry run create", true, envelope.Created, map[string]any{"effect": "would_create", "would_affect": map[string]any{"items": []any{"t1"}}, "dry_run": true}},
		{"dry run update", true, envelope.Updated, map[string]any{"effect": "would_update", "would_affect": map[string]any{"items": []any{"t1"}}, "dry_run": true}},
		{"dry run noop", true, envelope.Noop, map[string]any{"effect": "would_noop", "would_affect": map[string]any{"items": []any{"t1"}}, "dry_run": true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), DryRun: tt.dryRun})
			out.Effect(tt.effect)
			out.WouldAffect(map[string][]string{"items": {"t1"}})
			out.Result(map[string]int{"deleted": 1})
			out.Finish(fixedMeta(), nil)
			env := decodeOne(t, stdout.Bytes())
			got := map[string]any{}
			for k := range tt.want {
				got[k] = env.Meta[k]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFailureWithResult: an error marked WithResult keeps the command's
// result as data, for an agent and for a person; any other error drops it.
func TestFailureWithResult(t *testing.T) {
	fail := func() *envelope.Error { return envelope.Errorf(80, "NONCONFORMANT", "found problems") }
	for _, tt := range []struct {
		name string
		err  *envelope.Error
		want string // data, as JSON
	}{
		{"kept", fail().WithResult(), `{"found":2}`},
		{"dropped", fail(), `null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			out.Result(map[string]int{"found": 2})
			out.Finish(fixedMeta(), tt.err)
			if env := decodeOne(t, stdout.Bytes()); string(env.Data) != tt.want {
				t.Errorf("data %s, want %s", env.Data, tt.want)
			}
		})
	}
	out, stdout, stderr := newOutput(envelope.Settings{Mode: humanMode()})
	out.RenderText(func(w io.Writer) error { _, err := io.WriteString(w, "the report\n"); return err })
	out.Result(map[string]int{"found": 2})
	out.Finish(fixedMeta(), fail().WithResult())
	if stdout.String() != "the report\n" || !strings.Contains(stderr.String(), "NONCONFORMANT") {
		t.Errorf("a person saw stdout %q, stderr %q; want the report, then the error", stdout, stderr)
	}
}

// ShowWarnings shows a person the warnings so far at once, and not again
// at the end; an agent gets every warning in the envelope, as ever.
func TestShowWarnings(t *testing.T) {
	t.Run("person", func(t *testing.T) {
		out, _, stderr := newOutput(envelope.Settings{Mode: humanMode()})
		out.Warn("FIRST", "one", "do this")
		out.ShowWarnings()
		shown := stderr.String()
		out.Warn("SECOND", "two", "do that")
		out.Finish(fixedMeta(), nil)
		want := "WARNING [FIRST]: one. Next: do this\n"
		if shown != want {
			t.Errorf("shown at once %q, want %q", shown, want)
		}
		if rest := strings.TrimPrefix(stderr.String(), shown); rest != "WARNING [SECOND]: two. Next: do that\n" {
			t.Errorf("at the end %q, want only the second warning", rest)
		}
	})
	t.Run("agent", func(t *testing.T) {
		out, stdout, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
		out.Warn("FIRST", "one", "do this")
		out.ShowWarnings()
		out.Finish(fixedMeta(), nil)
		want := []envelope.Warning{{Code: "FIRST", Message: "one. Next: do this"}}
		if env := decodeOne(t, stdout.Bytes()); !cmp.Equal(want, env.Warnings) || stderr.Len() != 0 {
			t.Errorf("warnings %+v in the envelope, stderr %q; want %+v in the envelope only", env.Warnings, stderr, want)
		}
	})
}

// TestSizeCapHintNamesOwnFlags: meta.truncation_hint names only flags the
// command takes (REQ-F-052). A list the command pages gets the command
// line of the next page; one it cannot page (an import's report) names no
// --limit or --cursor and gets no meta.pagination, and --fields only where
// the command has it.
func TestSizeCapHintNamesOwnFlags(t *testing.T) {
	takes := func(names ...string) func(string) bool {
		return func(name string) bool { return slices.Contains(names, name) }
	}
	nextPage := func(limit int, cursor string) string {
		return fmt.Sprintf("tool items list --limit %d --cursor %s", limit, cursor)
	}
	tests := []struct {
		name      string
		result    any
		window    *envelope.Window
		accepts   func(string) bool
		nextPage  func(int, string) string
		wantFlags []string // the flags the hint names, in order
		paged     bool     // meta.pagination is there
	}{
		{"list command", many(2000), &envelope.Window{}, takes("limit", "cursor", "fields"), nextPage, []string{"--limit", "--cursor"}, true},
		{"list command without a next page command", many(2000), &envelope.Window{}, takes("limit", "cursor", "fields"), nil, []string{"--limit", "--cursor", "--fields"}, true},
		{"import's report", many(2000), nil, takes("input-file", "fields"), nil, []string{"--fields"}, false},
		{"import's report without --fields", many(2000), nil, takes("input-file"), nil, nil, false},
		{"list by default without settings", many(2000), &envelope.Window{}, nil, nil, []string{"--limit", "--cursor", "--fields"}, true},
		{"other list by default without settings", many(2000), nil, nil, nil, nil, false},
		{"object", map[string]string{"blob": strings.Repeat("x", 5000)}, nil, takes("fields"), nil, []string{"--fields"}, false},
		{"object without --fields", map[string]string{"blob": strings.Repeat("x", 5000)}, nil, takes(), nil, nil, false},
	}
	flagWord := regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), MaxBytes: 4000,
				Window: tt.window, Accepts: tt.accepts, NextPage: tt.nextPage})
			out.Result(tt.result)
			out.Finish(fixedMeta(), nil)
			env := decodeOne(t, stdout.Bytes())
			hint, _ := env.Meta["truncation_hint"].(string)
			if env.Meta["truncated"] != true || hint == "" {
				t.Fatalf("meta.truncated %v, truncation_hint %q: want the cap to cut", env.Meta["truncated"], hint)
			}
			if diff := cmp.Diff(tt.wantFlags, flagWord.FindAllString(hint, -1)); diff != "" {
				t.Errorf("flags named by the hint %q (-want +got):\n%s", hint, diff)
			}
			if _, has := env.Meta["pagination"]; has != tt.paged {
				t.Errorf("meta.pagination present %v, want %v: %v", has, tt.paged, env.Meta["pagination"])
			}
		})
	}
}
