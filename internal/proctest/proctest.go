//go:build linux

// Package proctest builds the programs proc's tests start — the child
// (./child), and a Duet app that starts it (./app) — and reads what they
// report.
//
//	bin := proctest.Child(t)
//	cmd := proc.Command(ctx, bin, "env", "PAGER")
package proctest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// builds are the programs, each built once per process: an open file whose
// directory is already gone, so nothing is left behind however the process
// ends.
var builds = map[string]func() (*os.File, error){
	"child": sync.OnceValues(func() (*os.File, error) { return build("child") }),
	"app":   sync.OnceValues(func() (*os.File, error) { return build("app") }),
}

func build(name string) (*os.File, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir, err := os.MkdirTemp("", "proctest-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, name)
	//duetvet:allow rawexec -- a build step of the tests
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/duet-cli/duet/internal/proctest/"+name)
	cmd.Dir = sourceDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the %s program: %w\n%s", name, err, out)
	}
	return os.Open(bin)
}

func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// Child builds the child program (once per test process) and returns its
// path in a directory removed with the test.
func Child(t testing.TB) string { return install(t, "child") }

// App builds the test app (once per test process) and returns its path in
// a directory removed with the test.
func App(t testing.TB) string { return install(t, "app") }

func install(t testing.TB, name string) string {
	t.Helper()
	src, err := builds[name]()
	if err != nil {
		t.Fatal(err)
	}
	st, err := src.Stat()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(out, io.NewSectionReader(src, 0, st.Size()))
	if err := errors.Join(err, out.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadyPIDs reads the lines a waiting child prints ("grandchild PID",
// "ready PID") up to its ready line, and returns the pids, grandchild
// first.
func ReadyPIDs(t testing.TB, r *bufio.Reader) []int {
	t.Helper()
	var pids []int
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read the child's ready line: %v (read %q)", err, line)
		}
		kind, pid, _ := strings.Cut(strings.TrimSpace(line), " ")
		n, err := strconv.Atoi(pid)
		if err != nil {
			t.Fatalf("child said %q", line)
		}
		pids = append(pids, n)
		if kind == "ready" {
			return pids
		}
	}
}

// Alive reports whether process pid exists (and is not a zombie, where the
// system says).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) // no /proc: kill said it exists
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// AwaitGone waits until process pid — any process, not only a child of
// this one — has exited, failing the test if it has not after a generous
// bound (a process that was killed is gone at once; the bound only keeps a
// broken test from hanging).
func AwaitGone(t testing.TB, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // gone already
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int((10 * time.Second).Milliseconds()))
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			t.Fatalf("poll pidfd of %d: %v", pid, err)
		case n == 0:
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs", pid)
		}
		return
	}
}
