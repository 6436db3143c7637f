package envelope_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jsontest"
)

func TestItemStreamsJSONL(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL)})
	for i, r := range records() {
		if err := out.Item(r); err != nil {
			t.Fatalf("Item: %v", err)
		}
		// Each item must be on stdout before the next one and before Finish.
		lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		if len(lines) != i+1 {
			t.Fatalf("after %d items stdout has %d lines:\n%s", i+1, len(lines), stdout)
		}
		var got record
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v", i, err)
		}
		if r.Tags == nil {
			r.Tags = []string{} // a nil slice is written [] (F-074)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("line %d (-want +got):\n%s", i, diff)
		}
		// O-004 (ResponseEnvelope 2.3): item lines are numbered from 1.
		var seq struct {
			Seq int `json:"_seq"`
		}
		if json.Unmarshal([]byte(lines[i]), &seq); seq.Seq != i+1 {
			t.Errorf("line %d has _seq %d, want %d", i+1, seq.Seq, i+1)
		}
	}
	before := stdout.Len()
	out.Finish(fixedMeta(), nil)
	summary := stdout.Bytes()[before:]
	if bytes.Count(summary, []byte("\n")) != 1 {
		t.Fatalf("Finish wrote %q, want one summary line", summary)
	}
	if diff := cmp.Diff([]string{"_summary", "total", "_count", "duration_ms", "warnings", "meta"}, jsontest.Keys(t, summary)); diff != "" {
		t.Errorf("summary line keys (-want +got):\n%s", diff)
	}
	sum := decodeSummary(t, summary)
	if sum.Total != 3 || sum.Count == nil || *sum.Count != 3 || sum.Warnings == nil || sum.Meta["exit_code"] != float64(0) {
		t.Errorf("summary total=%d _count=%v warnings=%v exit_code=%v, want 3, 3, [], 0", sum.Total, sum.Count, sum.Warnings, sum.Meta["exit_code"])
	}
	if diff := cmp.Diff(map[string]any{"items": float64(3)}, sum.Meta["stream"]); diff != "" {
		t.Errorf("meta.stream (-want +got):\n%s", diff)
	}
	// O-004: the last line of a stream carries its pagination.
	want := map[string]any{"total": float64(3), "returned": float64(3), "truncated": false, "has_more": false, "next_cursor": nil}
	if diff := cmp.Diff(want, sum.Meta["pagination"]); diff != "" {
		t.Errorf("meta.pagination (-want +got):\n%s", diff)
	}
}

func TestItemInJSONBecomesData(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	for _, r := range records()[:2] {
		out.Item(r)
		if stdout.Len() != 0 {
			t.Fatalf("json mode wrote an item before Finish: %q", stdout)
		}
	}
	out.Finish(fixedMeta(), nil)
	env := decodeOne(t, stdout.Bytes())
	if n := len(dataList(t, env)); n != 2 {
		t.Errorf("data has %d items, want 2", n)
	}
}

