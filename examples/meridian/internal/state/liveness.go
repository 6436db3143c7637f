package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A liveness lock says that a process is still at work: a chat's harness
// holds sessions/<chat>.lock, a run's supervisor runs/<run>/run.lock, each
// with an exclusive flock(2) for as long as it lives. The kernel drops the
// lock when the process dies, however it dies, so a lock nobody holds is a
// process that is gone — no pid files, no heartbeats, no clocks.
//
// The lock belongs to the open file description, not to the process: a
// [Hold]'s file handed to a child (exec.Cmd.ExtraFiles) keeps the lock held
// in the child after the parent lets its own copy go.

// Hold is a held liveness lock.
type Hold struct{ f *os.File }

// ErrHeld is returned by [Acquire] when another process holds the lock.
var ErrHeld = errors.New("held by another process")

// Acquire takes the liveness lock at path (created if need be) without
// waiting: a lock already held is [ErrHeld].
func Acquire(path string) (*Hold, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			err = ErrHeld
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Hold{f: f}, nil
}

// File is the open lock file, to hand to a child process that takes over
// the lock. Closing it in the parent, with Release, leaves the child holding it.
func (h *Hold) File() *os.File { return h.f }

// Release lets go of this process's hold on the lock. Releasing again does
// nothing.
func (h *Hold) Release() error {
	if h.f == nil {
		return nil
	}
	err := h.f.Close()
	h.f = nil
	return err
}

// Alive reports whether a process holds the liveness lock at path. A
// missing lock file holds nothing. The probe takes a shared lock, which never
// conflicts with another probe, only with the holder.
func Alive(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	switch err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		return false, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, nil
	default:
		return false, fmt.Errorf("probe %s: %w", path, err)
	}
}

// AwaitRelease blocks until nobody holds the liveness lock at path, or ctx
// ends. It sleeps in flock(2) — no polling: the kernel wakes it when the
// holder exits. A blocked flock cannot be interrupted, so when ctx ends first
// the waiting goroutine stays parked until the holder lets go, then exits.
func AwaitRelease(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		defer f.Close()
		done <- flock(f, syscall.LOCK_SH)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func flock(f *os.File, how int) error {
	for {
		//duetvet:allow untracked -- the liveness lock's own primitive: the lock is released with the process that holds it
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
