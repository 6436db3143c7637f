package fidelity

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// TestGoDirectiveIsTheOldest: Duet's go.mod asks for the oldest Go its
// dependencies allow — the highest of their own go lines — and no newer:
// adopting Duet raises an app's go line to that at most.
func TestGoDirectiveIsTheOldest(t *testing.T) {
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil || mod.Go == nil {
		t.Fatalf("go.mod: %v", err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{if not .Main}}{{.Path}} {{.GoVersion}}{{end}}", "all").Output()
	if err != nil {
		t.Skipf("go list -m all: %v (the module graph is not at hand)", err)
	}
	oldest, by := "v1.0", ""
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, v, _ := strings.Cut(line, " ")
		if v != "" && semver.Compare("v"+v, oldest) > 0 {
			oldest, by = "v"+v, path
		}
	}
	if semver.Compare("v"+mod.Go.Version, oldest) != 0 {
		t.Errorf("go.mod says go %s; the oldest its dependencies allow is %s (%s)", mod.Go.Version, strings.TrimPrefix(oldest, "v"), by)
	}
}
