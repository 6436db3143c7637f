package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTempOfWrite: what Write makes, had it been killed before its
// rename, is a temporary file of its target, by TempOf.
func TestTempOfWrite(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, tempPattern(filepath.Join(dir, "state.json")))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, ok := TempOf(filepath.Base(f.Name())); !ok || got != "state.json" {
		t.Errorf("TempOf(%q) = %q, %v", filepath.Base(f.Name()), got, ok)
	}
}
