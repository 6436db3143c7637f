//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildWith builds duet-check, and the fixture named (testdata/fixtures)
// as the program name (the checker knows a tool by its file's name), into
// one temporary directory, and returns their paths.
func buildWith(t *testing.T, fixture, name string) (check, target string) {
	t.Helper()
	dir := t.TempDir()
	check, target = filepath.Join(dir, "duet-check"), filepath.Join(dir, name)
	for bin, pkg := range map[string]string{check: ".", target: "../../testdata/fixtures/" + fixture} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return check, target
}

// TestAgentsMDCommand runs the built duet-check agents-md, the CI step of
// O-046, as CI would: an AGENTS.md that matches its binary exits 0; one that
// drifted exits 81 AGENTS_MD_STALE with every mismatch in data and the way
// to regenerate it, and a person gets the diff-style report; an unreadable
// AGENTS.md is invalid input (exit 2).
func TestAgentsMDCommand(t *testing.T) {
	check, notes := buildWith(t, "conformant", "notes")
	dir := filepath.Dir(check)
	doc, err := exec.Command(notes, "describe", "--agents-md").Output()
	if err != nil {
		t.Fatalf("notes describe --agents-md: %v", err)
	}
	good, stale := filepath.Join(dir, "AGENTS.md"), filepath.Join(dir, "STALE.md")
	staleDoc := strings.Replace(string(doc), "cli-version: 1.0.0", "cli-version: 0.9.0", 1) + "\n- `--replicas`: gone\n"
	if err := os.WriteFile(good, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte(staleDoc), 0o644); err != nil {
		t.Fatal(err)
	}

	type mismatch struct{ Kind, Name string }
	type answer struct {
		OK   bool `json:"ok"`
		Data *struct {
			Mismatches []mismatch `json:"mismatches"`
		} `json:"data"`
		Error *struct {
			Code       string `json:"code"`
			Field      string `json:"field"`
			Suggestion string `json:"suggestion"`
		} `json:"error"`
	}
	run := func(t *testing.T, env []string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(check, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	tests := []struct {
		name       string
		args       []string
		wantExit   int
		wantCode   string
		wantField  string
		mismatches []mismatch
	}{
		{name: "matches", args: []string{"agents-md", good, notes}, mismatches: []mismatch{}},
		{name: "matches, binary after --", args: []string{"agents-md", good, "--", notes}, mismatches: []mismatch{}},
		{
			name: "stale", args: []string{"agents-md", stale, notes}, wantExit: 81, wantCode: "AGENTS_MD_STALE",
			mismatches: []mismatch{{"version", "0.9.0"}, {"flag", "--replicas"}},
		},
		{name: "unreadable", args: []string{"agents-md", filepath.Join(dir, "missing.md"), notes}, wantExit: 2, wantCode: "AGENTS_MD_UNREADABLE", wantField: "agents-md"},
		{name: "no arguments", args: []string{"agents-md"}, wantExit: 2, wantCode: "VALIDATION_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exit, out := run(t, []string{"DUET_CHECK_FORMAT=json"}, tt.args...)
			if exit != tt.wantExit {
				t.Errorf("exit %d, want %d; stdout %s", exit, tt.wantExit, out)
			}
			var a answer
			if err := json.Unmarshal([]byte(out), &a); err != nil {
				t.Fatalf("stdout is not one envelope: %v\n%s", err, out)
			}
			if a.OK != (tt.wantExit == 0) {
				t.Errorf("ok = %v", a.OK)
			}
			var code, field string
			if a.Error != nil {
				code, field = a.Error.Code, a.Error.Field
			}
			if code != tt.wantCode || field != tt.wantField {
				t.Errorf("error code %q field %q, want %q %q", code, field, tt.wantCode, tt.wantField)
			}
			if tt.mismatches != nil {
				if a.Data == nil {
					t.Fatalf("no data: %s", out)
				}
				if diff := cmp.Diff(tt.mismatches, a.Data.Mismatches); diff != "" {
					t.Errorf("data.mismatches (-want +got):\n%s", diff)
				}
			}
			if tt.wantCode == "AGENTS_MD_STALE" && !strings.Contains(a.Error.Suggestion, "describe --agents-md") {
				t.Errorf("suggestion %q does not say how to regenerate", a.Error.Suggestion)
			}
		})
	}

	t.Run("diff for a person", func(t *testing.T) {
		exit, out := run(t, []string{"DUET_CHECK_FORMAT=text"}, "agents-md", stale, notes)
		if exit != 81 {
			t.Errorf("exit %d, want 81", exit)
		}
		want := "- version 0.9.0: AGENTS.md cli-version (0.9.0) != binary version (1.0.0)\n" +
			"- flag --replicas: not in --help of the root or of any command AGENTS.md shows\n" +
			"FAIL: 2 mismatches between AGENTS.md and the binary\n"
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
	})
}

// TestCheckSeesWhatAnAgentGets: the default check runs the target twice —
// on a bare pipe, as a script runs it, and as a coding agent runs it
// (CLAUDECODE=1) — and reports both, the verdict resting on the agent's.
// It tells an app wrapped with Duet from the same app unwrapped, which a
// bare pipe alone cannot: on a pipe both are the app as it was.
func TestCheckSeesWhatAnAgentGets(t *testing.T) {
	dir := t.TempDir()
	check := filepath.Join(dir, "duet-check")
	wrapped, bare := filepath.Join(dir, "wrapped", "tally"), filepath.Join(dir, "bare", "tally")
	for _, b := range []struct{ bin, pkg, tags string }{
		{check, ".", ""}, {wrapped, "../../../examples/tally/cmd/tally", ""}, {bare, "../../../examples/tally/cmd/tally", "bare"},
	} {
		if out, err := exec.Command("go", "build", "-tags", b.tags, "-o", b.bin, b.pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	type report struct {
		Requirements []struct{ ID, Status string } `json:"requirements"`
	}
	type answer struct {
		Data struct {
			report
			AsAgent *report `json:"as_agent"`
		} `json:"data"`
	}
	failing := func(r *report) []string {
		var ids []string
		for _, req := range r.Requirements {
			if req.Status == "fail" && (req.ID == "F-002" || req.ID == "F-004" || req.ID == "F-015") {
				ids = append(ids, req.ID)
			}
		}
		return ids
	}
	run := func(target string, args ...string) answer {
		out, _ := exec.Command(check, append(append([]string{"check", "--budget", "30s"}, args...), target)...).Output()
		var a answer
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("duet-check check %s: %v\n%s", target, err, out)
		}
		return a
	}
	w, b := run(wrapped), run(bare)
	if w.Data.AsAgent == nil || b.Data.AsAgent == nil {
		t.Fatal("the default check made no run as an agent")
	}
	want := []string{"F-002", "F-004", "F-015"} // an unknown flag: exit 1, no envelope
	for name, got := range map[string][]string{
		"wrapped on a pipe": failing(&w.Data.report), "unwrapped on a pipe": failing(&b.Data.report),
		"unwrapped as an agent": failing(b.Data.AsAgent),
	} {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: failing among F-002, F-004, F-015 (-want +got):\n%s", name, diff)
		}
	}
	if got := failing(w.Data.AsAgent); len(got) > 0 {
		t.Errorf("wrapped, as an agent: %v fail; Duet answers an agent's unknown flag with exit 2 and an envelope", got)
	}
	if p := run(wrapped, "--pipe-only"); p.Data.AsAgent != nil {
		t.Error("--pipe-only ran the target as an agent too")
	}
}
