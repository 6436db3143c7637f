package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters/urfave"
)

// BenchmarkStartList is what one `todo list` costs in-process: building the
// app, wrapping it, and one invocation over a store of 100 items, with the
// output discarded. bench/run.sh measures whole processes. Every run must
// succeed: an error path is cheaper and would be timed instead.
func BenchmarkStartList(b *testing.B) {
	env := []string{"TODO_FILE=" + filepath.Join(b.TempDir(), "todo.json")}
	run := func(args ...string) {
		if code := urfave.Run(context.Background(), newApp(), args,
			urfave.WithEnv(env), urfave.WithStdio(strings.NewReader(""), io.Discard, io.Discard)); code != 0 {
			b.Fatalf("todo %s: exit %d", strings.Join(args, " "), code)
		}
	}
	for range 100 {
		run("add", "benchmark item")
	}
	b.ReportAllocs()
	for b.Loop() {
		run("list")
	}
}
