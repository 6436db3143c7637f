// Package untracked is what duetvet's untracked analyzer is tested on: each
// line it must report carries a want comment.
package untracked

import (
	"context"
	"os"
	"syscall"

	"github.com/duet-cli/duet/envelope"
)

func leak(dir string) {
	_, _ = os.MkdirTemp(dir, "x")     // want `os.MkdirTemp takes a resource nothing releases`
	f, _ := os.CreateTemp(dir, "y")   // want `os.CreateTemp takes a resource nothing releases`
	_ = syscall.Flock(int(f.Fd()), 2) // want `syscall.Flock takes a resource nothing releases`
}

func deferred(dir string) error {
	d, err := os.MkdirTemp(dir, "x")
	if err != nil {
		return err
	}
	defer os.RemoveAll(d)
	return nil
}

func hooked(ctx context.Context, dir string) {
	d, _ := os.MkdirTemp(dir, "x")
	envelope.From(ctx).OnCleanup(func(context.Context) error { return os.RemoveAll(d) })
}

func allowed(dir string) {
	//duetvet:allow untracked -- renamed into place at once
	_, _ = os.CreateTemp(dir, "z")
}
