package tomlstr_test

import (
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/duet-cli/duet/internal/tomlstr"
)

// TestQuote: what Quote writes, a TOML parser reads back as the string.
func TestQuote(t *testing.T) {
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "tab\there\nline", "\x00\x1f\x7f", "ünïcode ✓", `C:\Users\me`} {
		var v struct{ K string }
		if err := toml.Unmarshal([]byte("K = "+tomlstr.Quote(s)), &v); err != nil {
			t.Fatalf("Quote(%q) = %s: %v", s, tomlstr.Quote(s), err)
		}
		if v.K != s {
			t.Errorf("Quote(%q) reads back as %q", s, v.K)
		}
	}
}
