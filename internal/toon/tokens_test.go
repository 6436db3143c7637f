package toon

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

// listFormCost is why records that TOON writes in list form cost more
// o200k tokens than compact JSON. In list form every key is written again,
// on a line of its own, as in JSON; but o200k spends a token on each
// newline and one on each run of indentation, while JSON's quotes merge
// with its punctuation into single tokens (`","`, `":"`, `":["`), so a
// field costs about one token more in list form than in compact JSON.
// Only the tabular forms, which write each key once, come out ahead.
const listFormCost = "list form costs about a token more per field than compact JSON"

// costlier lists the list answers of testdata/lists whose TOON costs more
// o200k tokens than their compact JSON, with why. Neither v3 nor v4 has a
// tabular form for these records: a table cell holds a primitive, and a
// nested field group folds a nested object but not an array.
var costlier = map[string]string{
	"meridian-models.json":         "each model has aliases, an array of strings, so the records cannot be a table: " + listFormCost,
	"meridian-models-builtin.json": "each model has aliases, an array of strings, so the records cannot be a table: " + listFormCost,
	"todo-list.json":               "each to-do has tags, an array of strings, so the records cannot be a table: " + listFormCost,
	"todo-audit-log.json":          "the entries differ in their keys and hold arrays and objects, so they cannot be a table: " + listFormCost,
}

// TestTokenCost prices the realistic list answers of testdata/lists, whole
// envelopes as --output json and --output toon write them, in o200k_base
// tokens. TOON must cost no more than compact JSON, except where costlier
// says why it cannot.
func TestTokenCost(t *testing.T) {
	enc := codec.NewO200kBase()
	count := func(t *testing.T, s []byte) int {
		t.Helper()
		n, err := enc.Count(string(s))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	files := readCorpus(t, filepath.Join("testdata", "lists"))
	for name := range costlier {
		if _, ok := files[name]; !ok {
			t.Errorf("costlier lists %s, which is not in testdata/lists", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		t.Run(name, func(t *testing.T) {
			var compact bytes.Buffer
			if err := json.Compact(&compact, files[name]); err != nil {
				t.Fatal(err)
			}
			out, err := AppendJSON(nil, files[name], Options{})
			if err != nil {
				t.Fatal(err)
			}
			jsonTokens, toonTokens := count(t, compact.Bytes()), count(t, out)
			t.Logf("o200k tokens: JSON %d, TOON %d (%+.0f%%)", jsonTokens, toonTokens,
				100*float64(toonTokens-jsonTokens)/float64(jsonTokens))
			why, listed := costlier[name]
			switch {
			case toonTokens > jsonTokens && !listed:
				t.Errorf("TOON costs %d tokens, more than JSON's %d", toonTokens, jsonTokens)
			case toonTokens <= jsonTokens && listed:
				t.Errorf("TOON costs %d tokens, no more than JSON's %d: drop it from costlier (%s)", toonTokens, jsonTokens, why)
			}
		})
	}
}
