package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/jot/internal/app"
)

// BenchmarkStart is what one `jot list` over 50 notes costs in-process, for
// a script, run as it was ("bare") and wrapped with Duet: the difference is
// what adopting Duet adds to every start of an unported command (the whole
// process: bench/adopt.sh). Output goes to /dev/null, no terminal; the
// environment is the process's, as Main's is.
func BenchmarkStart(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	notes := filepath.Join(b.TempDir(), "notes")
	f, err := os.Create(notes)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(f, "%d\t0\tbench\tnote number %d\n", i, i)
	}
	f.Close()
	b.Setenv("JOT_FILE", notes)
	args := []string{"jot", "list"}
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			root := app.New()
			root.Writer = null
			if err := root.Run(context.Background(), args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wrapped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			root := app.New()
			root.Writer = null
			if err := urfave.Exec(context.Background(), root, args, adapters.WithStdio(os.Stdin, null, null), adapters.WithTerminal(adapters.Piped)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
