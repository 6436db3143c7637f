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
	check := speckit.DuetCheck(t) // before HOME moves, and Go's build cache with it
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
			res := speckit.Agree(t, speckit.Profile{
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
			}, check)
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

// TestKitAgreesOnFailures gives the kit and duet-check kit a profile of
// todo that misnames what its commands do — a read called invalid, a show
// called destructive, an envelope called a stream, a stream that ends
// before its signal, a command that never ends called a read, a list
// called the manifest, a local option called global — and holds the two
// to the same verdicts, failure for failure. Every check the profile can
// fail, fails.
func TestKitAgreesOnFailures(t *testing.T) {
	check := speckit.DuetCheck(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	sb := newSandbox(t, binaries[0].path)
	for _, args := range [][]string{{"add", "first"}, {"add", "second"}} {
		if r := sb.run(t, args...); r.code != 0 {
			t.Fatalf("todo %v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	res := speckit.Agree(t, speckit.Profile{
		Tool:           "todo",
		Command:        []string{binaries[0].path, "--file", sb.file},
		TimeoutSeconds: 3,
		Manifest:       []string{"list"},
		ArgumentOrder: &speckit.ArgumentOrder{CommandPath: []string{"list"}, LocalArgs: []string{"--limit", "1"},
			GlobalFlag: "--status", Value: "all", AlternateValue: "done"},
		Probes: []speckit.Probe{
			{Name: "list called invalid", Argv: []string{"list"}, Kind: speckit.Invalid},
			{Name: "show called destructive", Argv: []string{"show", "t1"}, Kind: speckit.Destructive, DryRunFlag: "--dry-run"},
			{Name: "lines called one envelope", Argv: []string{"list", "--format", "jsonl"}, Kind: speckit.Read},
			{Name: "watch called a read", Argv: []string{"watch", "--format", "jsonl"}, Kind: speckit.Read},
			{Name: "an envelope called a stream", Argv: []string{"list"}, Kind: speckit.Stream},
			{Name: "a stream shorter than its signal", Argv: []string{"list", "--format", "jsonl"}, Kind: speckit.Stream, Signal: "INT", AfterLines: 50},
		},
	}, check)
	want := map[string]speckit.Status{
		"no_hang_stdin_closed": speckit.Fail, "no_hang_stdin_open": speckit.Pass,
		"json_envelope": speckit.Fail, "exit_code_contract": speckit.Pass, "stdout_no_ansi": speckit.Pass,
		"no_color_honored": speckit.Pass, "help_off_stdout": speckit.Pass, "invalid_input_exit_2": speckit.Fail,
		"dry_run_preview": speckit.Fail, "destructive_refuses_unconfirmed": speckit.Fail, "manifest_valid": speckit.Fail,
		"argument_order": speckit.Fail, "stream_contract": speckit.Fail, "stream_sigint": speckit.Fail,
	}
	if len(res.Checks) != len(want) {
		t.Errorf("%d checks, want the kit's %d", len(res.Checks), len(want))
	}
	for _, c := range res.Checks {
		if c.Status != want[c.ID] {
			t.Errorf("%s: %s, want %s", c.ID, c.Status, want[c.ID])
		}
	}
	if t.Failed() {
		t.Logf("the kit's failures:\n%s", res.Failures())
	}
}
