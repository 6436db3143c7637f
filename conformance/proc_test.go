package conformance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sh is an invocationSpec of /bin/sh -c script, with a deadline generous enough
// that only a hang reaches it.
func sh(script string) invocationSpec {
	return invocationSpec{Path: "/bin/sh", Args: []string{"-c", script}, Timeout: 30 * time.Second}
}

// result is the part of a runOutcome a test compares.
type result struct {
	Stdout, Stderr string
	Exit           int
	Signal         string
	TimedOut       bool
}

func resultOf(o runOutcome) result {
	r := result{Stdout: string(o.Stdout), Stderr: string(o.Stderr), Exit: o.Exit, TimedOut: o.TimedOut}
	if o.Signal != 0 {
		r.Signal = o.Signal.String()
	}
	return r
}

func TestRun(t *testing.T) {
	tests := []struct {
		name string
		inv  invocationSpec
		want result
	}{
		{"exit 0", sh("true"), result{}},
		{"exit code", sh("exit 3"), result{Exit: 3}},
		{"streams apart", sh("echo out; echo err >&2; exit 1"), result{Stdout: "out\n", Stderr: "err\n", Exit: 1}},
		{"killed by a signal", sh("kill -KILL $$"), result{Exit: -1, Signal: "killed"}},
		{"args and env", func() invocationSpec {
			inv := sh(`printf '%s|' "$0" "$1" "$X"`)
			inv.Args = append(inv.Args, "zero", "one two")
			inv.Env = []string{"X=x"}
			return inv
		}(), result{Stdout: "zero|one two|x|"}},
		{"stdin null", sh("cat; echo done"), result{Stdout: "done\n"}},
		{"stdin eof", func() invocationSpec {
			inv := sh("cat; echo done")
			inv.Stdin = stdinEOF
			return inv
		}(), result{Stdout: "done\n"}},
		{"stdin open", func() invocationSpec {
			inv := sh("cat; echo done")
			inv.Stdin, inv.Timeout = stdinOpen, 300*time.Millisecond
			return inv
		}(), result{Exit: -1, Signal: "killed", TimedOut: true}},
		{"not a terminal", sh("test -t 0 || test -t 1 || test -t 2 || echo pipes"), result{Stdout: "pipes\n"}},
		{"terminal", func() invocationSpec {
			inv := sh("test -t 0 && test -t 1 && test -t 2 && echo tty; echo err >&2")
			inv.PTY = true
			return inv
		}(), result{Stdout: "tty\r\nerr\r\n"}},
		{"terminal, nothing typed", func() invocationSpec {
			inv := sh("cat; echo done")
			inv.PTY, inv.Timeout = true, 300*time.Millisecond
			return inv
		}(), result{Exit: -1, Signal: "killed", TimedOut: true}},
		{"terminal, end of input typed", func() invocationSpec {
			inv := sh("cat; echo done")
			inv.PTY, inv.Stdin = true, stdinEOF
			return inv
		}(), result{Stdout: "done\r\n"}},
		{"terminal width", func() invocationSpec {
			inv := sh("stty size")
			inv.PTY, inv.Cols = true, 132
			return inv
		}(), result{Stdout: "40 132\r\n"}},
		{"default terminal width", func() invocationSpec {
			inv := sh("stty size")
			inv.PTY = true
			return inv
		}(), result{Stdout: "40 80\r\n"}},
		{"controlling terminal", func() invocationSpec {
			inv := sh("echo hi >/dev/tty")
			inv.PTY = true
			return inv
		}(), result{Stdout: "hi\r\n"}},
		{"signal handled", func() invocationSpec {
			// sleep in the background so that the shell, in wait, runs
			// the trap at once.
			inv := sh(`trap "echo got; exit 7" TERM; sleep 100 & wait`)
			inv.Signals = []timedSignal{{After: 500 * time.Millisecond, Signal: syscall.SIGTERM}}
			return inv
		}(), result{Stdout: "got\n", Exit: 7}},
		{"signal not handled", func() invocationSpec {
			inv := sh(`sleep 100 & wait`)
			inv.Signals = []timedSignal{{After: 100 * time.Millisecond, Signal: syscall.SIGTERM}}
			return inv
		}(), result{Exit: -1, Signal: "terminated"}},
		{"exit leaves a child holding stdout", sh("sleep 100 & echo done"), result{Stdout: "done\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := runInvocation(t.Context(), tt.inv)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if diff := cmp.Diff(tt.want, resultOf(o)); diff != "" {
				t.Errorf("Run(%s) (-want +got):\n%s", tt.inv.CommandLine(), diff)
			}
			if o.StdoutBytes != int64(len(o.Stdout)) || o.StderrBytes != int64(len(o.Stderr)) {
				t.Errorf("counted %d and %d bytes, kept %d and %d", o.StdoutBytes, o.StderrBytes, len(o.Stdout), len(o.Stderr))
			}
			if o.Duration <= 0 {
				t.Errorf("Duration = %v", o.Duration)
			}
		})
	}
}

