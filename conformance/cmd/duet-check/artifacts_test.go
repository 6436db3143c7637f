//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestArtifactsCommand runs the built duet-check artifacts (O-045): a Duet
// tool whose generated artifacts name only what its --help shows exits 0
// with a report per artifact; a tool whose artifacts name a command and a
// flag its --help lacks, or that makes no skill files, exits 81
// ARTIFACTS_STALE with every mismatch in data.
func TestArtifactsCommand(t *testing.T) {
	check, notes := buildWith(t, "conformant", "notes")
	dir := filepath.Dir(check)
	// A tool whose AGENTS.md and MCP tool list drifted from its help.
	stale := filepath.Join(dir, "stale")
	script := "#!/bin/sh\ncase \"$1 $2\" in\n" +
		"'--help '|'list --help') printf 'usage: stale <command>\ncommands:\n  list  list things\n  --quiet  say less\n' ;;\n" +
		"'describe --agents-md') echo 'Run `stale list --quiet` or `stale frob --loud`.' ;;\n" +
		"'describe --mcp') echo '{\"tools\":[{\"name\":\"list\",\"inputSchema\":{\"properties\":{\"quiet\":{},\"limit\":{}}}}]}' ;;\n" +
		"*) exit 2 ;;\nesac\n"
	if err := os.WriteFile(stale, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	type mismatch struct{ Kind, Name string }
	type report struct {
		Artifact   string     `json:"artifact"`
		Mismatches []mismatch `json:"mismatches"`
	}
	run := func(args ...string) (int, []report, string) {
		cmd := exec.Command(check, args...)
		cmd.Env = append(os.Environ(), "DUET_CHECK_FORMAT=json", "HOME="+dir)
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		var a struct {
			Data  []report `json:"data"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("stdout is not one envelope: %v\n%s", err, out)
		}
		code := ""
		if a.Error != nil {
			code = a.Error.Code
		}
		return cmd.ProcessState.ExitCode(), a.Data, code
	}

	exit, reports, code := run("artifacts", notes)
	if exit != 0 || code != "" || len(reports) < 4 {
		t.Errorf("artifacts notes: exit %d, code %q, %d reports; want 0 and AGENTS.md, MCP tools and skills", exit, code, len(reports))
	}
	for _, r := range reports {
		if len(r.Mismatches) > 0 {
			t.Errorf("notes: %s: %+v", r.Artifact, r.Mismatches)
		}
	}

	exit, reports, code = run("artifacts", stale)
	if exit != 81 || code != "ARTIFACTS_STALE" {
		t.Errorf("artifacts stale: exit %d code %q, want 81 ARTIFACTS_STALE", exit, code)
	}
	want := []report{
		{"describe --agents-md", []mismatch{{"command", "stale frob"}, {"flag", "--loud"}}},
		{"describe --mcp", []mismatch{{"flag", "--limit"}}},
		{"generate-skills --skill-format markdown", []mismatch{{"artifact", "generate-skills --skill-format markdown"}}},
		{"generate-skills --skill-format json", []mismatch{{"artifact", "generate-skills --skill-format json"}}},
	}
	if diff := cmp.Diff(want, reports); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}
