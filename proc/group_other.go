//go:build !unix

package proc

import (
	"os"
	"syscall"
)

// attr keeps the caller's attributes: there are no process groups to put
// the program in.
func (c *Cmd) attr() *syscall.SysProcAttr { return c.SysProcAttr }

// signalGroup kills p: there is no group to signal, nor a SIGTERM to
// answer.
func signalGroup(p *os.Process, _ os.Signal) { _ = p.Kill() }
