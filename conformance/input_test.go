package conformance

import (
	"encoding/json"
	"testing"
)

// TestRequiresInput: a command that cannot run bare — a required flag or
// argument, or a payload it reads on stdin (stdin_input) — is not run bare
// by the probes that need it to succeed.
func TestRequiresInput(t *testing.T) {
	tests := []struct {
		name, manifest string
		want           bool
	}{
		{"nothing required", `{"path":["list"],"flags":{"all":{"type":"boolean","required":false}}}`, false},
		{"a required flag", `{"path":["add"],"flags":{"title":{"type":"string","required":true}}}`, true},
		{"a required argument", `{"path":["done"],"arguments":[{"name":"id","required":true}]}`, true},
		{"a payload on stdin", `{"path":["import"],"stdin_input":{"description":"JSON lines","max_bytes":65536,"overflow_flag":"--input-file"}}`, true},
		{"stdin_input null", `{"path":["x"],"stdin_input":null}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Command
			if err := json.Unmarshal([]byte(tt.manifest), &c); err != nil {
				t.Fatal(err)
			}
			if got := c.requiresInput(); got != tt.want {
				t.Errorf("requiresInput() = %v, want %v", got, tt.want)
			}
		})
	}
}
