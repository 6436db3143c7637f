package conformance_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duet-cli/duet/conformance"
)

// TestCheckArtifacts holds O-045's last criterion on meridian: no command
// or flag name in any integration artifact it generates (AGENTS.md, the
// MCP tool list, every skill and CONTEXT file in both formats) is absent
// from its --help.
func TestCheckArtifacts(t *testing.T) {
	target := conformance.Target{Path: build(t, "../examples/meridian/cmd/meridian"), Env: []string{"HOME=" + t.TempDir()}}
	reports, err := conformance.CheckArtifacts(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range reports {
		names = append(names, r.Artifact)
		if !r.OK() {
			t.Errorf("%s names what meridian --help does not: %+v", r.Artifact, r.Mismatches)
		}
	}
	if len(reports) < 6 || names[0] != "describe --agents-md" || names[1] != "describe --mcp" || !strings.HasPrefix(names[2], "markdown/") {
		t.Errorf("artifacts checked: %q, want AGENTS.md, the MCP tool list and the skills of both formats", names)
	}
}

// TestCheckArtifact shows that a name --help lacks is found wherever an
// artifact keeps it: a quoted command line, a --flag, a skill's args, an MCP
// tool's name or input property.
func TestCheckArtifact(t *testing.T) {
	target := conformance.Target{Path: build(t, "../examples/meridian/cmd/meridian"), Env: []string{"HOME=" + t.TempDir()}}
	tests := []struct {
		name, content string
		want          []conformance.Mismatch
	}{
		{"known names", "Run `meridian run list --limit 5`.\n", nil},
		{"unknown command", "Run `meridian frobnicate --format json`.\n",
			[]conformance.Mismatch{{Kind: "command", Name: "meridian frobnicate", Detail: `"frobnicate" is not a command in ` + "`meridian --help`"}}},
		{"unknown flag", "Run `meridian run list --frob`.\n",
			[]conformance.Mismatch{{Kind: "flag", Name: "--frob", Detail: "not in --help of the root or of any command the artifact names"}}},
		{"skill args", "---\ncommand: \"meridian run continue\"\nargs: {\"properties\":{\"run-id\":{},\"prompt\":{},\"frob\":{}}}\n---\n",
			[]conformance.Mismatch{{Kind: "flag", Name: "--frob", Detail: `input property of "meridian run continue" is neither a flag nor an argument in --help`}}},
		{"mcp tools", `{"tools":[{"name":"run_list","inputSchema":{"properties":{"limit":{}}}},{"name":"run_frob","inputSchema":{"properties":{"frob":{}}}}]}`,
			[]conformance.Mismatch{
				{Kind: "command", Name: "meridian run frob", Detail: `"frob" is not a command in ` + "`meridian run --help`"},
				{Kind: "flag", Name: "--frob", Detail: `input property of "meridian run frob" is neither a flag nor an argument in --help`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := conformance.CheckArtifact(context.Background(), target, tt.name, []byte(tt.content))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Mismatches, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
		})
	}
}
