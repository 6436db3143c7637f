//go:build linux

package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/speckit"
)

// TestSpecKitLevel3 holds meridian to the CLI Agent Spec's own conformance
// kit (v1.16, conformance/run.py): every check passes, so meridian claims
// Level 3 there. The probes are meridian's real commands on a project with
// one run that goes on (a fake harness that hangs): reads, closing the
// space (refused unconfirmed, previewed with --dry-run), invalid input, the
// run list streamed, the run's output followed and interrupted by SIGINT,
// the manifest, and --format moved around the command path.
func TestSpecKitLevel3(t *testing.T) {
	sb := newSandbox(t)
	var started struct{ ID, Space string }
	sb.ok(t, sb.env, &started, "run", "spawn", "-p", "[fake:hang] forever", "--run-timeout", "5m")
	t.Cleanup(func() { sb.run(t, sb.env, "run", "cancel", started.ID, "--space", started.Space) })
	if started.ID != "r1" || started.Space != "s1" {
		t.Fatalf("spawned %s in %s, want r1 in s1", started.ID, started.Space)
	}
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env(1) to give meridian the sandbox's environment")
	}
	// The kit runs the command with its own environment, and sets NO_COLOR
	// for one probe: env(1) lays the sandbox's home, fake harnesses and
	// project on top of it.
	command := []string{env, "-u", "MERIDIAN_SPACE_ID", "HOME=" + sb.home, "PATH=" + pathOf(sb.env),
		"MERIDIAN_REPO_ROOT=" + sb.dir, "FAKE_HARNESS_RECORD=" + sb.record, bin}
	space := []string{"--space", started.Space}
	res := speckit.Agree(t, speckit.Profile{
		Tool:           "meridian",
		Command:        command,
		TimeoutSeconds: 30,
		Manifest:       []string{"manifest"},
		ArgumentOrder: &speckit.ArgumentOrder{CommandPath: []string{"run", "list"}, LocalArgs: append(space, "--status", "running"),
			GlobalFlag: "--format", Value: "json", AlternateValue: "id"},
		Probes: []speckit.Probe{
			{Name: "run list", Argv: append([]string{"run", "list"}, space...), Kind: speckit.Read},
			{Name: "run show", Argv: append([]string{"run", "show", started.ID}, space...), Kind: speckit.Read},
			{Name: "models list", Argv: []string{"models", "list"}, Kind: speckit.Read},
			{Name: "space close", Argv: []string{"space", "close", started.Space}, Kind: speckit.Destructive, DryRunFlag: "--dry-run"},
			{Name: "a run id that is none", Argv: append([]string{"run", "show", "not an id"}, space...), Kind: speckit.Invalid},
			{Name: "spawn without a prompt", Argv: append([]string{"run", "spawn"}, space...), Kind: speckit.Invalid},
			{Name: "run list streamed", Argv: append([]string{"run", "list", "--format", "jsonl"}, space...), Kind: speckit.Stream},
			{Name: "run follow", Argv: append([]string{"run", "follow", started.ID, "--format", "jsonl"}, space...), Kind: speckit.Stream,
				Signal: "INT", AfterLines: 1, DeadlineSeconds: 20},
		},
	}, speckit.DuetCheck(t))
	t.Logf("kit: %v %+v", res.Levels, res.Summary)
	if got := res.Levels["level_3"]; got != "pass" {
		t.Errorf("level 3: %s, want pass (levels %v)\n%s", got, res.Levels, res.Failures())
	}
	// The kit's probes changed nothing: the space is open, its run goes on.
	var runs []struct{ ID, Status string }
	sb.ok(t, sb.env, &runs, append([]string{"run", "list"}, space...)...)
	if len(runs) != 1 || runs[0].Status != "running" {
		t.Errorf("after the kit, run list: %+v, want r1 running", runs)
	}
}

// pathOf is the PATH of an environment list.
func pathOf(env []string) string {
	path := ""
	for _, kv := range env {
		if len(kv) > 5 && kv[:5] == "PATH=" {
			path = kv[5:] // exec takes the last of a duplicated key
		}
	}
	return path
}

// TestRunFollow: run follow streams what a run prints, a line at a time,
// as it comes — the same bytes run output gives — and ends on the stream's
// _summary line once the run has ended.
func TestRunFollow(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	var started struct{ ID, Space string }
	sb.ok(t, sb.env, &started, "run", "spawn", "-p", "[fake:sleep=1s] then a report")
	r := sb.run(t, sb.env, "run", "follow", started.ID, "--space", started.Space, "--format", "jsonl")
	if r.code != 0 {
		t.Fatalf("run follow: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var summary struct {
		Summary bool `json:"_summary"`
		Total   int  `json:"total"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil || !summary.Summary || summary.Total != len(lines)-1 {
		t.Fatalf("last line %q: want the _summary line counting the %d lines before it", lines[len(lines)-1], len(lines)-1)
	}
	var followed strings.Builder
	for _, l := range lines[:len(lines)-1] {
		var line struct {
			At   int64
			Text string
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if int64(followed.Len()) != line.At {
			t.Errorf("line at %d, after %d bytes", line.At, followed.Len())
		}
		followed.WriteString(line.Text + "\n")
	}
	var out struct{ Text string }
	sb.ok(t, sb.env, &out, "run", "output", started.ID, "--space", started.Space)
	if followed.String() != out.Text || len(lines) < 3 {
		t.Errorf("followed %q, run output %q: want the same lines, more than one", followed.String(), out.Text)
	}
}
