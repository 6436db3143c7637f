//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2EArtifactVersions holds the integration artifacts the binary
// writes to O-045: each declares, in its format's way, the version
// --version prints — AGENTS.md and CONTEXT.md as <!-- cli-version: -->
// on line 1, skill files as cli_version in their front matter (markdown)
// or object (json), the MCP tool list as "cli_version" — being made by the
// binary they describe, they cannot be released apart from it.
func TestE2EArtifactVersions(t *testing.T) { onEach(t, testArtifactVersions) }

func testArtifactVersions(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	r := sb.run(t, "--version")
	tool, version, ok := strings.Cut(strings.TrimSpace(r.stdout), " ")
	if r.code != 0 || !ok || tool != "todo" {
		t.Fatalf("--version: exit %d, %q", r.code, r.stdout)
	}
	declared := map[string]string{}
	firstLine := func(name, text string) {
		line, _, _ := strings.Cut(text, "\n")
		v, ok := strings.CutPrefix(line, "<!-- cli-version: ")
		declared[name] = strings.TrimSuffix(v, " -->")
		if !ok {
			declared[name] = "none on line 1: " + line
		}
	}
	agents := sb.run(t, "describe", "--agents-md")
	firstLine("AGENTS.md", agents.stdout)

	for _, format := range []string{"markdown", "json"} {
		dir := filepath.Join(sb.dir, "skills-"+format)
		expectEnvelope(t, "generate-skills", sb.run(t, "generate-skills", "--output-dir", dir, "--skill-format", format), 0)
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(files) < 2 {
			t.Fatalf("generate-skills --skill-format %s wrote %q: %v", format, files, err)
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := format + "/" + filepath.Base(f)
			switch {
			case format == "json":
				var doc struct {
					CLIVersion string `json:"cli_version"`
				}
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				declared[name] = doc.CLIVersion
			case filepath.Base(f) == "CONTEXT.md":
				firstLine(name, string(raw))
			default:
				declared[name] = "no cli_version"
				for _, line := range strings.Split(string(raw), "\n") {
					if v, ok := strings.CutPrefix(line, "cli_version: "); ok {
						declared[name] = strings.Trim(v, `"`)
						break
					}
				}
			}
		}
	}

	env := expectEnvelope(t, "describe --mcp", sb.run(t, "describe", "--mcp"), 0)
	declared["describe --mcp"], _ = get(env, "data.cli_version").(string)
	env = expectEnvelope(t, "manifest", sb.run(t, "manifest"), 0)
	declared["manifest"], _ = get(env, "data.framework_version").(string)

	want := map[string]string{}
	for name := range declared {
		want[name] = version
	}
	if diff := cmp.Diff(want, declared); diff != "" {
		t.Errorf("declared versions against --version %q (-want +got):\n%s", version, diff)
	}
}
