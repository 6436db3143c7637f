package state

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestTallyAsFolded holds Tally to folding the log whole: the log is written
// in random pieces, cut anywhere (mid-line too, as a writer is seen at
// work), and after each piece Tally's groups and skipped lines must be
// those of the whole lines folded from the start, one more skipped for a
// line not yet ended. The random logs have every oddity TestFoldInParts
// has, events for ended runs among them, which send Tally back to the
// start; the orderly ones (runs start, update and end, interleaved) must
// be folded on from the cache every time.
func TestTallyAsFolded(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 11))
		log, orderly := randomLog(rng), false
		if seed%2 == 0 {
			log, orderly = orderlyLog(rng), true
		}
		rs := Runs{Dir: t.TempDir()}
		at := 0
		for at < len(log) {
			next := min(len(log), at+1+rng.IntN(len(log)/4+1))
			appendTo(t, rs.LogPath(), log[at:next])
			at = next
			whole := bytes.LastIndexByte(log[:at], '\n') + 1
			wantGroups, wantSkipped := foldedGroups(t, log[:whole])
			if whole < at {
				wantSkipped++
			}
			if orderly && whole > 0 {
				if _, fresh := rs.readTally(bytes.NewReader(log), int64(whole)); !fresh && fileExists(rs.TallyPath()) {
					t.Fatalf("seed %d at %d: the cache does not describe the log before Tally", seed, at)
				}
			}
			groups, skipped, _, err := rs.Tally(true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(wantGroups, sortGroups(groups), cmpopts.EquateApprox(0, 1e-9)); diff != "" || skipped != wantSkipped {
				t.Fatalf("seed %d at %d of %d: skipped %d, want %d; groups (-folded +tally):\n%s\nlog:\n%s", seed, at, len(log), skipped, wantSkipped, diff, log[:at])
			}
		}
	}
}

// TestTallyCacheDistrusted: a cache that does not describe the log — of
// another log, of a longer one, damaged, of another version — is not used.
func TestTallyCacheDistrusted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	a, b := orderlyLog(rng), orderlyLog(rng)
	for _, tc := range []struct {
		name   string
		damage func(rs Runs)
	}{
		{"log replaced", func(rs Runs) { write(t, rs.LogPath(), b) }},
		{"log edited in place", func(rs Runs) {
			edited := bytes.Clone(a)
			i := bytes.Index(edited[len(a)/3:], []byte(`"model":"m`)) + len(a)/3 + len(`"model":"m`)
			edited[i] = "120"[bytes.IndexByte([]byte("012"), edited[i])] // the same length, another model
			write(t, rs.LogPath(), edited)
		}},
		{"log truncated", func(rs Runs) { write(t, rs.LogPath(), a[:bytes.IndexByte(a, '\n')+1]) }},
		{"cache garbage", func(rs Runs) { write(t, rs.TallyPath(), []byte(`{"v":1,"offset":`)) }},
		{"cache of another version", func(rs Runs) {
			c, _ := os.ReadFile(rs.TallyPath())
			write(t, rs.TallyPath(), bytes.Replace(c, []byte(`{"v":1,`), []byte(`{"v":2,`), 1))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := Runs{Dir: t.TempDir()}
			write(t, rs.LogPath(), a)
			if _, _, _, err := rs.Tally(true); err != nil {
				t.Fatal(err)
			}
			tc.damage(rs)
			now, _ := os.ReadFile(rs.LogPath())
			want, wantSkipped := foldedGroups(t, now)
			got, skipped, _, err := rs.Tally(true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(want, sortGroups(got), cmpopts.EquateApprox(0, 1e-9)); diff != "" || skipped != wantSkipped {
				t.Errorf("skipped %d, want %d; groups (-folded +tally):\n%s", skipped, wantSkipped, diff)
			}
		})
	}
}

// orderlyLog is a log as Meridian writes it: runs r1, r2 ... start in
// order, are updated and end, several at once; a few never end.
func orderlyLog(rng *rand.Rand) []byte {
	var b bytes.Buffer
	var going []string
	next := 1
	line := func(ev Event) {
		l, _ := json.Marshal(ev)
		b.Write(append(l, '\n'))
	}
	for range 120 {
		switch n := rng.IntN(10); {
		case n < 4 || len(going) == 0:
			id := fmt.Sprintf("r%d", next)
			next++
			going = append(going, id)
			line(Event{V: 1, Event: "start", Run: Run{ID: id, Status: Running, Model: fmt.Sprint("m", rng.IntN(3)),
				Agent: fmt.Sprint("a", rng.IntN(2)), SessionID: fmt.Sprint("c", rng.IntN(2)), Prompt: "do it"}})
		case n < 6:
			line(Event{V: 1, Event: "update", Run: Run{ID: going[rng.IntN(len(going))], HarnessSessionID: "h"}})
		default:
			i := rng.IntN(len(going))
			code, cost, dur := rng.IntN(2), float64(rng.IntN(90))/1000, float64(rng.IntN(300))/10
			in := int64(rng.IntN(5000))
			ev := Event{V: 1, Event: "finalize", Run: Run{ID: going[i], Status: Succeeded, ExitCode: &code, TotalCostUSD: &cost, DurationSecs: &dur, InputTokens: &in}}
			if code != 0 {
				ev.Status = []string{Failed, Cancelled}[rng.IntN(2)]
			}
			line(ev)
			going = slices.Delete(going, i, i+1)
		}
	}
	return b.Bytes()
}

// foldedGroups is what Tally must answer for log: its runs folded whole,
// summed by status, model, agent and chat.
func foldedGroups(t *testing.T, log []byte) ([]Group, int) {
	t.Helper()
	runs, skipped, err := foldFile(bytes.NewReader(log), int64(len(log)), 1)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[groupKey]*Group{}
	for _, r := range runs {
		k := groupKey{r.Status, r.Model, r.Agent, r.SessionID}
		if sums[k] == nil {
			sums[k] = &Group{Status: r.Status, Model: r.Model, Agent: r.Agent, SessionID: r.SessionID}
		}
		g := sums[k]
		g.Runs++
		g.DurationSecs += deref(r.DurationSecs)
		g.TotalCostUSD += deref(r.TotalCostUSD)
		g.InputTokens += deref(r.InputTokens)
		g.OutputTokens += deref(r.OutputTokens)
		g.CachedTokens += deref(r.CachedTokens)
	}
	var out []Group
	for _, g := range sums {
		out = append(out, *g)
	}
	return sortGroups(out), skipped
}

func sortGroups(gs []Group) []Group {
	gs = slices.Clone(gs)
	slices.SortFunc(gs, func(a, b Group) int {
		return cmp.Or(strings.Compare(a.Status, b.Status), strings.Compare(a.Model, b.Model),
			strings.Compare(a.Agent, b.Agent), strings.Compare(a.SessionID, b.SessionID))
	})
	if len(gs) == 0 {
		return nil
	}
	return gs
}

func appendTo(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Clean(path), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
