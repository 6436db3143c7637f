package tiktoken_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/duet-cli/duet/tokens"
	"github.com/duet-cli/duet/tokens/tiktoken"
)

// corpus is text of the kinds an agent's budget counts: envelopes' data,
// prose, identifiers, numbers, paths, other scripts.
func corpus() []string {
	var items []map[string]any
	for i := range 40 {
		items = append(items, map[string]any{"id": fmt.Sprintf("t%d", i+1), "title": "renew the TLS certificate for api.example.com", "priority": "high",
			"done": i%3 == 0, "created": "2026-11-24T10:56:33Z", "tags": []string{"ops", "security"}, "size_bytes": 1048576 + i})
	}
	list, _ := json.Marshal(items)
	return []string{
		string(list),
		`{"ok":true,"data":{"id":"r3","status":"running","harness":"claude-code","model":"claude-sonnet-4-5","pid":48213},"error":null,"warnings":[],"meta":{"duration_ms":12}}`,
		"The quick brown fox jumps over the lazy dog. Agents read every byte of an answer, so a framework that writes less saves them money and context.",
		"/home/user/projects/duet/examples/meridian/internal/commands/run.go:123:45: undefined: harnessProgram",
		strings.Repeat("0123456789", 20),
		"Grüße aus Köln — 東京からこんにちは",
	}
}

// TestEstimateNearCl100k holds tokens.Estimate to within 20 % of
// cl100k_base on each text of the corpus, and within 10 % over all of it.
func TestEstimateNearCl100k(t *testing.T) {
	exact := tiktoken.Cl100k()
	var sumE, sumX int
	for _, s := range corpus() {
		e, x := tokens.Estimate.Count(s), exact.Count(s)
		sumE, sumX = sumE+e, sumX+x
		if off := math.Abs(float64(e-x)) / float64(x); off > 0.20 {
			t.Errorf("estimate %d, cl100k_base %d (%.0f%% off) for %.60q", e, x, off*100, s)
		}
	}
	t.Logf("over the corpus: estimate %d, cl100k_base %d", sumE, sumX)
	if off := math.Abs(float64(sumE-sumX)) / float64(sumX); off > 0.10 {
		t.Errorf("over the corpus: estimate %d, cl100k_base %d (%.0f%% off)", sumE, sumX, off*100)
	}
}

// TestCut: a cut is a prefix of at most n tokens, and the longest such.
func TestCut(t *testing.T) {
	for name, tok := range map[string]tokens.Tokenizer{"estimate": tokens.Estimate, "cl100k_base": tiktoken.Cl100k(), "o200k_base": tiktoken.O200k()} {
		for _, s := range corpus() {
			for _, n := range []int{0, 1, 7, 50} {
				cut := tok.Cut(s, n)
				if !strings.HasPrefix(s, cut) || tok.Count(cut) > n {
					t.Errorf("%s: Cut(%.30q, %d) = %.40q, %d tokens", name, s, n, cut, tok.Count(cut))
				}
				if cut != s && tok.Count(s[:len(cut)+runeLen(s[len(cut):])]) <= n && name == "estimate" {
					t.Errorf("%s: Cut(%.30q, %d) = %.40q is not the longest", name, s, n, cut)
				}
			}
		}
	}
}

func runeLen(s string) int {
	for i := range s {
		if i > 0 {
			return i
		}
	}
	return len(s)
}
