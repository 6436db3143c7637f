//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCommandBothAudiences runs every command of meridian twice on the
// same project: as an agent (a pipe: one envelope, ok) and as a person (a
// terminal: text, the same exit code, never an envelope), and checks the
// person sees what the command is about.
func TestEveryCommandBothAudiences(t *testing.T) {
	sb := newSandbox(t)
	skill := filepath.Join(sb.dir, ".meridian", "skills", "go", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\ndescription: Go style\n---\nKeep packages small.\n"), 0o644)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "first", "--wait") // s1 with r1

	steps := []struct {
		args []string
		show string // what a person must see
	}{
		{[]string{"init"}, "config.toml"},
		{[]string{"config", "show"}, "harness.default"},
		{[]string{"space", "list"}, "s1"},
		{[]string{"space", "show", "s1"}, "s1"},
		{[]string{"run", "spawn", "--space", "s1", "-p", "second", "--wait"}, "succeeded"},
		{[]string{"run", "continue", "r1", "--space", "s1", "-p", "third", "--wait"}, "fake claude report: third"},
		{[]string{"run", "list", "--space", "s1"}, "r2"},
		{[]string{"run", "show", "r1", "--space", "s1"}, "fake claude report: first"},
		{[]string{"run", "stats", "--space", "s1"}, "claude-opus-4-6"},
		{[]string{"run", "wait", "r1", "--space", "s1"}, "succeeded"},
		{[]string{"skills", "list"}, "Go style"},
		{[]string{"skills", "show", "go"}, "Keep packages small."},
		{[]string{"models", "list"}, "gpt-5.3-codex"},
		{[]string{"models", "show", "sonnet"}, "claude-sonnet-4-6"},
		{[]string{"doctor"}, "Harnesses"},
		{[]string{"space", "close", "s1", "--yes"}, "closed"},
	}
	for _, st := range steps {
		t.Run(strings.Join(st.args, " "), func(t *testing.T) {
			sb.ok(t, sb.env, nil, st.args...)
			screen, code := sb.person(t, sb.env, st.args...)
			screen = plain(screen)
			if code != 0 || strings.Contains(screen, `"ok":`) || !strings.Contains(screen, st.show) {
				t.Errorf("a person ran %q (exit %d) and saw:\n%s\nwant text showing %q", st.args, code, screen, st.show)
			}
		})
	}
}
