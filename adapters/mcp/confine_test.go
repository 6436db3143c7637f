package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/schema"
)

// TestOutside follows each path as the kernel would, links and ".." after
// them included, and refuses those that lead out of the project.
func TestOutside(t *testing.T) {
	root := t.TempDir()
	project, elsewhere := filepath.Join(root, "project"), filepath.Join(root, "elsewhere")
	for _, d := range []string{filepath.Join(project, "sub"), filepath.Join(elsewhere, "deep", "er")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"out":      filepath.Join(elsewhere, "deep", "er"), // a link that points out
		"dangling": filepath.Join(elsewhere, "new.json"),   // out, to a file not there yet
		"in":       "sub",                                  // a link that stays in
		"sub/up":   "..",                                   // back to the project
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(project, name)); err != nil {
			t.Fatal(err)
		}
	}
	resolved, err := projectRoot(project)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		out  bool
	}{
		{"todo.json", false},
		{"sub/new/todo.json", false},
		{"./sub/../todo.json", false},
		{filepath.Join(project, "todo.json"), false},
		{"in/todo.json", false},
		{"sub/up/todo.json", false},
		{"-", false},
		{"", false},
		{"../elsewhere/x", true},
		{filepath.Join(elsewhere, "x"), true},
		{"/etc/passwd", true},
		{"out/x", true},
		{"out/../x", true}, // the kernel goes to elsewhere/deep/x, not project/x
		{"out/../../../project/x", false},
		{"dangling", true},
		{"sub/up/../x", true},
		{"~/x", true},
		{"nothere/../../x", true},
	} {
		why := outside(resolved, schema.InProject, tc.path)
		if (why != "") != tc.out {
			t.Errorf("outside(%q) = %q, want outside %v", tc.path, why, tc.out)
		}
	}
	if why := outside(resolved, "", "/etc/passwd"); why != "" {
		t.Errorf("a flag not marked InProject is confined: %s", why)
	}
}
