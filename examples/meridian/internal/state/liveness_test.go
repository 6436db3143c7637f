package state_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

func TestLiveness(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	if alive, err := state.Alive(path); err != nil || alive {
		t.Fatalf("Alive(missing) = %v, %v", alive, err)
	}
	hold, err := state.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := state.Acquire(path); !errors.Is(err, state.ErrHeld) {
		t.Errorf("second Acquire = %v, want ErrHeld", err)
	}
	// Probes never conflict with each other, only with the holder.
	for range 3 {
		if alive, err := state.Alive(path); err != nil || !alive {
			t.Fatalf("Alive(held) = %v, %v", alive, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := state.AwaitRelease(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AwaitRelease(held) = %v, want the deadline", err)
	}
	// Held, AwaitRelease waits (above); whether it is waiting yet or not
	// when the hold ends, it returns once it has.
	released := make(chan error, 1)
	go func() { released <- state.AwaitRelease(context.Background(), path) }()
	hold.Release()
	select {
	case err := <-released:
		if err != nil {
			t.Errorf("AwaitRelease = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("AwaitRelease did not return after the release")
	}
	if alive, _ := state.Alive(path); alive {
		t.Error("Alive after release = true")
	}
}

// TestLivenessHandedToChild: a child given the hold's file keeps the lock
// after the parent lets go, and its death releases it.
func TestLivenessHandedToChild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	hold, err := state.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("sleep", "30")
	child.ExtraFiles = []*os.File{hold.File()}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	hold.Release()
	if alive, _ := state.Alive(path); !alive {
		t.Error("the child's inherited lock is not held")
	}
	child.Process.Kill()
	child.Wait()
	if alive, _ := state.Alive(path); alive {
		t.Error("the lock is still held after the child died")
	}
}
