package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLineFilter: each line the SDK could not take is answered with its
// JSON-RPC error — a line over maxLine too, however long — and the lines
// after it are passed on.
func TestLineFilter(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	in := strings.Join([]string{
		"garbage",
		strings.Repeat("x", maxLine+10),
		"",
		`{}`,
		ok,
	}, "\n") + "\n"
	var out bytes.Buffer
	f := newLineFilter(strings.NewReader(in), &lockedWriter{w: nopCloser{&out}})
	passed, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading through the filter: %v", err)
	}
	if string(passed) != ok+"\n" {
		t.Errorf("passed on %.80q, want only the ping", passed)
	}
	var codes []int
	for line := range strings.Lines(out.String()) {
		var m struct {
			Error struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("an answer is not JSON: %q", line)
		}
		codes = append(codes, m.Error.Code)
	}
	if diff := cmp.Diff([]int{parseError, parseError, invalidRequest}, codes); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
