package envelope_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
)

// TestPathAgainstCwd: under --cwd (Settings.Cwd) every relative Path in a
// result — in a struct, behind a pointer, in a slice, a map or an
// interface — encodes against that directory; absolute ones stay as they
// are, and the command's own value is not changed (F-040, O-017).
func TestPathAgainstCwd(t *testing.T) {
	type file struct {
		Name  string         `json:"name"`
		Path  envelope.Path  `json:"path"`
		Extra *envelope.Path `json:"extra,omitempty"`
	}
	type result struct {
		Root  envelope.Path            `json:"root"`
		Files []file                   `json:"files"`
		ByKey map[string]envelope.Path `json:"by_key"`
		Any   any                      `json:"any"`
		Fixed [1]envelope.Path         `json:"fixed"`
		Plain string                   `json:"plain"`
	}
	cwd := t.TempDir()
	extra := envelope.Path("deep/e.txt")
	in := &result{
		Root:  "./src/index.ts",
		Files: []file{{Name: "a", Path: "a.txt", Extra: &extra}, {Name: "b", Path: "/etc/hosts"}},
		ByKey: map[string]envelope.Path{"k": "k.txt"},
		Any:   []envelope.Path{"x/../y"},
		Fixed: [1]envelope.Path{"f"},
		Plain: "not/a/path",
	}
	var stdout bytes.Buffer
	out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, Stdout: &stdout, Cwd: cwd})
	out.Result(in)
	out.Finish(envelope.Meta{Command: "find-config"}, nil)
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	want := map[string]any{
		"root": filepath.Join(cwd, "src/index.ts"),
		"files": []any{
			map[string]any{"name": "a", "path": filepath.Join(cwd, "a.txt"), "extra": filepath.Join(cwd, "deep/e.txt")},
			map[string]any{"name": "b", "path": "/etc/hosts"},
		},
		"by_key": map[string]any{"k": filepath.Join(cwd, "k.txt")},
		"any":    []any{filepath.Join(cwd, "y")},
		"fixed":  []any{filepath.Join(cwd, "f")},
		"plain":  "not/a/path",
	}
	if diff := cmp.Diff(want, env.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if in.Root != "./src/index.ts" || in.Files[0].Path != "a.txt" || extra != "deep/e.txt" || in.ByKey["k"] != "k.txt" {
		t.Errorf("the command's own value changed: %+v", in)
	}
}
