// Package filelock runs code under an exclusive flock(2) on a lock file, the
// lock every writer of Duet's state files takes. The lock belongs to the open
// file, so a process that dies releases it, and waiting for it ends with ctx.
// A waiter backs off (Retry), here and in package lock, which waits the
// same way for the locks commands take.
package filelock

import (
	"context"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// With runs fn holding an exclusive lock on path (created with mode 0600 if
// need be). It waits for another holder until ctx is done.
func With(ctx context.Context, path string, fn func() error) error {
	lock := flock.New(path, flock.SetPermissions(0o600))
	if err := Retry(ctx, lock.TryLock); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lock.Unlock()
	return fn()
}

// A waiting process tries the lock again after a tenth of the time it has
// waited so far, within these bounds: it notices a release within about 10%
// of its wait, and a wait of minutes costs a try a second, not 200 (a fixed
// 5 ms retry made a two-second wait burn 150 ms of CPU).
const (
	minRetry = 5 * time.Millisecond
	maxRetry = time.Second
)

// nextTry is how long to sleep before the next try, after waiting waited.
func nextTry(waited time.Duration) time.Duration {
	return min(max(waited/10, minRetry), maxRetry)
}

// Retry calls try until it takes the lock, fails, or ctx ends (ctx's error),
// sleeping [nextTry] between tries.
func Retry(ctx context.Context, try func() (bool, error)) error {
	start := time.Now()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		ok, err := try()
		if ok || err != nil {
			return err
		}
		t.Reset(nextTry(time.Since(start)))
	}
}
