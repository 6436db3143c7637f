package input_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/input"
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

func TestNormalizeJSON(t *testing.T) {
	tests := []struct {
		in, out   string
		corrected string // set when refused
	}{
		{`{"key": "value"}`, `{"key": "value"}`, ""}, // strict JSON as it is
		{`{"key": "value",}`, `{"key":"value"}`, ""},
		{`{"key": "value" /* comment */}`, `{"key":"value"}`, ""},
		{`{key: 'value', n: .5}`, `{"key":"value","n":0.5}`, ""},
		{`{env prod}`, "", `{"env":"prod"}`},
		{`{"a": Infinity}`, "", `{"a":null}`},
		{``, "", `null`},
	}
	for _, tc := range tests {
		out, err := input.NormalizeJSON([]byte(tc.in))
		if tc.corrected == "" {
			if err != nil || string(out) != tc.out {
				t.Errorf("NormalizeJSON(%q) = %s, %v; want %s", tc.in, out, err, tc.out)
			}
			continue
		}
		var e *envelope.Error
		if !errors.As(err, &e) {
			t.Fatalf("NormalizeJSON(%q) = %s, %v; want INVALID_JSON", tc.in, out, err)
		}
		got := []any{e.Code, e.Exit, e.Phase, e.CorrectedInput, e.FixRequired != "", e.Hint != ""}
		want := []any{"INVALID_JSON", exitcode.ArgError, envelope.Validation, tc.corrected, true, true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("NormalizeJSON(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
