package lock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/lock"
)

// holdEnv makes the test binary a process that holds the lock it names:
// it says "held" on stdout, then exits when stdin closes (or a signal
// kills it).
const holdEnv = "DUET_LOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		if _, err := lock.Acquire(context.Background(), path, time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("held")
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder starts a process that holds the lock on path.
func holder(t *testing.T, path string) (*exec.Cmd, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("holder said %q", line)
	}
	return cmd, func() { stdin.Close() }
}

// TestHeldByAnotherProcess: a process waiting for a lock another holds
// answers LOCK_HELD, exit 4, retryable with retry_after_ms, naming the
// holder; the lock is free once the holder exits, normally or on SIGTERM.
func TestHeldByAnotherProcess(t *testing.T) {
	for _, end := range []string{"exit", "sigterm"} {
		t.Run(end, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.lock")
			cmd, exit := holder(t, path)
			if lock.Free(path) {
				t.Fatal("Free reports a held lock free")
			}
			_, err := lock.Acquire(context.Background(), path, 20*time.Millisecond)
			e := envelope.As(err)
			if e == nil {
				t.Fatalf("Acquire of a held lock: %v, want LOCK_HELD", err)
			}
			got := struct {
				Code      string
				Exit      exitcode.Code
				Retryable bool
				HasRetry  bool
				NamesPID  bool
			}{e.Code, e.Exit, e.Retryable, e.RetryAfterMS > 0, strings.Contains(e.Message, "PID "+strconv.Itoa(cmd.Process.Pid))}
			want := struct {
				Code      string
				Exit      exitcode.Code
				Retryable bool
				HasRetry  bool
				NamesPID  bool
			}{lock.Code, exitcode.Precondition, true, true, true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("LOCK_HELD (-want +got):\n%s\n%+v", diff, e)
			}

			if end == "exit" {
				exit()
			} else {
				cmd.Process.Signal(syscall.SIGTERM)
			}
			cmd.Wait()
			h, err := lock.Acquire(context.Background(), path, 20*time.Millisecond)
			if err != nil {
				t.Fatalf("after the holder's %s: %v", end, err)
			}
			h.Release()
		})
	}
}

// TestReleasedWithTheInvocation: a lock taken in a command is released by
// the invocation's cleanup, and Release may be called again.
func TestReleasedWithTheInvocation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.lock")
	out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}})
	ctx := envelope.NewContext(context.Background(), out)
	h, err := lock.Acquire(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lock.Free(path) {
		t.Fatal("held, yet free")
	}
	if err := out.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !lock.Free(path) {
		t.Error("still held after the invocation's cleanup")
	}
	if err := h.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if got := lock.HolderOf(path); got.PID != 0 {
		t.Errorf("a released lock names holder %d", got.PID)
	}
}

func TestCancelledWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.lock")
	h, err := lock.Acquire(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = lock.Acquire(ctx, path, time.Minute)
	if !errors.Is(err, context.Canceled) || envelope.As(err) != nil && envelope.As(err).Code == lock.Code {
		t.Errorf("cancelled wait: %v, want context.Canceled", err)
	}
}

func TestWith(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.lock")
	ran := false
	err := lock.With(context.Background(), path, 0, func() error {
		ran = true
		if lock.Free(path) {
			t.Error("free inside With")
		}
		return nil
	})
	if err != nil || !ran || !lock.Free(path) {
		t.Errorf("With: err %v ran %v free %v", err, ran, lock.Free(path))
	}
}
