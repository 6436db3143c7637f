//go:build unix && !linux

package run

import "syscall"

// harnessAttr starts a harness in a process group of its own, so that it and
// everything it starts can be stopped at once. Only Linux has a parent-death
// signal: elsewhere a harness outlives a supervisor killed outright, until
// `meridian doctor` finds the run orphaned and stops its group.
func harnessAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
