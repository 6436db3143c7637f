package adapters_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/feature/skills"
)

// skillFrontMatter loads a skill file as an OpenClaw-compatible loader
// does: YAML front matter between --- lines, each key on one line, with
// name (kebab-case, at most 64 characters) and description (at most 1024)
// required. It returns the front matter and the body.
func skillFrontMatter(t *testing.T, path string) (map[string]any, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := strings.CutPrefix(string(raw), "---\n")
	if !ok {
		t.Fatalf("%s: no front matter", path)
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("%s: front matter not closed", path)
	}
	for _, line := range strings.Split(head, "\n") {
		if !regexp.MustCompile(`^[a-z_][a-z0-9_-]*: \S`).MatchString(line) {
			t.Errorf("%s: front matter line %q is not a single-line key", path, line)
		}
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		t.Fatalf("%s: front matter is not YAML: %v", path, err)
	}
	name, _ := fm["name"].(string)
	desc, _ := fm["description"].(string)
	if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(name) || len(name) > 64 {
		t.Errorf("%s: name %q is not a skill name", path, name)
	}
	if desc == "" || len(desc) > 1024 {
		t.Errorf("%s: description %q", path, desc)
	}
	return fm, body
}

// TestGenerateSkills holds `app generate-skills` to O-034: CONTEXT.md and
// one SKILL-<name>.md per command an agent runs, each loadable (see
// skillFrontMatter) with the command, its description and its arguments'
// JSON Schema in the front matter and at least three examples of the
// command, among them its --schema call; run again, it changes nothing.
func TestGenerateSkills(t *testing.T) {
	dir := t.TempDir()
	on := run{opts: []urfave.Option{adapters.WithFeatures(skills.New())}}
	r := on.do(t, newHarness(t), "generate-skills", "--output-dir", dir)
	w := wantOK(t, r)
	var data struct {
		Skills []struct {
			Path, Type string
			Command    *string
		} `json:"skills"`
	}
	if err := json.Unmarshal(w.Data, &data); err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, s := range data.Skills {
		if s.Command != nil {
			commands = append(commands, *s.Command)
		}
	}
	slices.Sort(commands)
	// Every runnable command of the test app an agent may run; not group
	// (it only holds inner), not secret (for people only), not Duet's own.
	want := []string{"boom", "count", "deadline", "group.inner", "missing", "need", "pick", "purge", "reset", "show", "sloppy", "slowstart", "stubborn", "wait"}
	if diff := cmp.Diff(want, commands); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want)+1 {
		t.Errorf("%d files in the output directory, want %d: %q", len(files), len(want)+1, files)
	}
	if ctx, err := os.ReadFile(filepath.Join(dir, "CONTEXT.md")); err != nil || !strings.HasPrefix(string(ctx), "<!-- cli-version: ") {
		t.Errorf("CONTEXT.md: %v\n%s", err, ctx)
	}
	for _, cmd := range want {
		words := "app " + strings.ReplaceAll(cmd, ".", " ")
		name := "app-" + strings.ReplaceAll(cmd, ".", "-")
		path := filepath.Join(dir, "SKILL-"+name+".md")
		fm, body := skillFrontMatter(t, path)
		if fm["name"] != name || fm["command"] != words {
			t.Errorf("%s: name %v command %v, want %s and %s", path, fm["name"], fm["command"], name, words)
		}
		args, _ := fm["args"].(map[string]any)
		if props, _ := args["properties"].(map[string]any); args["type"] != "object" || props["output"] == nil {
			t.Errorf("%s: args %v is not the arguments' JSON Schema", path, fm["args"])
		}
		if cmd == "need" && !slices.Contains(anyStrings(args["required"]), "space") {
			t.Errorf("%s: args does not require --space: %v", path, args["required"])
		}
		var examples []string
		for _, line := range strings.Split(body, "\n") {
			if ex, ok := strings.CutPrefix(strings.TrimSpace(line), "`"+words); ok {
				examples = append(examples, ex)
			}
		}
		if len(examples) < 3 || !slices.Contains(examples, " --schema`") {
			t.Errorf("%s: examples %q, want at least three of %q, one its --schema call", path, examples, words)
		}
	}
	before, _ := os.ReadFile(filepath.Join(dir, "SKILL-app-show.md"))
	w = wantOK(t, on.do(t, newHarness(t), "generate-skills", "--output-dir", dir))
	if w.Meta["effect"] != "noop" {
		t.Errorf("second run: meta.effect %v, want noop", w.Meta["effect"])
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "SKILL-app-show.md")); !bytes.Equal(before, after) {
		t.Errorf("second run changed SKILL-app-show.md")
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
