//go:build unix

package adapters_test

import "syscall"

var sigterm = syscall.SIGTERM
