package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/toon/toontest"
	"github.com/duet-cli/duet/tokens/tiktoken"
)

// TestE2EToon asks todo for a 20-item list as --format toon and as --format
// json: the reference TOON implementation decodes the first to the second
// (the whole envelope, but for what differs between two runs: timestamp,
// request id and duration), the list is a
// table, and its data takes fewer o200k tokens than JSON's.
func TestE2EToon(t *testing.T) { onEach(t, testToon) }

func testToon(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	titles := []string{"renew the certificate", "call the bank", "review PR 42", "water the plants, twice", "book flights to Lisbon",
		"update the README", "fix the flaky test", "pay the invoice: €120", "write release notes", "back up the laptop"}
	var items []map[string]any
	for i := range 20 {
		items = append(items, item(fmt.Sprintf("t%d", i+1), titles[i%len(titles)], i%4 == 0))
	}
	sb.seed(t, items...)
	asJSON := sb.run(t, "list", "--status", "all", "--format", "json")
	asTOON := sb.run(t, "list", "--status", "all", "--format", "toon")
	if asJSON.code != 0 || asTOON.code != 0 {
		t.Fatalf("list: exit %d (json), %d (toon)\n%s", asJSON.code, asTOON.code, asTOON.stdout)
	}
	if !strings.Contains(asTOON.stdout, "data[20]{id,title,priority,done,created}:\n") {
		t.Errorf("the list is not one table:\n%s", asTOON.stdout)
	}
	decoded := toontest.Decode(t, asTOON.stdout)[0]
	strip := func(raw []byte) map[string]any {
		var env map[string]any
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		for _, volatile := range []string{"timestamp", "request_id", "duration_ms"} {
			delete(env["meta"].(map[string]any), volatile)
		}
		return env
	}
	if diff := cmp.Diff(strip([]byte(asJSON.stdout)), strip(decoded)); diff != "" {
		t.Errorf("--format toon, decoded by the reference, is not --format json's envelope (-json +toon):\n%s", diff)
	}

	o200k := tiktoken.O200k()
	var env struct{ Data json.RawMessage }
	json.Unmarshal([]byte(asJSON.stdout), &env)
	dataJSON := o200k.Count(string(env.Data))
	dataTOON := o200k.Count(asTOON.stdout[:strings.Index(asTOON.stdout, "\nerror:")])
	whole := [2]int{o200k.Count(asJSON.stdout), o200k.Count(asTOON.stdout)}
	t.Logf("o200k tokens, json → toon: data %d → %d (%.0f%% fewer), whole answer %d → %d (%.0f%% fewer)",
		dataJSON, dataTOON, 100-100*float64(dataTOON)/float64(dataJSON), whole[0], whole[1], 100-100*float64(whole[1])/float64(whole[0]))
	if dataTOON >= dataJSON || whole[1] >= whole[0] {
		t.Errorf("toon takes no fewer tokens than json")
	}
}
