package state_test

import (
	"os"
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

// BenchmarkTally sums a space of 100,000 runs: cold, from the log alone,
// and warm, from the cache with the last run's three events after it.
func BenchmarkTally(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	log := filepath.Join(dir, "runs.jsonl")
	if err := statetest.WriteRuns(log, n); err != nil {
		b.Fatal(err)
	}
	runs := state.Runs{Dir: dir}
	check := func() {
		groups, skipped, _, err := runs.Tally(true)
		total := 0
		for _, g := range groups {
			total += g.Runs
		}
		if err != nil || total != n || skipped != 0 {
			b.Fatalf("Tally = %d runs, %d skipped, %v", total, skipped, err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			os.Remove(filepath.Join(dir, "runs.tally.json"))
			check()
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check()
		}
	})
}
