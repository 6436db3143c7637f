package input_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/schema"
)

func TestSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "payload.jsonl")
	if err := os.WriteFile(path, []byte("from the file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ctx    context.Context
		source string
		data   string
	}{
		{"outside an invocation: empty, never os.Stdin", context.Background(), "stdin", ""},
		{"bytes read from stdin", input.NewContext(context.Background(), input.FromBytes([]byte("piped\n"))), "stdin", "piped\n"},
		{"a file", input.NewContext(context.Background(), input.FromFile(path)), path, "from the file\n"},
	}
	for _, tc := range tests {
		s := input.From(tc.ctx)
		data, err := s.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff([]string{tc.source, tc.data}, []string{s.Name(), string(data)}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	_, err := input.FromFile(filepath.Join(t.TempDir(), "missing")).ReadAll()
	var e *envelope.Error
	if !errors.As(err, &e) || e.Code != "INPUT_FILE_UNREADABLE" || e.Exit != exitcode.ArgError || e.Field != "input-file" {
		t.Errorf("a missing file: %v", err)
	}
}

// TestLines: line mode hands over every line without its ending, a last
// line without one included, and stops at the first line over the cap
// with LINE_TOO_LARGE (exit 1, its line number in context), having handed
// over the lines before it.
func TestLines(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		cap     int
		want    []string
		tooLong int // the line refused, or 0
	}{
		{"lines", "a\nb\n", 0, []string{"a", "b"}, 0},
		{"no final newline", "a\nb", 0, []string{"a", "b"}, 0},
		{"CRLF", "a\r\nb\r\n", 0, []string{"a", "b"}, 0},
		{"blank lines kept", "a\n\nb\n", 0, []string{"a", "", "b"}, 0},
		{"empty", "", 0, nil, 0},
		{"at the cap", "12345\n", 5, []string{"12345"}, 0},
		{"over the cap", "ok\n123456\nnever\n", 5, []string{"ok"}, 2},
		{"over the cap, no newline", "ok\n123456", 5, []string{"ok"}, 2},
		{"over the default cap", "1\n2\n" + strings.Repeat("x", schema.DefaultMaxLineBytes+1) + "\n", 0, []string{"1", "2"}, 3},
		{"a long line under the cap", strings.Repeat("y", 200<<10) + "\n", 0, []string{strings.Repeat("y", 200<<10)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, src := range []*input.Source{input.FromBytes([]byte(tc.payload)), input.FromStream("stdin", strings.NewReader(tc.payload))} {
				var got []string
				var failed error
				for line, err := range src.WithMaxLineBytes(tc.cap).Lines() {
					if err != nil {
						failed = err
						break
					}
					got = append(got, string(line))
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
				var e *envelope.Error
				switch {
				case tc.tooLong == 0 && failed != nil:
					t.Errorf("err %v", failed)
				case tc.tooLong != 0 && (!errors.As(failed, &e) || e.Code != input.CodeLineTooLarge || e.Exit != exitcode.GeneralError || e.Context["line"] != tc.tooLong):
					t.Errorf("err %#v, want LINE_TOO_LARGE exit 1 at line %d", failed, tc.tooLong)
				}
			}
		})
	}
}

// TestLinesArriveAsWritten: a stream's line reaches the command before
// the writer has written the next one.
func TestLinesArriveAsWritten(t *testing.T) {
	r, w := io.Pipe()
	go func() {
		io.WriteString(w, "first\n")
	}()
	for line, err := range input.FromStream("stdin", r).Lines() {
		if err != nil {
			t.Fatal(err)
		}
		if string(line) == "first" {
			go func() {
				io.WriteString(w, "second\n")
				w.Close()
			}()
			continue
		}
		if string(line) != "second" {
			t.Errorf("line %q", line)
		}
	}
}

// TestRecords: a records consumer reads another command's jsonl stream:
// the items, without _seq, checked against the record schema; blank and
// heartbeat lines skipped; the summary line ends it; an error envelope is
// UPSTREAM_FAILED; stdin that ends without a terminal line is
// UPSTREAM_INCOMPLETE (a file may); a line that is no record is
// RECORD_INVALID; each error is exit 1 and names its line.
func TestRecords(t *testing.T) {
	record := schema.Schema{"type": "object", "required": []string{"name"},
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "size": map[string]any{"type": "integer"}}}
	item1, item2 := `{"_seq":1,"name":"a"}`, `{"_seq":2,"name":"b","size":3}`
	summary := `{"_summary":true,"total":2,"_count":2}`
	tests := []struct {
		name    string
		payload string
		file    bool
		want    []string
		code    string
		context map[string]any
	}{
		{name: "two items and the summary", payload: item1 + "\n" + item2 + "\n" + summary + "\n", want: []string{`{"name":"a"}`, `{"name":"b","size":3}`}},
		{name: "a heartbeat and a blank line between", payload: item1 + "\n" + `{"status":"running","heartbeat":true,"elapsed_ms":100}` + "\n\n" + item2 + "\n" + summary + "\n",
			want: []string{`{"name":"a"}`, `{"name":"b","size":3}`}},
		{name: "an error envelope", payload: item1 + "\n" + `{"ok":false,"data":null,"error":{"code":"UPSTREAM_DOWN","message":"x","retryable":true},"warnings":[],"meta":{"exit_code":12}}` + "\n",
			want: []string{`{"name":"a"}`}, code: input.CodeUpstreamFailed,
			context: map[string]any{"line": 2, "upstream": map[string]any{"code": "UPSTREAM_DOWN", "retryable": true}, "upstream_exit_code": 12}},
		{name: "stdin cut short", payload: item1 + "\n" + item2 + "\n",
			want: []string{`{"name":"a"}`, `{"name":"b","size":3}`}, code: input.CodeUpstreamIncomplete, context: map[string]any{"line": 2, "records": 2}},
		{name: "a file without a summary", payload: item1 + "\n" + item2 + "\n", file: true, want: []string{`{"name":"a"}`, `{"name":"b","size":3}`}},
		{name: "not an object", payload: item1 + "\n[1,2]\n", want: []string{`{"name":"a"}`}, code: input.CodeRecordInvalid, context: map[string]any{"line": 2}},
		{name: "a required field missing", payload: `{"size":1}` + "\n", code: input.CodeRecordInvalid, context: map[string]any{"line": 1, "field": "name"}},
		{name: "a field of the wrong type", payload: `{"name":"a","size":"big"}` + "\n", code: input.CodeRecordInvalid, context: map[string]any{"line": 1, "field": "size"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := input.FromStream("stdin", strings.NewReader(tc.payload))
			if tc.file {
				path := filepath.Join(t.TempDir(), "records.jsonl")
				if err := os.WriteFile(path, []byte(tc.payload), 0o600); err != nil {
					t.Fatal(err)
				}
				src = input.FromFile(path)
			}
			var got []string
			var failed error
			for rec, err := range src.WithRecords(record).Records() {
				if err != nil {
					failed = err
					break
				}
				got = append(got, string(rec))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			var e *envelope.Error
			switch {
			case tc.code == "" && failed != nil:
				t.Errorf("err %v", failed)
			case tc.code != "" && !errors.As(failed, &e):
				t.Errorf("err %v, want %s", failed, tc.code)
			case tc.code != "":
				if e.Code != tc.code || e.Exit != exitcode.GeneralError {
					t.Errorf("err %s exit %d, want %s exit 1", e.Code, e.Exit, tc.code)
				}
				if diff := cmp.Diff(tc.context, e.Context); diff != "" {
					t.Errorf("context (-want +got):\n%s", diff)
				}
			}
		})
	}
}
