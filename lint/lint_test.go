package lint_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/duet-cli/duet/lint"
)

// TestAnalyzers runs each analyzer over its own package in testdata/src
// (named after it), in a module that uses this checkout of Duet, and holds
// it to the want comments there: every one reported, nothing else.
func TestAnalyzers(t *testing.T) {
	dir := vettedModule(t)
	for _, a := range lint.Analyzers() {
		t.Run(a.Name, func(t *testing.T) {
			analysistest.Run(t, dir, a, "./"+a.Name)
		})
	}
}

// vettedModule lays testdata/src out as a module of its own that requires
// this checkout of Duet, with the checkout's go.sum: analysistest loads it
// with GOPROXY=off, from the module cache the checkout's own build filled.
func vettedModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/vetted\n\ngo 1.26\n\nrequire github.com/duet-cli/duet v0.0.0\n\nreplace github.com/duet-cli/duet => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum}
	srcs, err := filepath.Glob(filepath.Join("testdata", "src", "*", "*.go"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no test packages in testdata/src: %v", err)
	}
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", "src"), src)
		files[filepath.ToSlash(rel)] = b
	}
	for name, b := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The requirements Duet's own go.mod brings in, recorded as go mod
	// tidy would, offline.
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir, tidy.Env = dir, append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return dir
}

// TestDuetIsVetted holds this repository — the library, its examples and
// tools — to its own analyzers, through the command a user runs.
func TestDuetIsVetted(t *testing.T) {
	if testing.Short() {
		t.Skip("vets the whole module")
	}
	cmd := exec.Command("go", "run", "./lint/cmd/duetvet", "./...", "./examples/...")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("duetvet ./... ./examples/...: %v\n%s", err, out)
	}
}
