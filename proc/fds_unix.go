//go:build unix && !linux

package proc

import (
	"os"
	"strconv"
	"syscall"
)

// closeOnExec marks every descriptor above stderr close-on-exec, so that a
// program gets only stdin, stdout, stderr and its ExtraFiles (which exec
// places itself).
func closeOnExec() {
	entries, err := os.ReadDir("/dev/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
