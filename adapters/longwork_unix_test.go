//go:build unix

package adapters_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
)

func umask(m int) int { return syscall.Umask(m) }

// TestSessionTempDirs: two invocations at once get different temp
// directories, mode 0700, and files mode 0600 whatever the umask.
func TestSessionTempDirs(t *testing.T) {
	dir := t.TempDir()
	old := umask(0)
	defer umask(old)
	var hs [2]*workHarness
	var release [2]chan os.Signal
	var done [2]chan result
	for i := range hs {
		hs[i] = newWorkHarness()
		release[i] = make(chan os.Signal, 1)
		done[i] = make(chan result, 1)
		go func() {
			done[i] <- workRun(t, hs[i], dir, []urfave.Option{adapters.WithSignals(release[i]), adapters.WithGrace(time.Minute)},
				"hold", "--block", "--lock", filepath.Join(dir, "lock"+string(rune('a'+i))))
		}()
		<-hs[i].started
	}
	if hs[0].tempDir == hs[1].tempDir {
		t.Errorf("both invocations use %s", hs[0].tempDir)
	}
	for _, h := range hs {
		for path, want := range map[string]os.FileMode{h.tempDir: 0o700, h.tempFile: 0o600, filepath.Dir(h.tempDir): 0o700} {
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
			}
		}
	}
	for i := range hs {
		release[i] <- sigterm
		<-done[i]
	}
}
