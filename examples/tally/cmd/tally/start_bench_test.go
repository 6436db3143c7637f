package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/examples/tally/internal/app"
)

// BenchmarkStart is what one `tally --help` or `tally top` costs in-process, for a script,
// built and run as it was ("bare") and wrapped with Duet: the difference is
// what adopting Duet adds to every start of an unported command (the whole
// process: bench/adopt.sh). Output goes to /dev/null, no terminal; the
// environment is the process's, as Main's is.
func BenchmarkStart(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	file := filepath.Join(b.TempDir(), "t.txt")
	if err := os.WriteFile(file, []byte("one two two\nthree Two\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{{"--help"}, {"top", file}} {
		name := strings.Join(args, " ")
		b.Run("bare/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				root := app.New()
				root.SetOut(io.Discard)
				root.SetArgs(args)
				if err := root.Execute(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("wrapped/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				root := app.New()
				root.SetOut(io.Discard)
				if code := duetcobra.Run(context.Background(), root, args, adapters.WithStdio(strings.NewReader(""), null, io.Discard),
					adapters.WithTerminal(adapters.Piped)); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
