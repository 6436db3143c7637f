//go:build unix

package proc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/proc"
)

// TestPruneSessions: the PID files of killed invocations go once nothing
// they list runs and they are old enough; those that list a live process,
// and young ones, stay.
func TestPruneSessions(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "acme", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dead, alive := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	now := time.Now()
	old := now.Add(-time.Hour)
	for name, f := range map[string]struct {
		pids string
		at   time.Time
	}{
		"dead.pids":        {dead + "\n", old},
		"alive.pids":       {dead + "\n" + alive + "\n", old},
		"young.pids":       {dead + "\n", now},
		"empty.pids":       {"", old},
		".dead.pids.12345": {dead + "\n", old}, // a rewrite's temporary file
		"other.txt":        {"", old},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(f.pids), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, f.at, f.at); err != nil {
			t.Fatal(err)
		}
	}
	removed := proc.PruneSessions("acme", tmp, time.Minute, now)
	for i := range removed {
		removed[i] = filepath.Base(removed[i])
	}
	slices.Sort(removed)
	if diff := cmp.Diff([]string{".dead.pids.12345", "dead.pids", "empty.pids"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 3 {
		t.Errorf("left %v, want alive.pids, young.pids and other.txt", left)
	}
}