func TestRunMaxOutput(t *testing.T) {
	tests := []struct {
		name      string
		maxOutput int
		wantKept  int
	}{
		{"default", 0, 1 << 20},
		{"small", 4096, 4096},
		{"larger than the output", 20_000_000, 10_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inv := sh("yes | head -c 10000000; yes 2>/dev/null | head -c 10000000 >&2")
			inv.MaxOutput = tt.maxOutput
			o := runInvocation(t.Context(), inv)
			if o.Err != nil || o.Exit != 0 || o.TimedOut {
				t.Fatalf("Run = exit %d, timed out %v, err %v", o.Exit, o.TimedOut, o.Err)
			}
			got := []int64{o.StdoutBytes, int64(len(o.Stdout)), o.StderrBytes, int64(len(o.Stderr))}
			want := []int64{10_000_000, int64(tt.wantKept), 10_000_000, int64(tt.wantKept)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("bytes counted and kept (-want +got):\n%s", diff)
			}
			if !bytes.HasPrefix(o.Stdout, []byte("y\ny\n")) {
				t.Errorf("Stdout starts %q", o.Stdout[:min(10, len(o.Stdout))])
			}
		})
	}
}

func TestRunTimeoutKillsTheGroup(t *testing.T) {
	tests := []struct {
		name string
		pty  bool
	}{{"pipes", false}, {"pty", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "pid")
			inv := sh(`sleep 100 & echo $! > "$0"; wait`)
			inv.Args = append(inv.Args, pidfile)
			inv.PTY, inv.Timeout = tt.pty, 500*time.Millisecond
			o := runInvocation(t.Context(), inv)
			if diff := cmp.Diff(result{Exit: -1, Signal: "killed", TimedOut: true}, resultOf(o)); diff != "" {
				t.Errorf("Run (-want +got):\n%s", diff)
			}
			waitGone(t, readPid(t, pidfile))
		})
	}
}

func TestRunCancel(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	inv := sh(`sleep 100 & echo $! > "$0"; wait`)
	inv.Args = append(inv.Args, pidfile)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Cancel once the grandchild exists, so it is the group's kill that
	// must end it.
	go func() {
		for {
			if b, err := os.ReadFile(pidfile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	o := runInvocation(ctx, inv)
	if diff := cmp.Diff(result{Exit: -1, Signal: "killed"}, resultOf(o)); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	waitGone(t, readPid(t, pidfile))

	if o := runInvocation(ctx, sh("true")); o.Err == nil {
		t.Errorf("Run with a done context: Err = nil, want an error")
	}
}

func TestRunExitKillsTheGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	inv := sh(`sleep 100 >/dev/null 2>&1 & echo $! > "$0"`)
	inv.Args = append(inv.Args, pidfile)
	if o := runInvocation(t.Context(), inv); o.Exit != 0 || o.TimedOut {
		t.Fatalf("Run = %+v", resultOf(o))
	}
	waitGone(t, readPid(t, pidfile))
}

func TestRunCloseStdout(t *testing.T) {
	tests := []struct {
		name string
		pty  bool
	}{{"pipes", false}, {"pty", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inv := invocationSpec{Path: "yes", CloseStdout: true, PTY: tt.pty, Timeout: 30 * time.Second}
			o := runInvocation(t.Context(), inv)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if o.TimedOut {
				t.Errorf("yes with its reader gone did not end")
			}
			if o.Exit == 0 {
				t.Errorf("yes with its reader gone exited 0")
			}
			if len(o.Stdout) != 0 || o.StdoutBytes != 0 {
				t.Errorf("Stdout = %q (%d bytes), want nothing", o.Stdout, o.StdoutBytes)
			}
			t.Logf("exit %d, signal %q, stderr %q", o.Exit, o.Signal, o.Stderr)
		})
	}
}

func TestRunCannotStart(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		inv  invocationSpec
	}{
		{"missing", invocationSpec{Path: filepath.Join(t.TempDir(), "missing")}},
		{"not in PATH", invocationSpec{Path: "duet-no-such-program"}},
		{"not executable", invocationSpec{Path: notExec}},
		{"missing under pty", invocationSpec{Path: "/nonexistent/x", PTY: true}},
		{"missing directory", invocationSpec{Path: "/bin/sh", Dir: "/nonexistent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runInvocation(t.Context(), tt.inv)
			if o.Err == nil {
				t.Fatalf("Run = %+v, want an error", resultOf(o))
			}
			if o.Exit != -1 {
				t.Errorf("Exit = %d, want -1", o.Exit)
			}
		})
	}
}

func TestProcCommandLine(t *testing.T) {
	tests := []struct {
		path string
		args []string
		want string
	}{
		{"/usr/bin/tool", nil, "/usr/bin/tool"},
		{"tool", []string{"list", "--format=json", "a_b@c:1,2"}, "tool list --format=json a_b@c:1,2"},
		{"tool", []string{""}, "tool ''"},
		{"/my tools/t", []string{"it's", "$HOME", "a\nb"}, `'/my tools/t' 'it'\''s' '$HOME' 'a` + "\n" + `b'`},
	}
	for _, tt := range tests {
		inv := invocationSpec{Path: tt.path, Args: tt.args}
		if got := inv.CommandLine(); got != tt.want {
			t.Errorf("CommandLine(%q, %q) = %q, want %q", tt.path, tt.args, got, tt.want)
		}
	}
}

func TestProcCapture(t *testing.T) {
	c := &capture{max: 5}
	for _, w := range []string{"ab", "cde", "fgh", "", "ij"} {
		if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
	}
	buf, n := c.result()
	if string(buf) != "abcde" || n != 10 {
		t.Errorf("kept %q of %d bytes, want \"abcde\" of 10", buf, n)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	return pid
}

// waitGone fails the test unless process pid ends (or is a zombie nobody
// has reaped yet) within a deadline long enough for any loaded machine.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// The state follows the command's closing parenthesis.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
