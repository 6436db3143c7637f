package conformance

import "testing"

// TestDeclared holds the match of what a run wrote (as fsSnapshot names it)
// against the paths a command declares in filesystem_side_effects.
func TestDeclared(t *testing.T) {
	effects := []SideEffect{
		{Path: "~/.cache/tool/{key}.json", Type: "cache"},
		{Path: "$XDG_CONFIG_HOME/tool", Type: "config"},
		{Path: "${TMPDIR}/tool-*", Type: "temp"},
		{Path: "out/report.txt", Type: "log"},
		{Path: "/var/log/tool.log", Type: "log"},
	}
	tests := []struct {
		rel  string
		want bool
	}{
		{"home/.cache/tool/abc.json", true},
		{"home/.cache/tool", true}, // made to hold it
		{"home/.cache", true},
		{"home/.cache/tool/abc.txt", false},
		{"home/.cache/other/abc.json", false},
		{"xdg/config/tool", true},
		{"xdg/config/tool/settings.toml", true}, // under a declared directory
		{"xdg/config/other", false},
		{"tmp/tool-1234", true},
		{"tmp/tool-1234/part", true},
		{"tmp/other", false},
		{"work/out/report.txt", true},
		{"work/out", true},
		{"work/report.txt", false},
		{"home/.tool", false},
	}
	s := newSandbox(t)
	for _, tt := range tests {
		if got := s.declared(tt.rel, effects); got != tt.want {
			t.Errorf("declared(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	if s.declared("home/.cache/tool/abc.json", nil) {
		t.Error("declared with no effects declared")
	}
}

// TestInstalling tells a package manager that installs from one that only
// looks.
func TestInstalling(t *testing.T) {
	tests := []struct {
		name, args string
		want       bool
	}{
		{"npm", "install -g tool@latest", true},
		{"npm", "-g install tool", true},
		{"npm", "i tool", true},
		{"npm", "list -g --depth=0", false},
		{"npm", "--version", false},
		{"pip", "install --upgrade tool", true},
		{"brew", "upgrade tool", true},
		{"go", "version", false},
		{"curl", "-s https://example.com", true},
	}
	for _, tt := range tests {
		if got := installing(tt.name, tt.args); got != tt.want {
			t.Errorf("installing(%q, %q) = %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
}
