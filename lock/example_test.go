package lock_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/lock"
)

// A command that cannot get its lock in time answers LOCK_HELD, which an
// agent retries after retry_after_ms.
func ExampleAcquire() {
	dir, _ := os.MkdirTemp("", "lock-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state.lock")

	held, err := lock.Acquire(context.Background(), path, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer held.Release()

	_, err = lock.Acquire(context.Background(), path, 10*time.Millisecond)
	e := envelope.As(err)
	fmt.Println(e.Code, int(e.Exit), e.Retryable, e.RetryAfterMS)
	// Output: LOCK_HELD 4 true 100
}
