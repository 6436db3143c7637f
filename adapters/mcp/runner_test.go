package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
)

// TestInProcessAppPerCall: InProcess makes the next call's app ahead of
// it, yet every call runs on an app of its own, made for no other call,
// in turn or at once; an app that cannot be made fails its call alone.
func TestInProcessAppPerCall(t *testing.T) {
	var (
		mu    sync.Mutex
		made  int
		roots = map[*cli.Command]int{} // the apps the calls ran on
		fail  = map[int]bool{3: true}  // which apps newApp fails to make
	)
	newApp := func() (adapters.Framework, error) {
		mu.Lock()
		made++
		n := made
		mu.Unlock()
		if fail[n] {
			return nil, fmt.Errorf("app %d: %w", n, errors.ErrUnsupported)
		}
		root := &cli.Command{Name: "t", Commands: []*cli.Command{{
			Name: "who",
			Action: func(_ context.Context, cmd *cli.Command) error {
				mu.Lock()
				defer mu.Unlock()
				roots[cmd.Root()]++
				return nil
			},
		}}}
		return urfave.Wrap(root)
	}
	r := mcp.InProcess(newApp)
	call := func() error {
		_, exit, err := r.Run(context.Background(), []string{"who"})
		if err == nil && exit != 0 {
			err = fmt.Errorf("exit %d", exit)
		}
		return err
	}

	var errs []error
	for range 5 {
		errs = append(errs, call())
	}
	var wg sync.WaitGroup
	var errsMu sync.Mutex
	for range 8 {
		wg.Go(func() {
			err := call()
			errsMu.Lock()
			errs = append(errs, err)
			errsMu.Unlock()
		})
	}
	wg.Wait()

	var failed int
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, errors.ErrUnsupported) && strings.Contains(err.Error(), "make the app"):
			failed++
		default:
			t.Errorf("call: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if failed != 1 {
		t.Errorf("%d calls failed for want of an app, want 1 (the third)", failed)
	}
	if len(roots) != len(errs)-failed {
		t.Errorf("%d calls that ran ran on %d apps", len(errs)-failed, len(roots))
	}
	for root, n := range roots {
		if n != 1 {
			t.Errorf("app %p ran %d calls", root, n)
		}
	}
	// One spare at most is made ahead of the calls.
	if made > len(errs)+1 {
		t.Errorf("%d apps made for %d calls", made, len(errs))
	}
}