func TestItemStreamsText(t *testing.T) {
	tests := []struct {
		format envelope.Format
		mode   envelope.Mode
		want   []string // stdout after each item
	}{
		{envelope.TSV, agentMode(envelope.TSV), []string{"id\tname\tsize\ttags\nr1\talpha\t10\t[\"a\",\"b\"]\n", "id\tname\tsize\ttags\nr1\talpha\t10\t[\"a\",\"b\"]\nr2\tbeta gamma\t2000\t[]\n"}},
		{envelope.ID, agentMode(envelope.ID), []string{"r1\n", "r1\nr2\n"}},
		{envelope.Text, humanMode(), []string{"id=r1  name=alpha  size=10  tags=[\"a\",\"b\"]\n", "id=r1  name=alpha  size=10  tags=[\"a\",\"b\"]\nid=r2  name=beta gamma  size=2000  tags=[]\n"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: tt.mode})
			for i, r := range records()[:2] {
				if err := out.Item(r); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want[i], stdout.String()); diff != "" {
					t.Errorf("after item %d (-want +got):\n%s", i, diff)
				}
			}
			out.Finish(fixedMeta(), nil)
			if diff := cmp.Diff(tt.want[1], stdout.String()); diff != "" {
				t.Errorf("Finish wrote again (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgressAgent(t *testing.T) {
	out, stdout, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	steps := []struct {
		msg         string
		done, total int
	}{
		{"scanning", 1, 3}, {"scanning", 1, 3}, {"scanning", 1, 3},
		{"scanning", 2, 3}, {"scanning", 2, 3},
		{"writing", 0, 0},
		{"scanning", 2, 3}, // not consecutive: written again
	}
	for _, s := range steps {
		out.Progress(s.msg, s.done, s.total)
	}
	got := progressEvents(t, stderr)
	want := []envelope.ProgressEvent{
		{Type: "progress", Message: "scanning", Done: 1, Total: 3},
		{Type: "progress", Message: "scanning", Done: 2, Total: 3},
		{Type: "progress", Message: "writing"},
		{Type: "progress", Message: "scanning", Done: 2, Total: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress events (-want +got):\n%s", diff)
	}
	if strings.Contains(stderr.String(), "\x1b") || strings.Contains(stderr.String(), "\r") {
		t.Errorf("agent progress redraws: %q", stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("progress reached stdout: %q", stdout)
	}
}

func TestProgressQuiet(t *testing.T) {
	for _, mode := range []envelope.Mode{agentMode(envelope.JSON), humanMode(), {Format: envelope.Text, Color: true, ErrColor: true, ErrTerminal: true}} {
		out, stdout, stderr := newOutput(envelope.Settings{Mode: mode, Quiet: true})
		out.Progress("working", 1, 2)
		out.Progress("working", 2, 2)
		if stderr.Len() != 0 || stdout.Len() != 0 {
			t.Errorf("mode %+v: progress under Quiet wrote stderr=%q stdout=%q", mode, stderr, stdout)
		}
	}
}

func TestProgressTerminalRedraws(t *testing.T) {
	out, stdout, stderr := newOutput(envelope.Settings{Mode: envelope.Mode{Format: envelope.Text, ErrTerminal: true}})
	out.Progress("step", 1, 2)
	out.Progress("step", 2, 2)
	if strings.Count(stderr.String(), "\n") != 0 || strings.Count(stderr.String(), "\r\x1b[2K") != 2 {
		t.Errorf("terminal progress = %q, want two in-place redraws", stderr)
	}
	out.Result(map[string]int{"n": 1})
	out.Finish(fixedMeta(), nil)
	if !strings.HasSuffix(stderr.String(), "\r\x1b[2K") {
		t.Errorf("progress line not cleared before the result: %q", stderr)
	}
	if stdout.String() != "n: 1\n" {
		t.Errorf("stdout = %q", stdout)
	}
}

func TestLoggerRedacts(t *testing.T) {
	const secret = "hunter2-s3cr3t"
	tests := []struct {
		name string
		mode envelope.Mode
	}{
		{"agent json", agentMode(envelope.JSON)},
		{"human text", humanMode()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, stderr := newOutput(envelope.Settings{Mode: tt.mode, Secrets: []string{secret}})
			log := out.Logger()
			log.Warn("login with "+secret,
				"api_token", "tok-123456",
				"user", "ann",
				"note", "the password is "+secret,
				slog.Group("req", "password", "pw-999", "url", "https://x/?k="+secret),
			)
			log.With("client_secret", "cs-777").Warn("again")
			got := stderr.String()
			for _, leak := range []string{secret, "tok-123456", "pw-999", "cs-777"} {
				if strings.Contains(got, leak) {
					t.Errorf("log leaks %q:\n%s", leak, got)
				}
			}
			if !strings.Contains(got, envelope.Redacted) || !strings.Contains(got, "ann") {
				t.Errorf("log = %s, want redacted secrets and the plain user", got)
			}
			if stdout.Len() != 0 {
				t.Errorf("log reached stdout: %q", stdout)
			}
			if tt.mode.Agent {
				lines := strings.Split(strings.TrimSpace(got), "\n")
				var rec map[string]any
				if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
					t.Fatalf("agent log line is not JSON: %q", lines[0])
				}
				if rec["api_token"] != envelope.Redacted || rec["user"] != "ann" {
					t.Errorf("record = %v", rec)
				}
			}
		})
	}
}

func TestLoggerLevels(t *testing.T) {
	tests := []struct {
		name     string
		s        envelope.Settings
		wantInfo bool
		wantWarn bool
	}{
		{"agent logs warnings", envelope.Settings{Mode: agentMode(envelope.JSON)}, false, true},
		{"person logs info", envelope.Settings{Mode: humanMode()}, true, true},
		{"quiet logs errors only", envelope.Settings{Mode: humanMode(), Quiet: true}, false, false},
		{"verbose logs debug", envelope.Settings{Mode: agentMode(envelope.JSON), Verbose: true}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, stderr := newOutput(tt.s)
			out.Logger().Info("info-line")
			out.Logger().Warn("warn-line")
			if got := strings.Contains(stderr.String(), "info-line"); got != tt.wantInfo {
				t.Errorf("info logged = %v, want %v: %q", got, tt.wantInfo, stderr)
			}
			if got := strings.Contains(stderr.String(), "warn-line"); got != tt.wantWarn {
				t.Errorf("warn logged = %v, want %v: %q", got, tt.wantWarn, stderr)
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"api_token": true, "password": true, "client-secret": true, "key": true, "api-key": true, "apikey": true,
		"user": false, "monkey": false, "keyboard": false, "space": false,
	} {
		if got := envelope.SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestErrorMessageRedacted(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Secrets: []string{"s3cr3t"}})
	out.Warn("W", "used s3cr3t", "rotate s3cr3t")
	fail := envelope.Invalid([]envelope.FieldError{
		{Code: "BAD_TOKEN", Field: "token", Message: "token s3cr3t rejected", Suggestion: "rotate s3cr3t", CorrectedInput: `{"token":"s3cr3t"}`},
		{Code: "BAD_REGION", Field: "region", Message: "no region near s3cr3t"},
	}).WithHint("Run: tool login --token s3cr3t").WithContext("sent", map[string]any{"header": "Bearer s3cr3t", "ids": []any{"s3cr3t"}})
	fail.Detail, fail.FixCommand = "upstream said s3cr3t", "tool login --token s3cr3t"
	out.Finish(fixedMeta(), fail)
	if strings.Contains(stdout.String(), "s3cr3t") {
		t.Errorf("envelope leaks the secret: %s", stdout)
	}
	if !strings.Contains(stdout.String(), `"message":"token [REDACTED] rejected"`) {
		t.Errorf("errors[] not redacted in place: %s", stdout)
	}
}

func TestFrom(t *testing.T) {
	bare := envelope.From(context.Background())
	if bare == nil {
		t.Fatal("From(context.Background()) = nil")
	}
	if err := bare.Result([]int{1}); err != nil {
		t.Errorf("Result = %v", err)
	}
	if v, ok := bare.Recorded(); !ok || !cmp.Equal(v, []int{1}) {
		t.Errorf("Recorded = %v, %v", v, ok)
	}
	bare.Progress("x", 1, 1)
	bare.Logger().Error("nowhere")
	bare.Finish(fixedMeta(), nil) // writes to nothing, must not panic

	out, _, _ := newOutput(envelope.Settings{Mode: humanMode()})
	ctx := envelope.NewContext(context.Background(), out)
	if envelope.From(ctx) != out {
		t.Error("From(NewContext(ctx, out)) != out")
	}
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	if envelope.From(child) != out {
		t.Error("From lost the Output through a derived context")
	}
}

func TestWindow(t *testing.T) {
	out, _, _ := newOutput(envelope.Settings{})
	if _, ok := out.Window(); ok {
		t.Error("Window() ok for a non-list command")
	}
	out, _, _ = newOutput(envelope.Settings{Window: &envelope.Window{Offset: 4, Limit: 2}})
	if w, ok := out.Window(); !ok || w != (envelope.Window{Offset: 4, Limit: 2}) {
		t.Errorf("Window() = %+v, %v", w, ok)
	}
}

func TestConcurrentUse(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL)})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				out.Item(map[string]int{"i": i, "j": j})
				out.Progress("p", j, 20)
				out.Warn("W", "w", "")
			}
		}()
	}
	wg.Wait()
	out.Finish(fixedMeta(), nil)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 161 {
		t.Errorf("got %d lines, want 160 items and a summary", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("interleaved line: %q", l)
		}
	}
}

func TestRenderTextOverride(t *testing.T) {
	render := func(w io.Writer) error { _, err := io.WriteString(w, "custom view\n"); return err }
	tests := []struct {
		mode envelope.Mode
		want string
	}{
		{humanMode(), "custom view\n"},
		{agentMode(envelope.JSON), `{"ok":true,"data":{"n":1},"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0","tool_version":"1.2.3","command":"item.list","request_id":"","config_sources":[]}}` + "\n"},
		{agentMode(envelope.TSV), "n\n1\n"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode.Format), func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: tt.mode})
			out.RenderText(render)
			out.Result(map[string]int{"n": 1})
			out.Finish(fixedMeta(), nil)
			if diff := cmp.Diff(tt.want, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}
