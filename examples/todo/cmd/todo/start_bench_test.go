package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters/urfave"
)

// BenchmarkStartList is what Duet costs one `todo list` in-process: building
// the app, wrapping it, and one invocation over a store of 100 items, with
// the output discarded. bench/run.sh measures whole processes.
func BenchmarkStartList(b *testing.B) {
	file := filepath.Join(b.TempDir(), "todo.json")
	env := []string{"TODO_FILE=" + file}
	for range 100 {
		urfave.Run(context.Background(), newApp(), []string{"add", "benchmark item"}, urfave.WithEnv(env), urfave.WithStdio(strings.NewReader(""), io.Discard, io.Discard))
	}
	b.ReportAllocs()
	for b.Loop() {
		urfave.Run(context.Background(), newApp(), []string{"list"}, urfave.WithEnv(env), urfave.WithStdio(strings.NewReader(""), io.Discard, io.Discard), urfave.WithVersion("1"))
	}
}
