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
		if _, ok := tools["oldtool"]; ok {
			opts = append(opts, adapters.WithToolInstall("oldtool", "brew install oldtool"))
		}
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

	// oldtool's install command is declared (WithToolInstall); gone's is
	// not, so its check has no fix and doctor warns of it.
	r, data := doctor(map[string]string{"newtool": "2.0.0", "oldtool": "1.5.0", "gone": ""})
	want := []any{
		map[string]any{"name": "gone", "ok": false, "version": nil, "required": "*", "error": "not found in PATH", "fix": nil},
		map[string]any{"name": "newtool", "ok": true, "version": "2.3.1", "required": ">=2.0.0", "error": nil, "fix": nil},
		map[string]any{"name": "oldtool", "ok": false, "version": "1.0", "required": ">=1.5.0", "error": "older than 1.5.0", "fix": "brew install oldtool"},
	}
	if diff := cmp.Diff(want, data["checks"]); diff != "" || r.code != 4 {
		t.Errorf("doctor: exit %d, checks (-want +got):\n%s", r.code, diff)
	}
	if strings.Count(r.stdout, `"TOOL_INSTALL_UNDECLARED"`) != 2 || !strings.Contains(r.stdout, `declared for gone,`) || !strings.Contains(r.stdout, "declared for newtool,") {
		t.Errorf("doctor: want a TOOL_INSTALL_UNDECLARED warning for gone and newtool, not oldtool:\n%s", r.stdout)
	}
	if r, _ := doctor(map[string]string{"newtool": "2.0.0"}); r.code != 0 {
		t.Errorf("doctor with every tool there: exit %d\n%s", r.code, r.stdout)
	}

	missing := adapters.Dependency{Name: "terraform", CheckCommand: "terraform version", VersionRegex: `Terraform v(\d+\.\d+)`, MinVersion: "1.5.0", FixCommand: "brew install terraform"}
	newer := adapters.Dependency{Name: "newtool", CheckCommand: "newtool --version", VersionRegex: `(\d+\.\d+\.\d+)`, MinVersion: "1.0.0", MaxVersion: "2.0.0", FixCommand: "install newtool"}
	r, data = doctor(nil, missing, newer)
	if r.code != 4 {
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

	// A program that is also a declared dependency is installed by the
	// dependency's fix_command.
	_, data = doctor(map[string]string{"terraform": "1.5.0"}, missing)
	checks, _ = data["checks"].([]any)
	if len(checks) != 2 || checks[0].(map[string]any)["name"] != "terraform" || checks[0].(map[string]any)["fix"] != "brew install terraform" {
		t.Errorf("a required tool that is a dependency: its check's fix is not the dependency's fix_command: %v", checks)
	}
}

// TestToolInstallRefused: an install command for a program no command
// needs, or an empty one, fails the wrap (O-026).
func TestToolInstallRefused(t *testing.T) {
	app := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "pack", Action: func(context.Context, *cli.Command) error { return nil }},
				schema.Meta{Danger: schema.Safe, Tools: map[string]string{"packer": "1.0.0"}}),
		}}
	}
	for _, tc := range []struct {
		program, command, want string
	}{
		{"pakcer", "brew install packer", `WithToolInstall("pakcer"): no command's Meta.Tools names pakcer`},
		{"packer", "  ", `WithToolInstall("packer"): the install command is empty`},
	} {
		_, err := urfave.Wrap(app(), adapters.WithToolInstall(tc.program, tc.command))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WithToolInstall(%q, %q): wrap error %v, want %q", tc.program, tc.command, err, tc.want)
		}
	}
	if _, err := urfave.Wrap(app(), adapters.WithToolInstall("packer", "brew install packer")); err != nil {
		t.Errorf("WithToolInstall of a needed program: %v", err)
	}
}

