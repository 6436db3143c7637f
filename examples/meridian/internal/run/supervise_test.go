package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSuperviseRefusesOtherDirs: the supervisor writes a run's finalize next
// to its directory, so it must refuse a directory that is not a run's before
// writing anything.
func TestSuperviseRefusesOtherDirs(t *testing.T) {
	root := t.TempDir()
	notRun := filepath.Join(root, "a", "b")
	noLock := filepath.Join(root, "runs", "r1")
	for _, d := range []string{notRun, noLock} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{notRun, noLock, filepath.Join(root, "runs", "../x")} {
		if err := Supervise(context.Background(), dir); err == nil {
			t.Errorf("Supervise(%s) accepted it", dir)
		}
	}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("Supervise wrote %s", path)
		}
		return nil
	})
}
