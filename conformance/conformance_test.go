//go:build unix

package conformance_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/internal/golden"
)

// build builds a package into the test's directory.
func build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// TestTodoConforms holds both todo binaries to every applicable requirement.
func TestTodoConforms(t *testing.T) {
	for _, pkg := range []string{"../examples/todo/cmd/todo", "../examples/todo/cmd/todo-cobra"} {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			report := conformance.Test(t, conformance.Target{Path: build(t, pkg)}, conformance.Options{})
			t.Logf("%d of %d applicable requirements pass, in %d ms", report.Score.Passed, report.Score.Applicable, report.DurationMS)
			if report.Discovery != "describe" {
				t.Errorf("commands discovered from %s, want describe", report.Discovery)
			}
		})
	}
}

// TestFixturesFailWhatTheyBreak checks programs that each break rules: the
// requirements they fail are exactly those in their golden file.
func TestFixturesFailWhatTheyBreak(t *testing.T) {
	for _, name := range []string{"crash", "garbage", "prose"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := build(t, "./testdata/fixtures/"+name)
			report, err := conformance.Check(context.Background(), conformance.Target{Path: bin}, conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "fixtures/"+name+".failed", []byte(strings.Join(report.Failed(), "\n")+"\n"))
			if report.OK() {
				t.Error("a broken fixture conforms")
			}
		})
	}
}

// TestSystemTools runs the checker against ordinary tools: it must finish
// with a report and leave the real HOME alone.
func TestSystemTools(t *testing.T) {
	home, _ := os.UserHomeDir()
	before := listing(t, home)
	for _, tool := range []string{"ls", "git", "go"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Logf("%s is not installed", tool)
			continue
		}
		t.Run(tool, func(t *testing.T) {
			report, err := conformance.Check(context.Background(), conformance.Target{Path: path}, conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d of %d applicable requirements pass; failed %v", tool, report.Score.Passed, report.Score.Applicable, report.Failed())
			if len(report.Results) == 0 {
				t.Error("an empty report")
			}
		})
	}
	if after := listing(t, home); after != before {
		t.Errorf("the real HOME changed:\nbefore %s\nafter  %s", before, after)
	}
}

// listing is the names in dir, for a before-and-after comparison.
func listing(t *testing.T, dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}
