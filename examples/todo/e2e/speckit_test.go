package e2e

import (
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/internal/speckit"
)

// TestSpecKitLevel3 holds the three builds of todo to the CLI Agent Spec's
// own conformance kit (v1.16, conformance/run.py): every check passes, so
// todo claims Level 3 there. The profile exercises todo's real commands:
// reads, a destructive purge with its dry run, invalid input, a list
// streamed as JSONL, watch interrupted by SIGINT, the manifest, and
// --format moved around the command path.
func TestSpecKitLevel3(t *testing.T) {
	// The kit runs todo with this process's environment: a home of the
	// test's own keeps what todo writes there out of the user's.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	for _, b := range append(binaries[:len(binaries):len(binaries)], v2) {
		t.Run(b.framework, func(t *testing.T) {
			sb := newSandbox(t, b.path)
			store := sb.file
			for _, args := range [][]string{{"add", "first"}, {"add", "second"}, {"done", "t1"}} {
				if r := sb.run(t, args...); r.code != 0 {
					t.Fatalf("todo %v: exit %d: %s", args, r.code, r.stderr)
				}
			}
			res := speckit.Run(t, speckit.Profile{
				Tool:           "todo",
				Command:        []string{b.path, "--file", store},
				TimeoutSeconds: 30,
				Manifest:       []string{"manifest"},
				ArgumentOrder: &speckit.ArgumentOrder{CommandPath: []string{"list"}, LocalArgs: []string{"--status", "all"},
					GlobalFlag: "--format", Value: "json", AlternateValue: "tsv"},
				Probes: []speckit.Probe{
					{Name: "list", Argv: []string{"list"}, Kind: speckit.Read},
					{Name: "show", Argv: []string{"show", "t1"}, Kind: speckit.Read},
					{Name: "purge", Argv: []string{"purge"}, Kind: speckit.Destructive, DryRunFlag: "--dry-run"},
					{Name: "purge --all", Argv: []string{"purge", "--all"}, Kind: speckit.Destructive, DryRunFlag: "--dry-run"},
					{Name: "bad status", Argv: []string{"list", "--status", "bogus"}, Kind: speckit.Invalid},
					{Name: "no title", Argv: []string{"add"}, Kind: speckit.Invalid},
					{Name: "format given to --output", Argv: []string{"list", "--output", "json"}, Kind: speckit.Invalid},
					{Name: "list streamed", Argv: []string{"list", "--format", "jsonl"}, Kind: speckit.Stream},
					{Name: "watch", Argv: []string{"watch", "--format", "jsonl"}, Kind: speckit.Stream, Signal: "INT", AfterLines: 2, DeadlineSeconds: 20},
				},
			})
			t.Logf("kit: %v %+v", res.Levels, res.Summary)
			if got := res.Levels["level_3"]; got != "pass" {
				t.Errorf("level 3: %s, want pass (levels %v)\n%s", got, res.Levels, res.Failures())
			}
			// The store is as it was: the kit's destructive probes are refused
			// or dry runs, and its invalid ones change nothing.
			if r := sb.run(t, "list", "--status", "all", "--format", "id"); r.stdout != "t1\nt2\n" {
				t.Errorf("after the kit, todo list --status all: %q, want t1 and t2", r.stdout)
			}
		})
	}
}
