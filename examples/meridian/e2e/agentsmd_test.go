//go:build linux

package e2e

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/golden"
)

// agentsMD is examples/meridian/AGENTS.md, from this package's directory.
const agentsMD = "../AGENTS.md"

// TestAgentsMD holds the committed examples/meridian/AGENTS.md to what the
// built meridian writes for an agent with `describe --agents-md`, so that a
// change of any command's declaration shows up as a stale file; -update
// rewrites it.
func TestAgentsMD(t *testing.T) {
	sb := newSandbox(t)
	r := sb.run(t, sb.env, "describe", "--agents-md")
	if r.code != 0 || r.stdout == "" {
		t.Fatalf("describe --agents-md: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if golden.Updating() {
		if err := os.WriteFile(agentsMD, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(agentsMD)
	if err != nil {
		t.Fatalf("read examples/meridian/AGENTS.md: %v; create it from the module root with\n\tgo test ./examples/meridian/e2e -run TestAgentsMD -update", err)
	}
	if diff := cmp.Diff(string(committed), r.stdout); diff != "" {
		t.Errorf("examples/meridian/AGENTS.md is not what `meridian describe --agents-md` writes now (-committed +now):\n%s\n"+
			"Regenerate it from the module root with\n\tgo test ./examples/meridian/e2e -run TestAgentsMD -update", diff)
	}
}
