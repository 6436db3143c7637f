//go:build unix

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestPruneSessionsMovesOn: files that stay (they list a live process)
// do not keep the others from being looked at. With more of them than one
// call looks at, ahead of the stale files in name order, calls a moment
// apart remove every stale file, each removing pruneBatch files at most.
func TestPruneSessionsMovesOn(t *testing.T) {
	tmp := t.TempDir()
	dir := sessionsDir(tmp, "acme")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := now.Add(-time.Hour)
	write := func(name, pids string) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(pids), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	const kept, stale = 2 * pruneBatch, 5 * pruneBatch
	for i := range kept {
		write(fmt.Sprintf("a%03d.pids", i), strconv.Itoa(os.Getpid())+"\n")
	}
	for i := range stale {
		write(fmt.Sprintf("b%03d.pids", i), strconv.Itoa(ended.Process.Pid)+"\n")
	}
	// Calls a millisecond apart start one file further on: while nothing
	// is removed the directory stays the same, so as many calls as it has
	// files look at every one of them. The calls stop there, or once every
	// stale file is gone.
	removed := 0
	for call, idle := 0, 0; removed < stale && idle <= kept+stale; call++ {
		got := PruneSessions("acme", tmp, time.Minute, now.Add(time.Duration(call)*time.Millisecond))
		if len(got) > pruneBatch {
			t.Fatalf("one call removed %d files, more than it may look at", len(got))
		}
		removed += len(got)
		if idle++; len(got) > 0 {
			idle = 0
		}
	}
	if removed != stale {
		left, _ := os.ReadDir(dir)
		t.Errorf("removed %d of %d stale files; %d files left", removed, stale, len(left))
	}
}
