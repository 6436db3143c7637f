package envelope

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCleanJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "no escapes here", "no escapes here"},
		{"colour", "\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[m", "red and bold green"},
		{"cursor movement", "a\x1b[2Kb\x1b[1A\x1b[10;20Hc", "abc"},
		{"hyperlink (OSC 8, BEL)", "\x1b]8;;https://example.com\x07link\x1b]8;;\x07", "link"},
		{"window title (OSC, ST)", "\x1b]0;title\x1b\\text", "text"},
		{"carriage returns", "50%\r100%\r\n", "50%100%\n"},
		{"escapes kept", "quote \" backslash \\ tab \t <é> 😀", "quote \" backslash \\ tab \t <é> 😀"},
		{"a lone ESC", "trailing \x1b", "trailing "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := marshal(map[string]any{"k\x1b[1m": tt.in, "list": []string{tt.in}, "n": 1})
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				K    string   `json:"k"`
				List []string `json:"list"`
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("not JSON after cleaning: %v: %s", err, raw)
			}
			if diff := cmp.Diff([]string{tt.want, tt.want}, []string{v.K, v.List[0]}); diff != "" {
				t.Errorf("cleaned %q (-want +got):\n%s", tt.in, diff)
			}
			if bytes.Contains(raw, []byte(`\u001b`)) || bytes.Contains(raw, []byte(`\r`)) {
				t.Errorf("an escape is left: %s", raw)
			}
		})
	}
}

func FuzzCleanJSON(f *testing.F) {
	for _, s := range []string{"\x1b[31mx\x1b[0m", "\x1b]8;;u\x07t", "a\rb", "\x1b", "\x1b[", "\x1b]", `"\`, "\\u001b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal([]string{s, "after"})
		if err != nil {
			t.Skip()
		}
		got := cleanJSON(raw)
		var v []string
		if err := json.Unmarshal(got, &v); err != nil || len(v) != 2 || v[1] != "after" {
			t.Fatalf("cleanJSON(%s) = %s: not the same JSON shape (%v)", raw, got, err)
		}
		if bytes.ContainsAny([]byte(v[0]), "\x1b\r") {
			t.Fatalf("cleanJSON(%s) left an escape: %q", raw, v[0])
		}
	})
}
