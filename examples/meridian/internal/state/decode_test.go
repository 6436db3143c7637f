package state

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeSeeds are lines of the shapes runs.jsonl holds, and near misses.
var decodeSeeds = []string{
	`{"v":1,"event":"start","id":"r1","session_id":"c1","model":"gpt-5.3-codex","agent":"coder","skills":["go","review"],"harness":"codex","status":"running","started_at":"2026-02-28T10:00:00Z","prompt":"# Skill: go\n\nsay \"hi\" \u00e9\\"}`,
	`{"v":1,"event":"update","id":"r1","harness_session_id":"thread-1"}`,
	`{"v":1,"event":"finalize","id":"r1","status":"succeeded","exit_code":0,"duration_secs":128.4,"total_cost_usd":0.042,"input_tokens":4200,"output_tokens":1800,"cached_tokens":-7,"finished_at":"2026-02-28T10:02:08Z"}`,
	` { "v" : 1 , "id" : "r2" , "exit_code" : null , "skills" : [ ] , "model" : null } `,
	`{"v":1,"event":"finalize","id":"r2","sta`,
	`{"v":1,"id":"r3","extra":{"nested":[1,2]}}`,
	`{"V":1,"ID":"r4"}`,
	`{"v":1.0,"id":"r5"}`,
	`{"v":1,"id":"r6","duration_secs":1.e5}`,
	`{"v":1,"id":"r7","duration_secs":1e400}`,
	`{"v":1,"id":"r8","exit_code":01}`,
	`{"v":1,"id":"r9","model":"a\tb"}`,
	`{"v":1,"id":"r10","prompt":"bad \x escape"}`,
	`{"v":1,"id":"r11","prompt":"\ud83d\ude00"}`,
	`{"v":1,"id":"r12","model":"\xff"}`,
	`{"v":1,"id":"r13"} trailing`,
	`{}`,
	`null`,
	``,
	`{"v":1,"id":"r14","skills":["a",1]}`,
	`{"v":-0,"id":"r15","total_cost_usd":-0.5E-3}`,
}

// FuzzDecodeEvent holds the reflection-free path to encoding/json: whatever
// it accepts, json.Unmarshal accepts too, with the same result.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast Event
		d := decoder{keepPrompt: true, intern: map[string]string{}}
		d.buf, d.ev = line, &fast
		if !d.object() {
			return // left to encoding/json
		}
		var want Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", line, err)
		}
		if diff := cmp.Diff(want, fast); diff != "" {
			t.Fatalf("%q decoded differently (-json +fast):\n%s", line, diff)
		}
	})
}

func TestDecodeEvent(t *testing.T) {
	for _, s := range decodeSeeds {
		var got, want Event
		ok := decodeEvent([]byte(s), &got, true)
		wantOK := json.Unmarshal([]byte(s), &want) == nil
		if ok != wantOK {
			t.Errorf("%q: decodeEvent ok = %v, encoding/json ok = %v", s, ok, wantOK)
			continue
		}
		if diff := cmp.Diff(want, got); ok && diff != "" {
			t.Errorf("%q (-json +decodeEvent):\n%s", s, diff)
		}
	}
}
