package walk_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/walk"
)

// A tree where b links back to a: the walk stops at the link, and the
// error says where, and how much was done.
func ExampleWalk() {
	root, _ := os.MkdirTemp("", "walk-example-")
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "notes.txt"), nil, 0o644)
	os.Symlink("..", filepath.Join(root, "a", "b", "back"))

	_, err := walk.Walk(context.Background(), filepath.Join(root, "a"), func(e walk.Entry) error {
		rel, _ := filepath.Rel(root, e.Path)
		fmt.Println("visit", rel)
		return nil
	})
	var e *envelope.Error
	if errors.As(err, &e) {
		rel := func(p string) string { r, _ := filepath.Rel(root, p); return r }
		fmt.Println(e.Code, "exit", int(e.Exit), rel(e.Path), "->", rel(e.LoopTarget), "after", *e.CompletedCount)
	}

	// Without following symlinks there is no loop.
	ctx := walk.WithOptions(context.Background(), walk.Options{NoFollow: true})
	stats, err := walk.Walk(ctx, filepath.Join(root, "a"), func(walk.Entry) error { return nil })
	fmt.Println(stats.Visited, "visited,", stats.SymlinksSkipped, "symlink skipped, error:", err)
	// Output:
	// visit a
	// visit a/b
	// SYMLINK_LOOP exit 4 a/b/back -> a after 2
	// 4 visited, 1 symlink skipped, error: <nil>
}
