package speckit

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakePython writes a shell script standing in for an interpreter: one that
// passes the kit's check, or one that fails it as pythonCheck does under a
// Python without jsonschema.
func fakePython(t *testing.T, dir string, usable bool) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake interpreters are shell scripts")
	}
	body := "#!/bin/sh\nexit 0\n"
	if !usable {
		body = "#!/bin/sh\necho \"No module named 'jsonschema'\" >&2\nexit 1\n" // as pythonCheck reports it
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "python3")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindPython(t *testing.T) {
	root := t.TempDir()
	good := fakePython(t, filepath.Join(root, "good"), true)
	bad := fakePython(t, filepath.Join(root, "bad"), false)
	missing := filepath.Join(root, "missing", "python3")
	noModule := "No module named 'jsonschema'"

	tests := []struct {
		name       string
		env        string // DUET_SPECKIT_PYTHON
		path       string // PATH
		candidates []string
		want       string
		wantErr    []string // substrings of the error
		none       bool     // the error is "no interpreter", which skips
	}{
		{name: "named and usable", env: good, path: filepath.Dir(bad), candidates: []string{"python3"}, want: good},
		{name: "named but missing", env: missing, path: filepath.Dir(good), candidates: []string{"python3"},
			wantErr: []string{EnvPython + "=" + missing, "not found", debianPackages}},
		{name: "named without jsonschema", env: bad, path: filepath.Dir(good), candidates: []string{"python3"},
			wantErr: []string{EnvPython + "=" + bad, noModule}},
		{name: "named by PATH lookup", env: "python3", path: filepath.Dir(good), want: good},
		{name: "first usable candidate", path: filepath.Dir(bad), candidates: []string{"python3", good}, want: good},
		{name: "PATH before the fallback", path: filepath.Dir(good), candidates: []string{"python3", bad}, want: good},
		{name: "none usable", path: filepath.Join(root, "empty"), candidates: []string{"python3", missing, bad}, none: true,
			wantErr: []string{"python3: not on PATH", missing + ": not found", bad + ": " + noModule, debianPackages, EnvPython}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvPython, tt.env)
			t.Setenv("PATH", tt.path)
			got, err := findPython(os.Getenv, tt.candidates)
			if len(tt.wantErr) == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("findPython = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("findPython = %q, want an error", got)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			var none *noPythonError
			if errors.As(err, &none) != tt.none {
				t.Errorf("error %T, want a *noPythonError: %t", err, tt.none)
			}
		})
	}
}

// TestFindPythonTriesEachOnce: python3 on PATH is often the fallback
// itself, and is reported once.
func TestFindPythonTriesEachOnce(t *testing.T) {
	bad := fakePython(t, t.TempDir(), false)
	t.Setenv(EnvPython, "")
	t.Setenv("PATH", filepath.Dir(bad))
	_, err := findPython(os.Getenv, []string{"python3", bad})
	var none *noPythonError
	if !errors.As(err, &none) {
		t.Fatalf("findPython error = %v, want a *noPythonError", err)
	}
	if diff := cmp.Diff([]string{"python3: No module named 'jsonschema'"}, none.tried); diff != "" {
		t.Errorf("tried (-want +got):\n%s", diff)
	}
}

func TestVerdict(t *testing.T) {
	none := &noPythonError{tried: []string{"python3: not on PATH"}}
	named := errors.New("DUET_SPECKIT_PYTHON=/x cannot run the spec's conformance kit: not found")
	tests := []struct {
		name     string
		err      error
		require  string
		wantSkip bool
	}{
		{"no interpreter skips", none, "", true},
		{"no interpreter fails where required", none, "1", false},
		{"required only by 1", none, "yes", true},
		{"a named interpreter that cannot run fails", named, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skip, msg := verdict(tt.err, tt.require)
			if skip != tt.wantSkip || !strings.Contains(msg, tt.err.Error()) {
				t.Errorf("verdict = %t, %q; want skip %t and the error", skip, msg, tt.wantSkip)
			}
		})
	}
}

func TestProfileDocument(t *testing.T) {
	p := Profile{
		Tool:    "todo",
		Command: []string{"bin/todo", "--quiet"},
		Probes:  []Probe{{Name: "list", Kind: Read}, {Name: "purge", Argv: []string{"purge"}, Kind: Destructive, DryRunFlag: "--dry-run"}},
		ArgumentOrder: &ArgumentOrder{
			CommandPath: []string{"list"}, GlobalFlag: "--format", Value: "json", AlternateValue: "plain",
		},
	}
	doc, err := document(p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("bin/todo")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"schema_version":  "1.0",
		"tool":            "todo",
		"command":         []any{abs, "--quiet"},
		"timeout_seconds": 10.0,
		"probes": []any{
			map[string]any{"name": "list", "argv": []any{}, "kind": "read"},
			map[string]any{"name": "purge", "argv": []any{"purge"}, "kind": "destructive", "dry_run_flag": "--dry-run"},
		},
		"argument_order": map[string]any{
			"command_path": []any{"list"}, "local_args": []any{}, "global_flag": "--format", "value": "json", "alternate_value": "plain",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("profile document (-want +got):\n%s", diff)
	}
	if p.Command[0] != "bin/todo" || p.Probes[0].Argv != nil {
		t.Error("document changed the caller's profile")
	}
	if _, err := document(Profile{Tool: "x"}); err == nil {
		t.Error("a profile without a command made a document")
	}
}
