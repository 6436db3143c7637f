package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, content := range []string{"first\n", "second, longer\n"} {
		if err := atomicfile.Write(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("content = %q, %v; want %q", got, err, content)
		}
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want only the file (no temporary left)", len(entries))
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}

// TestTempOf: the temporary files Write makes are told from other files,
// with the file each was for.
func TestTempOf(t *testing.T) {
	for name, want := range map[string]string{
		".space.json.1726670150.tmp": "space.json",
		".launch.json.42.tmp":        "launch.json",
		".a.b.c.7.tmp":               "a.b.c",
		"space.json":                 "",
		".space.json":                "",
		"notes.tmp":                  "",
		"..tmp":                      "",
		".draft.md.tmp":              "", // no digits: not Write's
	} {
		if got, ok := atomicfile.TempOf(name); got != want || ok != (want != "") {
			t.Errorf("TempOf(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}
