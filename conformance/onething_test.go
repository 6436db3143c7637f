//go:build unix

package conformance_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/conformance"
)

// TestOneBehaviourApart checks copies of onething, a CLI not built on Duet,
// each breaking one thing (see its variants), and holds duet-check's
// verdicts on each to the baseline's: they differ exactly in the
// requirements that thing breaks, and nowhere else (issue 35: every CLI got
// the same verdicts whatever it did).
func TestOneBehaviourApart(t *testing.T) {
	bin := buildAll(t, "./testdata/fixtures/onething")["onething"]
	breaks := map[string][]string{
		"baseline":    nil,
		"pager":       {"F-010"},
		"prompt":      {"F-009"},
		"browser":     {"F-057"},
		"updatecheck": {"F-029"},
		"telemetry":   {"F-029"},
		"apicall":     nil,                // an API call on a read command is the command's work
		"textonly":    {"F-003", "F-004"}, // text on a pipe is neither JSON nor an envelope
		"helpstdout":  {"F-048"},
		"badflagok":   {"F-002", "F-015"}, // never given a made-up flag it would take: not judged
		"stdinhang":   {"F-009"},
		"crash":       {"F-003", "F-004"}, // status ends in a crash on stderr, no answer on stdout
		"nocolor":     {"F-008"},
	}
	dir := t.TempDir()
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]map[string]conformance.Status{}
	evidence := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Every copy is written before any check starts: a copy still open for
	// writing when another check forks would be held open in the child
	// until it execs, and a run of that copy fail with ETXTBSY.
	for name := range breaks {
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name := range breaks {
		path := filepath.Join(dir, name)
		wg.Go(func() {
			report, err := conformance.Check(context.Background(), conformance.Target{Path: path}, conformance.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			v := map[string]conformance.Status{}
			for _, r := range report.Results {
				v[r.ID] = r.Status
			}
			mu.Lock()
			verdicts[name], evidence[name] = v, describeReport(report)
			mu.Unlock()
		})
	}
	wg.Wait()
	base := verdicts["baseline"]
	if base == nil {
		t.Fatal("no report of the baseline")
	}
	for _, name := range slices.Sorted(maps.Keys(breaks)) {
		var differ []string
		for id, status := range verdicts[name] {
			if base[id] != status {
				differ = append(differ, id)
			}
		}
		slices.Sort(differ)
		if diff := cmp.Diff(breaks[name], differ); diff != "" {
			var moved []string
			for _, id := range differ {
				moved = append(moved, id+": "+string(base[id])+" → "+string(verdicts[name][id]))
			}
			t.Errorf("%s: requirements whose verdict differs from the baseline's (-want +got):\n%s%v\n%s", name, diff, moved, evidence[name])
		}
	}
}

// describeReport is every non-pass of r, with its evidence.
func describeReport(r *conformance.Report) string {
	var b []byte
	for _, res := range r.Results {
		if res.Status == conformance.Fail {
			for _, f := range res.Failures {
				b = append(b, "  "+res.ID+" "+f.Probe+": "+f.Command+": "+f.Evidence+"\n"...)
			}
		}
	}
	return string(b)
}
