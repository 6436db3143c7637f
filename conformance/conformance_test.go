//go:build unix

package conformance_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/conformance"
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

// TestExamplesConform holds the example binaries to every applicable
// requirement: both todo builds, and meridian, whose lists need a space the
// empty sandbox lacks (their paging is skipped, not failed).
func TestExamplesConform(t *testing.T) {
	for _, pkg := range []string{"../examples/todo/cmd/todo", "../examples/todo/cmd/todo-cobra", "../examples/meridian/cmd/meridian"} {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			t.Parallel()
			report := conformance.Test(t, conformance.Target{Path: build(t, pkg)}, conformance.Options{})
			t.Logf("%d of %d applicable requirements pass, in %d ms", report.Score.Passed, report.Score.Applicable, report.DurationMS)
			if report.Discovery != "describe" {
				t.Errorf("commands discovered from %s, want describe", report.Discovery)
			}
		})
	}
}

// TestFixturesFailWhatTheyBreak checks programs that break rules on
// purpose: each fails exactly the requirements it breaks. Most are the notes
// app (testdata/fixtures/internal/notes) with one thing changed, so that the
// one requirement that thing breaks is all they fail; conformant is the app
// unchanged. The rest are not built on Duet at all, and the lists of what
// they fail are reasoned out below, requirement by requirement.
func TestFixturesFailWhatTheyBreak(t *testing.T) {
	bins := buildAll(t, "./testdata/fixtures/...")
	tests := []struct {
		fixture string
		timeout time.Duration // per run; the default unless a run must hang
		want    []string
	}{
		{fixture: "conformant"},
		{fixture: "prose", want: []string{"F-006"}},                               // a line of prose before the envelope
		{fixture: "helpstdout", want: []string{"F-048"}},                          // help on stdout when piped
		{fixture: "exit1", want: []string{"F-002", "O-021"}},                      // exit 1 for a bad flag or a missing --yes, envelope unchanged
		{fixture: "nocolor", want: []string{"F-008"}},                             // colour under NO_COLOR, CI and TERM=dumb
		{fixture: "stdinhang", timeout: 5 * time.Second, want: []string{"F-009"}}, // asks again at the end of stdin, for ever
		{fixture: "sigterm2", want: []string{"F-013"}},                            // two envelopes after SIGTERM
		{fixture: "noyes", want: []string{"O-021"}},                               // a destructive command runs without --yes
		// plain, a CLI of its own with no describe: help on stdout (F-048),
		// exit 1 and nothing on stdout for a bad flag or command (F-002,
		// F-004), two bad flags refused without a structured error that
		// names them (F-015), no manifest (O-041). Its version line is
		// fine (F-068), and a command tree read from --help gets no safe
		// runs: what its commands do is unknown.
		{fixture: "plain", want: []string{"F-002", "F-004", "F-015", "F-048", "O-041"}},
		// crash panics whatever it is asked: exit 2 with a stack trace is a
		// crash, not a refusal (F-002); no envelope (F-004); two bad flags
		// unreported (F-015); help and version fail (F-048, F-068); no
		// manifest (O-041). The stack trace goes to stderr, which is where
		// it belongs (F-006 holds).
		{fixture: "crash", want: []string{"F-002", "F-004", "F-015", "F-048", "F-068", "O-041"}},
		// garbage prints 10 MB that are not JSON and exits 0, whatever it
		// is asked: bad flags accepted (F-002, F-015), never an envelope
		// (F-004), help and version are garbage (F-048, F-068), no
		// manifest (O-041).
		{fixture: "garbage", want: []string{"F-002", "F-004", "F-015", "F-048", "F-068", "O-041"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			report, err := conformance.Check(context.Background(), conformance.Target{Path: bins[tt.fixture]}, conformance.Options{ProbeTimeout: tt.timeout})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, report.Failed()); diff != "" {
				t.Errorf("failed requirements (-want +got):\n%s\n%s", diff, evidence(report))
			}
			if report.OK() != (len(tt.want) == 0) {
				t.Errorf("OK() = %v with failures %v", report.OK(), report.Failed())
			}
		})
	}
}

// buildAll builds the main packages matching pattern into one directory and
// returns their paths by name.
func buildAll(t *testing.T, pattern string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), pattern).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pattern, err, out)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, e := range entries {
		bins[e.Name()] = filepath.Join(dir, e.Name())
	}
	return bins
}

// evidence is what the report says of each failure, for a test's message.
func evidence(r *conformance.Report) string {
	var b strings.Builder
	for _, res := range r.Results {
		for _, f := range res.Failures {
			fmt.Fprintf(&b, "  %s %s: %s: %s\n", res.ID, f.Probe, f.Command, f.Evidence)
		}
	}
	return b.String()
}

// TestSystemTools runs the checker against ordinary tools, which know
// nothing of the spec: each gets a report, its commands read from --help
// (ls has none), without a hang, and neither the checker nor the tools
// write to HOME.
func TestSystemTools(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = someone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	before := tree(t, home)
	for tool, discovery := range map[string]string{"ls": "none", "git": "help", "go": "help"} {
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
			t.Logf("%s: %d of %d applicable requirements pass in %d ms; failed %v", tool, report.Score.Passed, report.Score.Applicable, report.DurationMS, report.Failed())
			if report.Discovery != discovery {
				t.Errorf("commands discovered from %q, want %s", report.Discovery, discovery)
			}
			if !slices.Contains(report.Failed(), "O-041") || report.OK() {
				t.Errorf("%s conforms, or has a manifest: failed %v", tool, report.Failed())
			}
		})
	}
	if diff := cmp.Diff(before, tree(t, home)); diff != "" {
		t.Errorf("HOME changed (-before +after):\n%s", diff)
	}
}

// tree is every path under dir with its size and modification time.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[path] = fmt.Sprintf("%v %d %v", info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
