package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
)

// BenchmarkStartList is what one `todo list` costs in-process: building the
// app, wrapping it, and one invocation over a store of 100 items, with the
// output discarded. bench/run.sh measures whole processes. Every run must
// succeed: an error path is cheaper and would be timed instead.
//
// The sub-benchmarks differ only in the tool's profiles: none saved (the file
// is looked for and not found), and a default profile that supplies --status.
// Their difference is what the profile lookup adds to a start.
func BenchmarkStartList(b *testing.B) {
	dir := b.TempDir()
	env := []string{"TODO_FILE=" + filepath.Join(dir, "todo.json"), "TODO_CONFIG_DIR=" + filepath.Join(dir, "config")}
	run := func(b *testing.B, args ...string) {
		if code := urfave.Run(context.Background(), newApp(), args,
			adapters.WithEnv(env), adapters.WithStdio(strings.NewReader(""), io.Discard, io.Discard)); code != 0 {
			b.Fatalf("todo %s: exit %d", strings.Join(args, " "), code)
		}
	}
	for range 100 {
		run(b, "add", "benchmark item")
	}
	b.Run("no profiles", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run(b, "list")
		}
	})
	b.Run("default profile", func(b *testing.B) {
		run(b, "profile", "save", "work", "--status", "all")
		run(b, "profile", "use", "work")
		b.Cleanup(func() { os.RemoveAll(filepath.Join(dir, "config")) })
		b.ReportAllocs()
		for b.Loop() {
			run(b, "list")
		}
	})
}

// BenchmarkWrap is what wrapping todo costs: reading its tree, adding
// Duet's built-ins and checking every declaration — what every start pays
// before the command line is read, and what an in-process MCP call pays
// for its fresh app.
func BenchmarkWrap(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := urfave.Wrap(newApp(), wrapping()...); err != nil {
			b.Fatal(err)
		}
	}
}
