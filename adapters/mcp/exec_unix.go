//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd as the leader of a new process group, so that the
// group can be signalled as one.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM, or SIGKILL with kill, to cmd's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig) // ESRCH: nobody left
}
