//go:build unix

package adapters

import "syscall"

// canWrite reports whether the process may create files in dir.
func canWrite(dir string) bool { return syscall.Access(dir, 2) == nil } // W_OK
