package envelope

import "testing"

func TestDisplayWidth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"plain", 5},
		{"héllo", 5},
		{"e\u0301", 1},  // e + combining acute
		{"日本語", 6},      // wide
		{"ＡＢ", 4},       // fullwidth
		{"a\u200bb", 2}, // zero-width space is a format character
		{"─", 1},
	}
	for _, tt := range tests {
		if got := displayWidth(tt.in); got != tt.want {
			t.Errorf("displayWidth(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestStripEscapes(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"none", "plain text", "plain text"},
		{"sgr", "\x1b[1;31mred\x1b[0m", "red"},
		{"cursor move", "a\x1b[2Kb\x1b[10;20Hc", "abc"},
		{"osc title BEL", "x\x1b]0;owned\x07y", "xy"},
		{"osc hyperlink ST", "\x1b]8;;http://e.x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"dcs", "a\x1bPq#0\x1b\\b", "ab"},
		{"two-byte", "a\x1bcb\x1b(Bc", "abc"},
		{"cut CSI", "end\x1b[31", "end"},
		{"lone ESC", "end\x1b", "end"},
		{"wide kept", "日本\x1b[0m語", "日本語"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripEscapes(tt.in); got != tt.want {
				t.Errorf("stripEscapes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
