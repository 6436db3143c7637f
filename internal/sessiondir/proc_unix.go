//go:build unix

package sessiondir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// alive reports whether a process with this id runs (or runs as another
// user: EPERM says it exists).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// private reports whether info is this user's and closed to others.
func private(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return info.Mode().Perm()&0o077 == 0 && (!ok || int(st.Uid) == os.Getuid())
}

// canTell says whether alive can tell a process is gone.
const canTell = true
