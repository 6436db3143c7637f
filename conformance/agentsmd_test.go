//go:build unix

package conformance_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/conformance"
)

// agentsMD builds the conformant notes fixture and returns it with the
// AGENTS.md it writes for itself.
func agentsMD(t *testing.T) (bin, doc string) {
	t.Helper()
	bin = filepath.Join(t.TempDir(), "notes")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/fixtures/conformant").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "describe", "--agents-md").Output()
	if err != nil {
		t.Fatalf("notes describe --agents-md: %v", err)
	}
	return bin, string(out)
}

// TestCheckAgentsMD holds CheckAgentsMD to O-043 and O-046: the AGENTS.md a
// binary writes for itself matches it, and each kind of drift — a version
// line that is missing or names another version, a required section
// missing, a flag, command or variable the binary does not have — is one
// mismatch naming exactly that item.
func TestCheckAgentsMD(t *testing.T) {
	bin, doc := agentsMD(t)
	tests := []struct {
		name string
		edit func(string) string
		want []conformance.Mismatch
	}{
		{name: "as generated", edit: func(s string) string { return s }, want: []conformance.Mismatch{}},
		{
			name: "other version",
			edit: func(s string) string { return strings.Replace(s, "cli-version: 1.0.0", "cli-version: 0.9.0", 1) },
			want: []conformance.Mismatch{{Kind: "version", Name: "0.9.0", Detail: "AGENTS.md cli-version (0.9.0) != binary version (1.0.0)"}},
		},
		{
			name: "no version line",
			edit: func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest },
			want: []conformance.Mismatch{{Kind: "version", Name: "line 1", Detail: "line 1 is not <!-- cli-version: X.Y.Z -->"}},
		},
		{
			name: "version line not first",
			edit: func(s string) string { return "\n" + s },
			want: []conformance.Mismatch{{Kind: "version", Name: "line 1", Detail: "line 1 is not <!-- cli-version: X.Y.Z -->"}},
		},
		{
			name: "section missing",
			edit: func(s string) string { return strings.Replace(s, "## Input Conventions", "## Input", 1) },
			want: []conformance.Mismatch{{Kind: "section", Name: "Input Conventions", Detail: "no `## Input Conventions` section"}},
		},
		{
			name: "renamed flag",
			edit: func(s string) string { return s + "\n- `--replicas`: how many\n" },
			want: []conformance.Mismatch{{Kind: "flag", Name: "--replicas", Detail: "not in --help of the root or of any command AGENTS.md shows"}},
		},
		{
			name: "a flag's prefix is not the flag",
			edit: func(s string) string { return s + "\nUse `--out` for short.\n" },
			want: []conformance.Mismatch{{Kind: "flag", Name: "--out", Detail: "not in --help of the root or of any command AGENTS.md shows"}},
		},
		{
			name: "unknown command",
			edit: func(s string) string { return s + "\nRun `notes frobnicate --all`.\n" },
			want: []conformance.Mismatch{
				{Kind: "command", Name: "notes frobnicate", Detail: `"frobnicate" is not a command in ` + "`notes --help`"},
				{Kind: "flag", Name: "--all", Detail: "not in --help of the root or of any command AGENTS.md shows"},
			},
		},
		{
			name: "unknown variable",
			edit: func(s string) string {
				return strings.Replace(s, "## Environment Variables\n", "## Environment Variables\n\n- `NOTES_TOKEN` (string, required): a token\n", 1)
			},
			want: []conformance.Mismatch{{Kind: "env", Name: "NOTES_TOKEN", Detail: "not in --help of the root or of any command AGENTS.md shows"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			report, err := conformance.CheckAgentsMD(context.Background(), conformance.Target{Path: bin}, []byte(tt.edit(doc)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, report.Mismatches); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
			if report.OK() != (len(tt.want) == 0) {
				t.Errorf("OK() = %v with %d mismatches", report.OK(), len(report.Mismatches))
			}
			if report.BinaryVersion != "1.0.0" {
				t.Errorf("BinaryVersion = %q, want 1.0.0", report.BinaryVersion)
			}
		})
	}
}

// TestCheckAgentsMDCannotRun is an error, not a mismatch: a binary that
// cannot be started says nothing about the document.
func TestCheckAgentsMDCannotRun(t *testing.T) {
	_, err := conformance.CheckAgentsMD(context.Background(), conformance.Target{Path: filepath.Join(t.TempDir(), "missing")}, []byte("<!-- cli-version: 1.0.0 -->\n"))
	if err == nil {
		t.Fatal("CheckAgentsMD of a missing binary: no error")
	}
}

// TestAgentsMDWriteDiff holds the report's text to O-046's diff style: one
// line per mismatched item, then the verdict.
func TestAgentsMDWriteDiff(t *testing.T) {
	tests := []struct {
		report conformance.AgentsMDReport
		want   string
	}{
		{conformance.AgentsMDReport{BinaryVersion: "2.1.0", Mismatches: []conformance.Mismatch{}}, "PASS: AGENTS.md matches the binary 2.1.0\n"},
		{conformance.AgentsMDReport{DocVersion: "2.0.3", BinaryVersion: "2.1.0", Mismatches: []conformance.Mismatch{
			{Kind: "version", Name: "2.0.3", Detail: "AGENTS.md cli-version (2.0.3) != binary version (2.1.0)"},
			{Kind: "flag", Name: "--replicas", Detail: "not in --help"},
		}}, "- version 2.0.3: AGENTS.md cli-version (2.0.3) != binary version (2.1.0)\n- flag --replicas: not in --help\nFAIL: 2 mismatches between AGENTS.md and the binary\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.report.WriteDiff(&b); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("WriteDiff (-want +got):\n%s", diff)
		}
	}
}

// TestExampleAgentsMD is O-046's CI step for this repository: on every
// commit (go test ./... in .ci/run) the committed AGENTS.md of the
// reference app must match the meridian built from the same commit.
func TestExampleAgentsMD(t *testing.T) {
	doc, err := os.ReadFile("../examples/meridian/AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	target := conformance.Target{Path: build(t, "../examples/meridian/cmd/meridian"), Env: []string{"HOME=" + t.TempDir()}}
	report, err := conformance.CheckAgentsMD(context.Background(), target, doc)
	if err != nil {
		t.Fatal(err)
	}
	if !report.OK() {
		var b strings.Builder
		report.WriteDiff(&b)
		t.Errorf("examples/meridian/AGENTS.md does not match meridian:\n%s\nRegenerate it with\n\tgo test ./examples/meridian/e2e -run TestAgentsMD -update", b.String())
	}
}
