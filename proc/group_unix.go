//go:build unix

package proc

import (
	"os"
	"syscall"
)

// attr is how the program starts: in a process group of its own, in a
// session of its own when it runs in the background, or in this process's
// group when it is given the terminal. A SysProcAttr the caller set is kept
// otherwise.
func (c *Cmd) attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if c.SysProcAttr != nil {
		copied := *c.SysProcAttr
		a = &copied
	}
	switch {
	case c.Background:
		a.Setsid, a.Setpgid, a.Pgid, a.Foreground = true, false, 0, false
	case c.Terminal:
	case !a.Setsid: // a session leader leads its group already
		a.Setpgid, a.Pgid = true, 0
	}
	return a
}

// signalGroup sends sig to p's process group; ESRCH (nobody left) is no
// error.
func signalGroup(p *os.Process, sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		_ = p.Signal(sig)
		return
	}
	_ = syscall.Kill(-p.Pid, s)
}
