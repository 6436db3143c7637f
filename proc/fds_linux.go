package proc

import (
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeOnExec marks every descriptor above stderr close-on-exec, so that a
// program gets only stdin, stdout, stderr and its ExtraFiles (which exec
// places itself). Go opens its own files close-on-exec; this catches one
// this process inherited without the flag, or opened with a raw syscall.
func closeOnExec() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one by one.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
