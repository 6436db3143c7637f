package run

import "syscall"

// harnessAttr starts a harness in a process group of its own, so that it and
// everything it starts can be stopped at once, and has the kernel kill it if
// the supervisor dies (the parent-death signal).
func harnessAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
