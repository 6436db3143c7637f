package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFoldInParts holds the parallel fold to the sequential one: on logs
// whose runs interleave across part boundaries, with events before their
// start, duplicate starts, torn and blank lines and ids that are not r<N>,
// every way of cutting the log gives the same runs and the same count of
// skipped lines.
func TestFoldInParts(t *testing.T) {
	for seed := range uint64(40) {
		log := randomLog(rand.New(rand.NewPCG(seed, 7)))
		want, wantSkipped, err := foldFile(bytes.NewReader(log), int64(len(log)), 1)
		if err != nil {
			t.Fatal(err)
		}
		for n := 2; n <= 9; n++ {
			got, skipped, err := foldFile(bytes.NewReader(log), int64(len(log)), n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" || skipped != wantSkipped {
				t.Fatalf("seed %d, %d parts: skipped %d, want %d; runs (-sequential +parts):\n%s\nlog:\n%s", seed, n, skipped, wantSkipped, diff, log)
			}
		}
	}
}

func randomLog(rng *rand.Rand) []byte {
	var b bytes.Buffer
	ids := []string{"x1", "r0"}
	for i := 1; i <= 12; i++ {
		ids = append(ids, fmt.Sprintf("r%d", i))
	}
	for range 80 {
		id := ids[rng.IntN(len(ids))]
		n := rng.IntN(100)
		ev := Event{V: 1, Run: Run{ID: id}}
		switch {
		case n < 25:
			ev.Event, ev.Status, ev.Model, ev.Prompt = "start", Running, fmt.Sprint("m", rng.IntN(3)), "line one\nline two"
			ev.Skills = []string{fmt.Sprint("s", rng.IntN(2))}
		case n < 50:
			ev.Event, ev.HarnessSessionID = "update", fmt.Sprint("sess-", rng.IntN(5))
		case n < 80:
			code, cost := rng.IntN(2), float64(rng.IntN(9))/100
			ev.Event, ev.Status, ev.ExitCode, ev.TotalCostUSD = "finalize", Succeeded, &code, &cost
			if code != 0 {
				ev.Status, ev.Error = Failed, "boom"
			}
		case n < 88:
			b.WriteString(`{"v":1,"event":"finalize","id":"` + id + `","sta` + "\n") // torn
			continue
		case n < 92:
			b.WriteString("\n")
			continue
		default:
			ev.Event, ev.Agent = "update", "coder"
		}
		line, _ := json.Marshal(ev)
		b.Write(append(line, '\n'))
	}
	return b.Bytes()
}

func TestSplit(t *testing.T) {
	log := []byte("aaaa\nbb\nccccccc\nd\n")
	for n := 1; n <= 30; n++ {
		parts, err := split(bytes.NewReader(log), int64(len(log)), n)
		if err != nil {
			t.Fatal(err)
		}
		if parts[0] != 0 || parts[len(parts)-1] != int64(len(log)) {
			t.Fatalf("%d parts: %v", n, parts)
		}
		for i := 1; i < len(parts); i++ {
			if parts[i] <= parts[i-1] || parts[i] < int64(len(log)) && log[parts[i]-1] != '\n' {
				t.Fatalf("%d parts: %v does not cut at line starts", n, parts)
			}
		}
	}
}
