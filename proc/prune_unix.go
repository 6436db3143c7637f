//go:build unix

package proc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PruneSessions removes the PID files that invocations of tool killed
// before they could end their sessions left in tempDir ("" is
// os.TempDir()): those older than minAge that list no process still
// running. A file that lists one — a background process, or a program its
// killed invocation never stopped — stays, for whoever looks for it. It
// returns the files removed; it is best effort, and reports nothing else.
// It looks closely at pruneBatch files at most, so that a directory of
// thousands costs an invocation no more than a few: which ones moves with
// now, so that files that stay do not keep the others from being looked at.
func PruneSessions(tool, tempDir string, minAge time.Duration, now time.Time) []string {
	dir := sessionsDir(tempDir, tool)
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names) // the directory's own order may change between reads
	start := int(now.UnixMilli() % int64(len(names)))
	var removed []string
	for i := range min(pruneBatch, len(names)) {
		name := names[(start+i)%len(names)]
		if !strings.HasSuffix(name, ".pids") && !strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < minAge {
			continue
		}
		// A writeFile temporary file of a killed invocation is never a list.
		if !strings.HasPrefix(name, ".") && anyRunning(path) {
			continue
		}
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}

// pruneBatch is how many files one PruneSessions looks at.
const pruneBatch = 32

// anyRunning reports whether a process the PID file at path lists still
// runs (a zombie has ended). A file that cannot be read counts as running:
// it is left alone.
func anyRunning(path string) bool {
	raw, err := os.ReadFile(path)
	if err != nil {
		return true
	}
	for _, field := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(field)
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			if !zombie(pid) {
				return true
			}
		}
	}
	return false
}

// zombie reports whether pid has exited and awaits its parent (Linux; false
// where /proc does not say).
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
