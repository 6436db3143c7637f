package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters/urfave"
)

func BenchmarkStartList(b *testing.B) {
	file := filepath.Join(b.TempDir(), "todo.json")
	env := []string{"TODO_FILE=" + file}
	for range 100 {
		urfave.Run(context.Background(), newApp(), []string{"todo", "add", "benchmark item"}, urfave.WithEnv(env), urfave.WithStdio(strings.NewReader(""), io.Discard, io.Discard))
	}
	b.ReportAllocs()
	for b.Loop() {
		urfave.Run(context.Background(), newApp(), []string{"todo", "list"}, urfave.WithEnv(env), urfave.WithStdio(strings.NewReader(""), io.Discard, io.Discard), urfave.WithVersion("1"))
	}
}
