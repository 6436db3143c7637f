package adapters_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

// TestDoctorChecksTools: doctor has a check for every program a command
// declares it needs — failed, with a fix, when it is missing or older than
// declared (read from its --version) — and for every declared dependency:
// one missing is a failed check (ok false, version null) as well as a
// failed entry of data.dependencies with its fix_command, one newer than
// its max_version passes with a warning; doctor exits 0 iff every check
// passes (C-018, O-026, O-031).
func TestDoctorChecksTools(t *testing.T) {
	bin := t.TempDir()
	for name, out := range map[string]string{"newtool": "newtool version 2.3.1", "oldtool": "oldtool 1.0"} {
		script := "#!/bin/sh\necho '" + out + "'\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	newApp := func(tools map[string]string) *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "pack", Action: func(context.Context, *cli.Command) error { return nil }},
				schema.Meta{Danger: schema.Safe, Tools: tools}),
		}}
	}
	doctor := func(tools map[string]string, deps ...adapters.Dependency) (result, map[string]any) {
		t.Helper()
		home := t.TempDir()
		opts := []urfave.Option{adapters.WithEnv([]string{"CLAUDECODE=1", "HOME=" + home, "PATH=" + bin})}
		for _, d := range deps {
			opts = append(opts, adapters.WithDependency(d))
		}
		r := runAgentIn(t, home, newApp(tools), opts, "doctor")
		var env struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		return r, env.Data
	}

	r, data := doctor(map[string]string{"newtool": "2.0.0", "oldtool": "1.5.0", "gone": ""})
	want := []any{
		map[string]any{"name": "gone", "ok": false, "version": nil, "required": nil, "error": "not found in PATH", "fix": "install gone"},
		map[string]any{"name": "newtool", "ok": true, "version": "2.3.1", "required": ">=2.0.0", "error": nil, "fix": nil},
		map[string]any{"name": "oldtool", "ok": false, "version": "1.0", "required": ">=1.5.0", "error": "older than 1.5.0", "fix": "install oldtool 1.5.0 or later"},
	}
	if diff := cmp.Diff(want, data["checks"]); diff != "" || r.code != 1 {
		t.Errorf("doctor: exit %d, checks (-want +got):\n%s", r.code, diff)
	}
	if r, _ := doctor(map[string]string{"newtool": "2.0.0"}); r.code != 0 {
		t.Errorf("doctor with every tool there: exit %d\n%s", r.code, r.stdout)
	}

	missing := adapters.Dependency{Name: "terraform", CheckCommand: "terraform version", VersionRegex: `Terraform v(\d+\.\d+)`, MinVersion: "1.5.0", FixCommand: "brew install terraform"}
	newer := adapters.Dependency{Name: "newtool", CheckCommand: "newtool --version", VersionRegex: `(\d+\.\d+\.\d+)`, MinVersion: "1.0.0", MaxVersion: "2.0.0", FixCommand: "install newtool"}
	r, data = doctor(nil, missing, newer)
	if r.code != 1 {
		t.Errorf("a missing dependency: exit %d", r.code)
	}
	deps, _ := data["dependencies"].([]any)
	if len(deps) != 2 {
		t.Fatalf("dependencies %v", data["dependencies"])
	}
	tf, nt := deps[0].(map[string]any), deps[1].(map[string]any)
	if tf["ok"] != false || tf["found_version"] != nil || tf["fix_command"] != "brew install terraform" {
		t.Errorf("the missing dependency: %v", tf)
	}
	if nt["ok"] != true || nt["found_version"] != "2.3.1" || !strings.Contains(r.stdout, "DEPENDENCY_UNTESTED") {
		t.Errorf("a dependency newer than max_version: %v, warnings in %s", nt, r.stdout)
	}
	checks, _ := data["checks"].([]any)
	if len(checks) != 2 || checks[0].(map[string]any)["name"] != "terraform" || checks[0].(map[string]any)["ok"] != false || checks[0].(map[string]any)["fix"] != "brew install terraform" {
		t.Errorf("the missing dependency is not a failed check: %v", checks)
	}
}
