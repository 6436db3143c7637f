package envelope

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrap(t *testing.T) {
	url := "https://example.com/a/very/long/path/that/is/wider/than/the/width"
	tests := []struct {
		name  string
		in    string
		width int
		want  string
	}{
		{"width 0 never wraps", "one two three four five", 0, "one two three four five"},
		{"a short line is left as it is", "one  two\n", 20, "one  two\n"},
		{"breaks between words, kept whole", "the quick brown fox jumps over the lazy dog", 10,
			"the quick\nbrown fox\njumps over\nthe lazy\ndog"},
		{"exactly the width fits", "abcd efgh", 9, "abcd efgh"},
		{"a word wider than the width stands unbroken", "see " + url + " now", 20,
			"see\n" + url + "\nnow"},
		{"a wide word first on a line", url + " then", 10, url + "\nthen"},
		{"each line wraps alone, newlines kept", "alpha beta gamma\n  - delta epsilon zeta\n", 12,
			"alpha beta\ngamma\n  - delta\n  epsilon\n  zeta\n"},
		{"escape sequences take no columns", "\x1b[1;31mERROR\x1b[0m abc def", 9,
			"\x1b[1;31mERROR\x1b[0m abc\ndef"},
		{"wide runes take two columns", "日本語 日本語", 8, "日本語\n日本語"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, wrap(tt.in, tt.width)); diff != "" {
				t.Errorf("wrap(%q, %d) (-want +got):\n%s", tt.in, tt.width, diff)
			}
		})
	}
}
