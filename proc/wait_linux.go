package proc

import (
	"errors"
	"syscall"
	"unsafe"
)

// awaitExit waits until process pid has exited, without reaping it, and
// reports whether it could: while it is a zombie its pid, and so its
// process group's id, cannot be reused, so that what it left in its group
// can be killed safely.
func awaitExit(pid int) bool {
	const pPID = 1     // P_PID
	var info [128]byte // siginfo_t, unread
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno == 0 {
			return true
		}
		if !errors.Is(errno, syscall.EINTR) {
			return false
		}
	}
}
