package state_test

import (
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/examples/meridian/internal/state/statetest"
)

// BenchmarkList folds a space of 100,000 runs (300,000 lines, about 75 MB).
func BenchmarkList(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	if err := statetest.WriteRuns(filepath.Join(dir, "runs.jsonl"), n); err != nil {
		b.Fatal(err)
	}
	runs := state.Runs{Dir: dir}
	b.ReportAllocs()
	for b.Loop() {
		got, skipped, err := runs.List()
		if err != nil || len(got) != n || skipped != 0 {
			b.Fatalf("List = %d runs, %d skipped, %v", len(got), skipped, err)
		}
	}
}
