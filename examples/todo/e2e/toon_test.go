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
// request id and duration). A to-do's tags are an array, always present
// ([] when it has none: F-074), so TOON writes the whole list as a list of
// objects, as the reference does, and it costs more tokens than JSON
// (logged: TOON's tables hold primitives only). The flat columns an agent
// picks with --fields are one table, and take fewer o200k tokens than the
// same answer in JSON.
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
	tokens := func(what string, asJSON, asTOON result) (data, whole [2]int) {
		var env struct{ Data json.RawMessage }
		if err := json.Unmarshal([]byte(asJSON.stdout), &env); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		data = [2]int{o200k.Count(string(env.Data)), o200k.Count(asTOON.stdout[:strings.Index(asTOON.stdout, "\nerror:")])}
		whole = [2]int{o200k.Count(asJSON.stdout), o200k.Count(asTOON.stdout)}
		t.Logf("%s, o200k tokens, json → toon: data %d → %d (%+.0f%%), whole answer %d → %d (%+.0f%%)", what,
			data[0], data[1], 100*float64(data[1])/float64(data[0])-100, whole[0], whole[1], 100*float64(whole[1])/float64(whole[0])-100)
		return data, whole
	}
	tokens("the whole list", asJSON, asTOON)

	columns := []string{"list", "--status", "all", "--fields", "id,title,priority,done,created"}
	flatJSON := sb.run(t, append(columns, "--format", "json")...)
	flatTOON := sb.run(t, append(columns, "--format", "toon")...)
	if flatJSON.code != 0 || flatTOON.code != 0 {
		t.Fatalf("list --fields: exit %d (json), %d (toon)\n%s", flatJSON.code, flatTOON.code, flatTOON.stdout)
	}
	if !strings.Contains(flatTOON.stdout, "data[20]{id,title,priority,done,created}:\n") {
		t.Errorf("the list of flat columns is not one table:\n%s", flatTOON.stdout)
	}
	if diff := cmp.Diff(strip([]byte(flatJSON.stdout)), strip(toontest.Decode(t, flatTOON.stdout)[0])); diff != "" {
		t.Errorf("--fields --format toon, decoded by the reference, is not --format json's envelope (-json +toon):\n%s", diff)
	}
	if data, whole := tokens("its flat columns", flatJSON, flatTOON); data[1] >= data[0] || whole[1] >= whole[0] {
		t.Errorf("a table in toon takes no fewer tokens than json")
	}
}
