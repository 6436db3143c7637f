package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// interleaved writes n runs whose events interleave as concurrent runs'
// do — each run's update and finalize come after later runs' starts — with
// prompts big enough that the log spans many of backwards' chunks, and a
// torn last line.
func interleaved(t *testing.T, n int) Runs {
	t.Helper()
	rs := Runs{Dir: t.TempDir()}
	f, err := os.Create(filepath.Join(rs.Dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	write := func(ev Event) {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	models := []string{"claude-opus-4-6", "gpt-5.3-codex"}
	for i := 1; i <= n+3; i++ {
		if i <= n {
			write(Event{V: 1, Event: "start", Run: Run{ID: fmt.Sprintf("r%d", i), Model: models[i%2], Status: Running,
				StartedAt: "2026-02-28T10:00:00Z", Prompt: fmt.Sprintf("%0*d", 3000+i%500, i)}})
		}
		if j := i - 2; j >= 1 && j <= n {
			write(Event{V: 1, Event: "update", Run: Run{ID: fmt.Sprintf("r%d", j), HarnessSessionID: fmt.Sprintf("h%d", j)}})
		}
		if j := i - 3; j >= 1 && j <= n && j%7 != 0 { // every seventh still runs
			exit, status := 0, Succeeded
			if j%5 == 0 {
				exit, status = 1, Failed
			}
			write(Event{V: 1, Event: "finalize", Run: Run{ID: fmt.Sprintf("r%d", j), Status: status, ExitCode: &exit, FinishedAt: "2026-02-28T10:05:00Z"}})
		}
	}
	f.WriteString(`{"v":1,"event":"finalize","id":"r3","sta`) // torn by a crash
	f.Close()
	return rs
}

// TestRecentIsListFromTheEnd holds Recent and Find to List: the same runs,
// newest first, folded alike however their events interleave, whatever
// the filter and however many are wanted.
func TestRecentIsListFromTheEnd(t *testing.T) {
	rs := interleaved(t, 400)
	all, skipped, err := rs.List()
	if err != nil || skipped != 1 {
		t.Fatalf("List: %v, %d skipped", err, skipped)
	}
	slices.Reverse(all)
	keeps := map[string]func(*Run) bool{
		"all":     func(*Run) bool { return true },
		"failed":  func(r *Run) bool { return r.Status == Failed },
		"running": func(r *Run) bool { return r.Status == Running },
		"none":    func(*Run) bool { return false },
	}
	for name, keep := range keeps {
		var want []*Run
		for _, r := range all {
			if keep(r) {
				want = append(want, r)
			}
		}
		for _, n := range []int{1, 20, len(want), len(want) + 1} {
			got, complete, _, err := rs.Recent(n, keep)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want[:min(n, len(want))], got); diff != "" {
				t.Errorf("%s, %d wanted (-List +Recent):\n%s", name, n, diff)
			}
			if wantComplete := n > len(want); complete != wantComplete {
				t.Errorf("%s, %d wanted: complete %v", name, n, complete)
			}
		}
	}
	for _, id := range []string{"r400", "r398", "r7", "r1"} {
		got, ok, _, err := rs.Find(id)
		i := slices.IndexFunc(all, func(r *Run) bool { return r.ID == id })
		if err != nil || !ok || cmp.Diff(all[i], got) != "" {
			t.Errorf("Find(%s) = %+v, %v, %v; want %+v", id, got, ok, err, all[i])
		}
	}
	if _, ok, _, _ := rs.Find("r401"); ok {
		t.Error("Find found r401, which never started")
	}
}
