//go:build !linux

package conformance

import (
	"os"
	"runtime"
	"syscall"
)

// Isolate would run the calling program again inside namespaces of its own;
// on this system there are none, so it only records why (see
// Report.Isolation) and returns done false: the program goes on, its runs
// kept in by the sandbox's directories, sentinels and proxy alone.
func Isolate(own ...string) (code int, done bool) {
	if _, ok := os.LookupEnv(isolationEnv); !ok {
		os.Setenv(isolationEnv, isolation{Missing: "namespaces are a Linux feature; this is " + runtime.GOOS}.encode())
	}
	return 0, false
}

// nest does nothing where there are no user namespaces.
func nest(*syscall.SysProcAttr) {}
