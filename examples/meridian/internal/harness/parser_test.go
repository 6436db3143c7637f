package harness

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// feedAll feeds r to p line by line, however long a line is, and returns
// the session ids Feed reported.
func feedAll(t *testing.T, p Parser, r io.Reader) []string {
	t.Helper()
	var ids []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if id := p.Feed(line); id != "" {
				ids = append(ids, id)
			}
		}
		if err == io.EOF {
			return ids
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

// Most streams below were printed by the real CLIs (versions in README.md)
// talking to a local stand-in for their model API; the stand-in chose the
// texts and usage figures, the CLIs chose the event shapes and totals.
func TestParsers(t *testing.T) {
	tests := []struct {
		file string
		want Result
	}{
		{"claude-success.jsonl", Result{
			SessionID: "71297e9a-5c73-4e57-8baf-0d3af1ff239e", Report: "Hello from the mock server.",
			CostUSD: f64(0.00036270000000000003), InputTokens: i64(11), OutputTokens: i64(9), CachedTokens: i64(7),
			Completed: true,
		}},
		// The pitfall: three assistant events carry per-message usage
		// (120/2, 120/2, 11/1); only the result event has the totals.
		{"claude-tools.jsonl", Result{
			SessionID: "9764289b-f256-4101-b8e8-1d2cc9c92f2d", Report: "Hello from the mock server.",
			CostUSD: f64(0.0016752), InputTokens: i64(131), OutputTokens: i64(40), CachedTokens: i64(1007),
			Completed: true,
		}},
		// claude's result for an API error says subtype "success" with
		// is_error true, and states a cost of 0.
		{"claude-api-error.jsonl", Result{
			SessionID: "a7c797fb-1cc7-4d5c-8de7-f02185b04a99", Error: "API Error: 400 nope",
			CostUSD: f64(0), InputTokens: i64(0), OutputTokens: i64(0), CachedTokens: i64(0),
			Completed: true,
		}},
		{"claude-resume-not-found.jsonl", Result{
			SessionID: "11111111-2222-3333-4444-555555555555",
			Error:     "No conversation found with session ID: 11111111-2222-3333-4444-555555555555",
			CostUSD:   f64(0), InputTokens: i64(0), OutputTokens: i64(0), CachedTokens: i64(0),
			Completed: true,
		}},
		// Cut before the result event (and mid-line): the last assistant
		// text is the report, nothing is known about totals.
		{"claude-truncated.jsonl", Result{
			SessionID: "9764289b-f256-4101-b8e8-1d2cc9c92f2d", Report: "Hello from the mock server.",
		}},
		// Four "Reconnecting..." error events, then success.
		{"codex-success.jsonl", Result{
			SessionID: "01a207c9-b65f-7152-8b80-123b9fb18891", Report: "Hello from mock codex.",
			InputTokens: i64(100), OutputTokens: i64(20), CachedTokens: i64(40), Completed: true,
		}},
		// The sixth run in one thread: codex reports the thread's totals
		// (the stand-in answered 100/40/20 each time).
		{"codex-resume.jsonl", Result{
			SessionID: "01a207c9-b65f-7152-8b80-123b9fb18891", Report: "Hello from mock codex.",
			InputTokens: i64(600), OutputTokens: i64(120), CachedTokens: i64(240), Completed: true,
		}},
		{"codex-api-error.jsonl", Result{
			SessionID: "01a207ca-0434-7563-be44-cd01de535ad8", Error: `{"error":{"message":"nope"}}`, Completed: true,
		}},
		// Killed while retrying: the last error is all there is.
		{"codex-reconnecting.jsonl", Result{
			SessionID: "01a207c9-b65f-7152-8b80-123b9fb18891",
			Error:     `Reconnecting... 5/5 (unexpected status 200 OK: event: response.created` + "\n" + `data: {"type":"response.created","response":{"id":"resp_1"}}` + "\n\n" + `event: response.output_item.done` + "\n" + `data: {"type":"response.output_item.done","output_index":0,"item":{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"Hello from mock codex."}]}}` + "\n\n" + `event: response.completed` + "\n" + `data: {"type":"response.completed","response":{"id":"resp_1","usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":5},"total_tokens":120}}}, url: ws://127.0.0.1:18082/v1/responses)`,
		}},
		{"opencode-success.jsonl", Result{
			SessionID: "ses_df834ca2dffen2lo1UdwwZOkqF", Report: "Hello from the mock server.",
			CostUSD: f64(0.00018135), InputTokens: i64(11), OutputTokens: i64(9), CachedTokens: i64(7), Completed: true,
		}},
		// Two steps (a tool call, then the answer): tokens and cost add up,
		// the report is the last message's text.
		{"opencode-tools.jsonl", Result{
			SessionID: "ses_df81f6df3ffepfJad6sevI4ayM", Report: "Hello from the mock server.",
			CostUSD: f64(0.0013125 + 0.00018135), InputTokens: i64(131), OutputTokens: i64(40), CachedTokens: i64(1007),
			Completed: true,
		}},
		{"opencode-api-error.jsonl", Result{
			SessionID: "ses_df81f8049ffeUObVL7HwViDYWg", Error: `Bad Request: {"error":{"message":"nope"}}`, Completed: true,
		}},
		// Log lines, a blank line, a JSON array and a torn last line are
		// skipped.
		{"opencode-noise.jsonl", Result{
			SessionID: "ses_df834ca2dffen2lo1UdwwZOkqF", Report: "Done.",
			CostUSD: f64(0), InputTokens: i64(11), OutputTokens: i64(9), CachedTokens: i64(7), Completed: true,
		}},
		{"gemini-success.jsonl", Result{
			SessionID: "7499e950-6adc-44d3-8998-3576cdea9624", Report: "Hello from mock gemini.",
			InputTokens: i64(10), OutputTokens: i64(5), CachedTokens: i64(4), Completed: true,
		}},
		// Text before a tool call is not the report.
		{"gemini-tools.jsonl", Result{
			SessionID: "3cb5e75c-4dd8-4967-be21-deafa6ebcf97", Report: "Hello from mock gemini.",
			InputTokens: i64(910), OutputTokens: i64(25), CachedTokens: i64(604), Completed: true,
		}},
		{"gemini-api-error.jsonl", Result{
			SessionID:   "617efd84-6c14-4b8e-97d4-10bd0f985b68",
			Error:       `[API Error: {"error":{"message":"{\"error\":{\"message\":\"nope\"}}\n","code":400,"status":"Bad Request"}}]`,
			InputTokens: i64(0), OutputTokens: i64(0), CachedTokens: i64(0), Completed: true,
		}},
		// A warning is not a failure; an error-severity event is, even
		// when the result says success.
		{"gemini-error-events.jsonl", Result{
			SessionID: "3cb5e75c-4dd8-4967-be21-deafa6ebcf97", Report: "The essay begins",
			Error:       "Model response was truncated because it exceeded the token limit. Try using /compress to free up context space.",
			InputTokens: i64(12), OutputTokens: i64(8), CachedTokens: i64(0), Completed: true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			name, _, _ := strings.Cut(tt.file, "-")
			h, ok := Lookup(name)
			if !ok {
				t.Fatalf("no harness for %s", tt.file)
			}
			f, err := os.Open(filepath.Join("testdata", "streams", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := h.NewParser()
			ids := feedAll(t, p, f)
			if diff := cmp.Diff(tt.want, p.Result(), cmpopts.EquateApprox(0, 1e-15)); diff != "" {
				t.Errorf("Result() (-want +got):\n%s", diff)
			}
			// Feed reports the session id once, on the line that reveals it.
			if diff := cmp.Diff([]string{tt.want.SessionID}, ids); diff != "" {
				t.Errorf("ids returned by Feed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParserLongLinesAndGarbage feeds every parser a 3 MiB event, a 3 MiB
// line that is not JSON, and binary noise around its own success stream.
func TestParserLongLinesAndGarbage(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	noise := map[string][]string{
		Claude:   {`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + big + `"}]}}`},
		Codex:    {`{"type":"item.completed","item":{"id":"item_9","type":"command_execution","aggregated_output":"` + big + `","status":"completed"}}`},
		OpenCode: {`{"type":"tool_use","sessionID":"ses_x","part":{"type":"tool","state":{"status":"completed","output":"` + big + `"}}}`},
		Gemini:   {`{"type":"tool_result","tool_id":"t1","status":"success","output":"` + big + `"}`},
	}
	files := map[string]string{Claude: "claude-success.jsonl", Codex: "codex-success.jsonl", OpenCode: "opencode-success.jsonl", Gemini: "gemini-success.jsonl"}
	for _, h := range All() {
		t.Run(h.Name(), func(t *testing.T) {
			stream, err := os.ReadFile(filepath.Join("testdata", "streams", files[h.Name()]))
			if err != nil {
				t.Fatal(err)
			}
			clean := h.NewParser()
			feedAll(t, clean, bytes.NewReader(stream))

			lines := bytes.SplitAfter(stream, []byte("\n"))
			var b bytes.Buffer
			b.Write(lines[0]) // the session id comes first, as in every real stream
			b.WriteString(big + "\n")
			b.Write([]byte{0, 1, 2, 0xff, '\n', '{', '\n'})
			for _, n := range noise[h.Name()] {
				b.WriteString(n + "\n")
			}
			for _, l := range lines[1:] {
				b.Write(l)
			}
			noisy := h.NewParser()
			feedAll(t, noisy, &b)
			if diff := cmp.Diff(clean.Result(), noisy.Result()); diff != "" {
				t.Errorf("noise changed the result (-clean +noisy):\n%s", diff)
			}
		})
	}
}

// TestResultIsASnapshot: a Result taken mid-stream does not change when the
// parser reads on.
func TestResultIsASnapshot(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join("testdata", "streams", "opencode-tools.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Lookup(OpenCode)
	p := h.NewParser()
	lines := bytes.SplitAfter(stream, []byte("\n"))
	for _, l := range lines[:4] { // through the first step_finish
		p.Feed(l)
	}
	mid := p.Result()
	want := Result{
		SessionID: "ses_df81f6df3ffepfJad6sevI4ayM", Report: "Let me look at the files first.",
		CostUSD: f64(0.0013125), InputTokens: i64(120), OutputTokens: i64(31), CachedTokens: i64(1000),
	}
	for _, l := range lines[4:] {
		p.Feed(l)
	}
	if diff := cmp.Diff(want, mid); diff != "" {
		t.Errorf("mid-stream Result changed (-want +got):\n%s", diff)
	}
}
