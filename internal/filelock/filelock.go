// Package filelock runs code under an exclusive flock(2) on a lock file, the
// lock every writer of Duet's state files takes. The lock belongs to the open
// file, so a process that dies releases it, and waiting for it ends with ctx.
package filelock

import (
	"context"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// retry is how often a waiting process tries the lock again.
const retry = 2 * time.Millisecond

// With runs fn holding an exclusive lock on path (created with mode 0600 if
// need be). It waits for another holder until ctx is done.
func With(ctx context.Context, path string, fn func() error) error {
	lock := flock.New(path, flock.SetPermissions(0o600))
	ok, err := lock.TryLockContext(ctx, retry)
	if err == nil && !ok {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lock.Unlock()
	return fn()
}
