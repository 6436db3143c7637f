package filelock_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/duet-cli/duet/internal/filelock"
)

func TestWith(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	ran := false
	if err := filelock.With(context.Background(), path, func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("With = %v, ran %v", err, ran)
	}
	boom := errors.New("boom")
	if err := filelock.With(context.Background(), path, func() error { return boom }); !errors.Is(err, boom) {
		t.Errorf("With = %v, want fn's error", err)
	}
	// While held, a second holder waits until its context ends.
	err := filelock.With(context.Background(), path, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		return filelock.With(ctx, path, func() error { t.Error("ran while the lock was held"); return nil })
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("nested With = %v, want the deadline", err)
	}
}