// TestDoctorAnyVersion: a program a command needs at any version ("*", or
// "") is looked up on PATH and never run, its check required "*" with no
// version; a dependency with min_version "*" passes when its check command
// exits 0, whatever it prints, and fails when it does not, with no
// found_version either way (C-018, O-026, O-031 v1.16).
func TestDoctorAnyVersion(t *testing.T) {
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	// Run, the program leaves a mark and prints a version doctor must not read.
	script := "#!/bin/sh\necho \"$0 $*\" >> " + ran + "\necho 'anytool 0.1.0'\n"
	if err := os.WriteFile(filepath.Join(bin, "anytool"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	app := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "fmt", Action: func(context.Context, *cli.Command) error { return nil }},
				schema.Meta{Danger: schema.Safe, Tools: map[string]string{"anytool": "*"}}),
			urfave.Annotate(&cli.Command{Name: "lint", Action: func(context.Context, *cli.Command) error { return nil }},
				schema.Meta{Danger: schema.Safe, Tools: map[string]string{"anytool": ""}}),
		}}
	}
	home := t.TempDir()
	present := adapters.Dependency{Name: "present", CheckCommand: "echo no version here", VersionRegex: `v(\d+\.\d+)`, MinVersion: "*", FixCommand: "install present"}
	absent := adapters.Dependency{Name: "absent", CheckCommand: "exit 3", MinVersion: "*", FixCommand: "install absent"}
	opts := []urfave.Option{adapters.WithEnv([]string{"CLAUDECODE=1", "HOME=" + home, "PATH=" + bin + ":/usr/bin:/bin"}),
		adapters.WithDependency(present), adapters.WithDependency(absent)}
	r := runAgentIn(t, home, app(), opts, "doctor")
	var env struct {
		Data  map[string]any `json:"data"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if r.code != 4 || env.Error.Code != "DOCTOR_CHECKS_FAILED" {
		t.Errorf("doctor with a failing dependency: exit %d, error.code %q; want 4 DOCTOR_CHECKS_FAILED", r.code, env.Error.Code)
	}
	wantChecks := []any{
		map[string]any{"name": "anytool", "ok": true, "version": nil, "required": "*", "error": nil, "fix": nil},
		map[string]any{"name": "present", "ok": true, "version": nil, "required": "*", "error": nil, "fix": nil},
		map[string]any{"name": "absent", "ok": false, "version": nil, "required": "*", "error": "not found: exit 3 failed", "fix": "install absent"},
	}
	if diff := cmp.Diff(wantChecks, env.Data["checks"]); diff != "" {
		t.Errorf("doctor checks (-want +got):\n%s", diff)
	}
	wantDeps := []any{
		map[string]any{"name": "present", "check_command": "echo no version here", "version_regex": `v(\d+\.\d+)`, "min_version": "*", "max_version": nil, "found_version": nil, "ok": true, "fix_command": "install present"},
		map[string]any{"name": "absent", "check_command": "exit 3", "version_regex": "", "min_version": "*", "max_version": nil, "found_version": nil, "ok": false, "fix_command": "install absent"},
	}
	if diff := cmp.Diff(wantDeps, env.Data["dependencies"]); diff != "" {
		t.Errorf("doctor dependencies (-want +got):\n%s", diff)
	}
	if raw, err := os.ReadFile(ran); err == nil {
		t.Errorf("doctor ran anytool, needed at any version: %s", raw)
	}
	w := wantOK(t, runAgentIn(t, home, app(), opts, "lint", "--schema"))
	var doc struct {
		RequiredTools map[string]string `json:"required_tools"`
	}
	if err := json.Unmarshal(w.Data, &doc); err != nil {
		t.Fatalf("lint --schema: %v\n%s", err, w.Data)
	}
	if diff := cmp.Diff(map[string]string{"anytool": "*"}, doc.RequiredTools); diff != "" {
		t.Errorf("lint --schema required_tools, declared \"\" (-want +got):\n%s", diff)
	}
}
