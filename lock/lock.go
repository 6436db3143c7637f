// Package lock takes the advisory file locks a command holds while it
// changes shared state, with a bounded wait: a command that cannot get its
// lock in time answers LOCK_HELD — exit 4, retryable, with retry_after_ms
// and the holder's process id and age — instead of hanging.
//
// A lock is an flock(2) on a lock file, so it belongs to the open file: it
// is released by [Held.Release], by the invocation's cleanup when the
// command ends, times out or is cancelled by a signal (Acquire registers it
// with [envelope.Output.OnCleanup]), and by the system when the process
// dies.
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/filelock"
)

// DefaultWait is how long [Acquire] waits for a lock when given no wait.
const DefaultWait = 10 * time.Second

// Code is the error code of a lock that was not acquired in time.
const Code = "LOCK_HELD"

// Held is a lock this process holds.
type Held struct {
	path string
	f    *flock.Flock
	once sync.Once
	err  error
}

// Acquire takes an exclusive lock on path, creating the file (mode 0600) if
// need be. It waits for another holder at most wait (DefaultWait when 0),
// and never past ctx's deadline; then it fails with an *envelope.Error
// whose code is LOCK_HELD. When ctx is cancelled first, it returns ctx's
// error. The lock is released with the invocation ctx belongs to (see the
// package doc), or earlier with Release.
//
// The holder writes its process id and the time it took the lock into the
// file, so that a waiter can say who holds it and since when.
func Acquire(ctx context.Context, path string, wait time.Duration) (*Held, error) {
	if wait <= 0 {
		wait = DefaultWait
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	f := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	start := time.Now()
	err := filelock.Retry(wctx, f.TryLock) // backing off, as every wait for a state file does
	switch {
	case err == nil:
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("lock %s: %w", path, ctx.Err()) // cancelled: not a lock problem
	case errors.Is(err, context.DeadlineExceeded):
		return nil, heldError(path, time.Since(start))
	default:
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	h := &Held{path: path, f: f}
	h.stamp()
	envelope.From(ctx).OnCleanup(func(context.Context) error { return h.Release() })
	return h, nil
}

// With runs fn holding the lock on path (see [Acquire]).
func With(ctx context.Context, path string, wait time.Duration, fn func() error) error {
	h, err := Acquire(ctx, path, wait)
	if err != nil {
		return err
	}
	defer h.Release()
	return fn()
}

// Path is the lock file.
func (h *Held) Path() string { return h.path }

// Release releases the lock. Calling it again does nothing and returns what
// the first call returned.
func (h *Held) Release() error {
	h.once.Do(func() {
		os.WriteFile(h.path, nil, 0o600) // no stale holder for the next waiter to name
		h.err = h.f.Unlock()
	})
	return h.err
}

// stamp writes the holder's process id and the time into the lock file.
// The lock is advisory: writing through a second descriptor is safe.
func (h *Held) stamp() {
	line := strconv.Itoa(os.Getpid()) + " " + strconv.FormatInt(time.Now().UnixMilli(), 10) + "\n"
	os.WriteFile(h.path, []byte(line), 0o600)
}

// Holder is who holds a lock, as its file says.
type Holder struct {
	PID   int           // 0 when unknown
	Since time.Time     // zero when unknown
	Age   time.Duration // how long it has held the lock, when known
}

// HolderOf reads who holds the lock on path, as far as its file says.
func HolderOf(path string) Holder {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Holder{}
	}
	fields := strings.Fields(string(raw))
	var h Holder
	if len(fields) > 0 {
		h.PID, _ = strconv.Atoi(fields[0])
	}
	if len(fields) > 1 {
		if ms, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
			h.Since = time.UnixMilli(ms)
			h.Age = max(time.Since(h.Since), 0)
		}
	}
	return h
}

// Free reports whether nobody holds the lock on path now; it takes and
// releases the lock to find out, without waiting.
func Free(path string) bool {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return true
	}
	f := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := f.TryLock()
	if ok {
		f.Unlock()
	}
	return ok && err == nil
}

// heldError is the LOCK_HELD answer after waiting waited: retry after
// half as long again, within 100 ms and 5 s.
func heldError(path string, waited time.Duration) *envelope.Error {
	h := HolderOf(path)
	who := "another process"
	if h.PID > 0 {
		who = "PID " + strconv.Itoa(h.PID)
	}
	if !h.Since.IsZero() {
		who += " (age: " + h.Age.Round(time.Second).String() + ")"
	}
	after := min(max(waited/2, 100*time.Millisecond), 5*time.Second)
	detail := fmt.Sprintf("lock_file=%s holder_pid=%d holder_age_ms=%d", path, h.PID, h.Age.Milliseconds())
	return envelope.Errorf(exitcode.Precondition, Code, "lock held by %s — acquisition timed out after %s", who, waited.Round(time.Millisecond)).
		WithRetry(after, envelope.RetryLinear).
		WithDetail(detail).
		WithSuggestion("retry after retry_after_ms, when the holder has finished; nothing was changed")
}
