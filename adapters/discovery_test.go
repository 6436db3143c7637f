package adapters_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/feature/idempotency"
)

// TestDoctor holds `app doctor` to O-026: data.checks lists every check
// with ok, and a failed one its fix; a dependency is found by running its
// check command (a real subprocess) and held to its minimum version; the
// exit is 0 exactly when everything passes, else 4 (PRECONDITION) with
// DOCTOR_CHECKS_FAILED and the report in data.
func TestDoctor(t *testing.T) {
	pass := adapters.WithCheck("store", func(context.Context) adapters.CheckResult { return adapters.CheckResult{OK: true} })
	fail := adapters.WithCheck("login", func(context.Context) adapters.CheckResult {
		return adapters.CheckResult{Error: "not logged in", Fix: "app login --token-file t"}
	})
	dep := func(min string) urfave.Option {
		return adapters.WithDependency(adapters.Dependency{Name: "tool", CheckCommand: "echo tool v1.4.2", VersionRegex: `v(\d+\.\d+\.\d+)`,
			MinVersion: min, FixCommand: "install tool"})
	}
	type check struct {
		Name string  `json:"name"`
		OK   bool    `json:"ok"`
		Fix  *string `json:"fix"`
	}
	type depReport struct {
		Name  string  `json:"name"`
		Found *string `json:"found_version"`
		OK    bool    `json:"ok"`
	}
	type data struct {
		Checks       []check     `json:"checks"`
		Dependencies []depReport `json:"dependencies"`
	}
	fix, found, installTool := "app login --token-file t", "1.4.2", "install tool"
	tests := []struct {
		name string
		opts []urfave.Option
		exit int
		want data
	}{
		{"all pass", []urfave.Option{pass, dep("1.0.0")}, 0,
			data{Checks: []check{{Name: "store", OK: true}, {Name: "tool", OK: true}}, Dependencies: []depReport{{Name: "tool", Found: &found, OK: true}}}},
		{"a check fails", []urfave.Option{pass, fail}, 4,
			data{Checks: []check{{Name: "store", OK: true}, {Name: "login", Fix: &fix}}, Dependencies: []depReport{}}},
		{"a dependency is too old", []urfave.Option{dep("2.0.0")}, 4,
			data{Checks: []check{{Name: "tool", Fix: &installTool}}, Dependencies: []depReport{{Name: "tool", Found: &found}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run{env: []string{"HOME=" + t.TempDir()}, opts: tt.opts}.do(t, newHarness(t), "doctor")
			w := envelopeOf(t, r)
			if r.code != tt.exit || (w.Error != nil) != (tt.exit != 0) {
				t.Errorf("exit %d, error %+v; want exit %d\nstdout: %s", r.code, w.Error, tt.exit, r.stdout)
			}
			if tt.exit != 0 && w.Error.Code != "DOCTOR_CHECKS_FAILED" {
				t.Errorf("error.code %q, want DOCTOR_CHECKS_FAILED", w.Error.Code)
			}
			var got data
			if err := json.Unmarshal(w.Data, &got); err != nil {
				t.Fatalf("data: %v: %s", err, w.Data)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatus holds `app status` to O-028: the declared state files and
// side effects, each path absolute (a relative or ~ path expanded), with
// the size of what exists; exit 0 whether or not anything exists.
func TestStatus(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "ctx.json"), []byte(`{"ctx":"prod"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := []urfave.Option{adapters.WithFeatures(idempotency.New()),
		adapters.WithStateFile(adapters.StateFile{Path: "~/ctx.json", Purpose: "the current context",
			Summary: func(string) (any, error) { return "prod", nil }}),
		adapters.WithSideEffect(adapters.SideEffect{Path: "$HOME/cache", Kind: "directory", Purpose: "a cache"}),
	}
	type file struct {
		Path    string `json:"path"`
		Exists  bool   `json:"exists"`
		Size    *int64 `json:"size_bytes"`
		Summary any    `json:"summary"`
	}
	type effect struct {
		Path   string `json:"path"`
		Type   string `json:"type"`
		Exists bool   `json:"exists"`
	}
	type data struct {
		StateFiles  []file   `json:"state_files,omitempty"`
		SideEffects []effect `json:"side_effects,omitempty"`
	}
	size := int64(len(`{"ctx":"prod"}`))
	// The test app has mutating commands, which take --idempotency-key:
	// Duet's idempotency store is listed after what the app declares
	// (TestStatusListsDuetState), absent until a key is used.
	store := filepath.Join(home, ".local", "state", "app", "idempotency")
	files := []file{{Path: filepath.Join(home, "ctx.json"), Exists: true, Size: &size, Summary: "prod"}, {Path: store}}
	effects := []effect{{Path: filepath.Join(home, "cache"), Type: "directory"}, {Path: store, Type: "directory"}}
	tests := []struct {
		args []string
		want data
	}{
		{nil, data{StateFiles: files, SideEffects: effects}},
		{[]string{"--show-state-files"}, data{StateFiles: files}},
		{[]string{"--show-side-effects"}, data{SideEffects: effects}},
	}
	for _, tt := range tests {
		r := run{env: []string{"HOME=" + home}, opts: opts}.do(t, newHarness(t), append([]string{"status"}, tt.args...)...)
		w := wantOK(t, r)
		var got data
		if err := json.Unmarshal(w.Data, &got); err != nil {
			t.Fatalf("data: %v: %s", err, w.Data)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("status %v (-want +got):\n%s", tt.args, diff)
		}
	}
}
