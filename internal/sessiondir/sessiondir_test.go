package sessiondir

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPrune: what a process that is gone left is removed at once, kept
// files once older than the ttl; a running process's session stays; what
// is not Duet's is left alone.
func TestPrune(t *testing.T) {
	if !canTell {
		t.Skip("liveness cannot be told here")
	}
	root := Root(t.TempDir(), "tool")
	mine, err := New(root, "req-1")
	if err != nil {
		t.Fatal(err)
	}
	keptNew, err := Keep(root, "req-2")
	if err != nil {
		t.Fatal(err)
	}
	keptOld, err := Keep(root, "req-3")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(keptOld, old, old)
	// A pid no process has: above the kernel's maximum.
	gone := filepath.Join(root, sessionPrefix+strconv.Itoa(1<<22+1)+"-req-4-x")
	other := filepath.Join(root, "not-ours")
	for _, d := range []string{gone, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := Prune(root, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range removed {
		paths = append(paths, e.Path)
	}
	slices.Sort(paths)
	want := []string{keptOld, gone}
	slices.Sort(want)
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, d := range []string{mine, keptNew, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v, want kept", d, err)
		}
	}
}

// TestRootRefused: a root another user could read is refused.
func TestRootRefused(t *testing.T) {
	root := Root(t.TempDir(), "tool")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o755)
	if _, err := New(root, "r"); err == nil {
		t.Error("New accepted a root open to others")
	}
}

func TestNamesDiffer(t *testing.T) {
	root := Root(t.TempDir(), "tool")
	a, err := New(root, "same")
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(root, "same")
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("two sessions share %s", a)
	}
}
