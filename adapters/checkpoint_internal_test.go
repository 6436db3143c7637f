package adapters

import (
	"encoding/hex"
	"hash/fnv"
	"io"
	"strings"
	"testing"
)

func digest(s string) string {
	h := fnv.New128a()
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil))
}

// TestStreamInput (REQ-C-035): a line-mode payload is digested as the
// command reads it; what Prefix reads ahead is read by the command next,
// and counted once.
func TestStreamInput(t *testing.T) {
	s := newStreamInput(strings.NewReader("alpha\nbeta\ngamma\n"))
	if n, d := s.Consumed(); n != 0 || d != digest("") {
		t.Errorf("Consumed before any read: %d, %s; want 0 and the digest of nothing", n, d)
	}
	got, err := s.Prefix(6)
	if err != nil || got != digest("alpha\n") {
		t.Fatalf("Prefix(6): %s, %v; want the digest of %q", got, err, "alpha\n")
	}
	all, err := io.ReadAll(s)
	if err != nil || string(all) != "alpha\nbeta\ngamma\n" {
		t.Fatalf("the command read %q, %v; want the whole stream", all, err)
	}
	if n, d := s.Consumed(); n != 17 || d != digest("alpha\nbeta\ngamma\n") {
		t.Errorf("Consumed after the whole stream: %d, %s; want 17 and its digest", n, d)
	}

	short := newStreamInput(strings.NewReader("al"))
	if got, err := short.Prefix(6); err != nil || got != digest("al") {
		t.Errorf("Prefix(6) of a 2-byte stream: %s, %v; want the digest of what there is", got, err)
	}
	if got, err := newStreamInput(strings.NewReader("x")).Prefix(1 << 62); err != nil || got != digest("x") {
		t.Errorf("Prefix of a huge n: %s, %v; want the digest of what there is, nothing allocated for the rest", got, err)
	}
}

// TestWholeInput: a payload read whole is compared whole.
func TestWholeInput(t *testing.T) {
	w := newWholeInput([]byte("payload"))
	if _, d := w.Consumed(); d != digest("payload") {
		t.Errorf("Consumed: %s, want the whole payload's digest", d)
	}
	if d, err := w.Prefix(3); err != nil || d != digest("payload") {
		t.Errorf("Prefix(3): %s, %v; want the whole payload's digest", d, err)
	}
}
