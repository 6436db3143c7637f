//go:build linux

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/conformance"
)

// TestE2EArtifactNames holds both builds to O-045's last criterion and
// O-043's: no command or flag name in an integration artifact the binary
// generates — AGENTS.md, the MCP tool list, every skill and CONTEXT file of
// both formats — is absent from its --help (conformance.CheckArtifacts, as
// `duet-check artifacts` runs it); and AGENTS.md, held by `duet-check
// agents-md`'s check, lists XDG_DATA_HOME, the variable todo reads itself,
// with its type, and --help names it.
func TestE2EArtifactNames(t *testing.T) { onEach(t, testArtifactNames) }

func testArtifactNames(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	// Named todo, as the artifacts call it.
	todo := filepath.Join(sb.dir, "bin", "todo")
	if err := os.MkdirAll(filepath.Dir(todo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, todo); err != nil {
		t.Fatal(err)
	}
	target := conformance.Target{Path: todo, Env: sb.env}
	reports, err := conformance.CheckArtifacts(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 2+2*12 {
		t.Errorf("checked %d artifacts, want AGENTS.md, the MCP tool list and 12 skill files in each format", len(reports))
	}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s names what todo --help does not: %+v", r.Artifact, r.Mismatches)
		}
	}

	md := sb.run(t, "describe", "--agents-md", "--format", "text").stdout
	if !strings.Contains(md, "- `XDG_DATA_HOME` (path, optional): the directory the default to-do file is kept under") {
		t.Errorf("AGENTS.md does not list XDG_DATA_HOME with its type and purpose:\n%s", md)
	}
	report, err := conformance.CheckAgentsMD(context.Background(), target, []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if !report.OK() {
		t.Errorf("AGENTS.md does not match todo: %+v", report.Mismatches)
	}
}
