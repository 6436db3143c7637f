package filelock

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestRetryBacksOff: a waiter tries the lock less and less often, so a long
// wait costs few tries, yet notices a release within a tenth of its wait.
func TestRetryBacksOff(t *testing.T) {
	for _, tc := range []struct {
		held     time.Duration // when the holder lets go
		maxTries int
	}{
		{held: 0, maxTries: 1},
		{held: 20 * time.Millisecond, maxTries: 5},
		{held: 2 * time.Second, maxTries: 60}, // a fixed 5 ms retry tried 400 times
		{held: 10 * time.Minute, maxTries: 700},
	} {
		t.Run(tc.held.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start, tries := time.Now(), 0
				err := Retry(t.Context(), func() (bool, error) {
					tries++
					return time.Since(start) >= tc.held, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if tries > tc.maxTries {
					t.Errorf("%d tries, want at most %d", tries, tc.maxTries)
				}
				if late := time.Since(start) - tc.held; late > tc.held/10+minRetry {
					t.Errorf("took the lock %s after its release", late)
				}
			})
		})
	}
}

// TestRetryEnds: a wait ends with its context, and with the first error of
// a try.
func TestRetryEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		err := Retry(ctx, func() (bool, error) { return false, nil })
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("Retry = %v after %s, want the deadline after 1s", err, time.Since(start))
		}
		broken := errors.New("bad descriptor")
		if err := Retry(t.Context(), func() (bool, error) { return false, broken }); err != broken {
			t.Errorf("Retry = %v, want the try's error", err)
		}
	})
}
