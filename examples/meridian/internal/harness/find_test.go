package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/harness"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(a, "claude"), nil, 0o644) // not executable
	os.WriteFile(filepath.Join(b, "claude"), nil, 0o755)
	os.MkdirAll(filepath.Join(a, "codex"), 0o755) // a directory
	path := a + string(os.PathListSeparator) + b
	tests := []struct {
		command, want string
		err           error
	}{
		{"claude", filepath.Join(b, "claude"), nil},
		{"codex", "", harness.ErrNotFound},
		{filepath.Join(b, "claude"), filepath.Join(b, "claude"), nil},
		{filepath.Join(a, "claude"), "", harness.ErrNotFound},
		{"gemini", "", harness.ErrNotFound},
	}
	for _, tc := range tests {
		got, err := harness.Find(tc.command, path)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("Find(%q) = %q, %v; want %q, %v", tc.command, got, err, tc.want, tc.err)
		}
	}
}
