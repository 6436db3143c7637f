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
		ok      bool // conforms all the same: what it breaks is not required (P0)
	}{
		{fixture: "conformant"},
		{fixture: "prose", want: []string{"F-006"}},      // a line of prose before the envelope
		{fixture: "helpstdout", want: []string{"F-048"}}, // help on stdout when piped
		// exit1 exits 1 for a bad flag or a missing --yes, its envelope
		// unchanged: exit 2 is validation's (F-002, O-021), and the
		// envelope's meta.exit_code, 2, is no longer the process's (F-001).
		{fixture: "exit1", want: []string{"F-001", "F-002", "O-021"}},
		{fixture: "nocolor", want: []string{"F-008"}},                             // colour under NO_COLOR, CI and TERM=dumb
		{fixture: "stdinhang", timeout: 5 * time.Second, want: []string{"F-009"}}, // asks again at the end of stdin, for ever
		{fixture: "sigterm2", want: []string{"F-013"}},                            // two envelopes after SIGTERM
		{fixture: "noyes", want: []string{"O-021"}},                               // a destructive command runs without --yes
		{fixture: "firstrun", want: []string{"F-068"}},                            // its first run, discovery's --help, writes ~/.firstrun/id
		{fixture: "undeclared", want: []string{"C-011"}, ok: true},                // list writes its cache, declaring nothing
		{fixture: "oldstream", want: []string{"O-004"}, ok: true},                 // a stream ends on {"ok": true, ...}, not its summary line
		{fixture: "oldcancel", want: []string{"F-013", "F-069"}},                  // a cancelled run's data is null, its signal in error.signal
		{fixture: "legacyoutput", want: []string{"F-002", "O-001"}},               // --output json picks the format (exit 0), where it must be refused (exit 2)
		// liedry's wipe writes under --dry-run all the same (C-004); the
		// refusal without --yes previews through the same dry run, so it
		// writes too (O-021).
		{fixture: "liedry", want: []string{"C-004", "O-021"}},
		// plain, a CLI of its own with no describe: help on stdout (F-048),
		// exit 1 and nothing on stdout for a bad flag or command (F-002,
		// F-004), two bad flags refused without a structured error that
		// names them (F-015), no manifest (O-041). Its version line is
		// fine (F-068), and a command tree read from --help gets no safe
		// runs: what its commands do is unknown.
		{fixture: "plain", want: []string{"F-002", "F-004", "F-015", "F-048", "O-041"}},
		// bareexit is plain whose bare invocation exits 1: F-068 as well.
		{fixture: "bareexit", want: []string{"F-002", "F-004", "F-015", "F-048", "F-068", "O-041"}},
		// crash panics whatever it is asked: help and version fail (F-048,
		// F-068); no manifest (O-041). Its failure never names a made-up
		// word, so it says nothing of what it does with one: the bad-input
		// requirements are not judged (issue 35: a crash counted as a
		// refusal). The stack trace goes to stderr, which is where it
		// belongs (F-006 holds).
		{fixture: "crash", want: []string{"F-048", "F-068", "O-041"}},
		// garbage prints 10 MB that are not JSON and exits 0, whatever it
		// is asked: help and version are garbage (F-048, F-068), no
		// manifest (O-041). `garbage <made-up flag> --help` exits 0, so a
		// made-up flag alone, which could run a command, is never given:
		// the bad-input requirements are not judged.
		{fixture: "garbage", want: []string{"F-048", "F-068", "O-041"}},
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
			if report.OK() != (len(tt.want) == 0 || tt.ok) {
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

// TestProbesStayInTheSandbox checks a CLI that installs itself and opens a
// browser when given a flag it does not know, and acts on words its help
// does not list. The checker gives it no made-up flag alone (it takes
// them), runs no undocumented word, and the programs it reaches for are
// the sandbox's sentinels, which refuse and report: the real ones, first on
// the test's own PATH, never run.
func TestProbesStayInTheSandbox(t *testing.T) {
	bin := buildAll(t, "./testdata/fixtures/installer")["installer"]
	outside := t.TempDir()
	real := filepath.Join(outside, "bin")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"npm", "xdg-open"} {
		script := "#!/bin/sh\necho \"$@\" >" + filepath.Join(outside, name+".ran") + "\n"
		if err := os.WriteFile(filepath.Join(real, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", real+string(filepath.ListSeparator)+os.Getenv("PATH"))
	mark := filepath.Join(outside, "mark")
	report, err := conformance.Check(context.Background(), conformance.Target{Path: bin, Env: []string{"INSTALLER_MARK=" + mark}}, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ran := range []string{"npm.ran", "xdg-open.ran", "mark"} {
		if b, err := os.ReadFile(filepath.Join(outside, ran)); err == nil {
			t.Errorf("%s exists outside the sandbox: %q", ran, b)
		}
	}
	got := map[string]conformance.RequirementResult{}
	for _, res := range report.Results {
		got[res.ID] = res
	}
	for id, want := range map[string]string{"F-029": "npm install -g installer@latest", "F-057": "xdg-open https://example.com/installer"} {
		res := got[id]
		if res.Status != conformance.Fail || len(res.Failures) == 0 || !strings.Contains(res.Failures[0].Evidence, want) {
			t.Errorf("%s: %s %+v, want a failure naming %q", id, res.Status, res.Failures, want)
		}
	}
	if res := got["F-002"]; res.Status != conformance.NotJudged {
		t.Errorf("F-002: %s, want not judged (a made-up flag alone would run the command)\n%s", res.Status, evidence(report))
	}
	if report.Discovery != "help" {
		t.Errorf("commands discovered from %s, want help", report.Discovery)
	}
}

// TestNoVerdictWithoutARun checks targets that never work: a program that
// always fails, one that crashes at start-up and a path that cannot be run.
// Each fails, and what only a working target could show (a pager, a
// browser, the network, line endings) is not judged rather than passed.
func TestNoVerdictWithoutARun(t *testing.T) {
	bins := buildAll(t, "./testdata/fixtures/...")
	crash, plain := bins["crash"], bins["plain"]
	falsePath, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false(1) here")
	}
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// plain shows its help and version, and its commands' names do not say
	// they only read, so none is run: nothing it does when it works is seen.
	for name, path := range map[string]string{"false": falsePath, "crash": crash, "not-executable": notExec, "missing": "./no-such-tool", "plain": plain} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			report, err := conformance.Check(context.Background(), conformance.Target{Path: path}, conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if report.OK() || report.Score.Passed > 0 && name != "crash" && name != "plain" {
				t.Errorf("OK() = %v, %d passed; failed %v\n%s", report.OK(), report.Score.Passed, report.Failed(), evidence(report))
			}
			for _, res := range report.Results {
				if slices.Contains([]string{"F-010", "F-055", "F-057", "F-029", "F-072"}, res.ID) && res.Status != conformance.NotJudged {
					t.Errorf("%s is %s, want not judged: nothing the target does when it works was seen", res.ID, res.Status)
				}
			}
		})
	}
}

// TestReadOnlyCommandsAreRun: the behaviour of a CLI's commands is judged
// only where they run. pager's show pipes through $PAGER even on a pipe.
// Read from its help, show is run unasked — its name says it reads — and
// fails F-010, as it does when the caller names it read-only (issue 35:
// read from help alone, it passed F-010 with nothing run).
func TestReadOnlyCommandsAreRun(t *testing.T) {
	bin := buildAll(t, "./testdata/fixtures/pager")["pager"]
	for _, tt := range []struct {
		readOnly [][]string
		want     conformance.Status
	}{
		{nil, conformance.Fail},
		{[][]string{{"show"}}, conformance.Fail},
	} {
		report, err := conformance.Check(context.Background(), conformance.Target{Path: bin}, conformance.Options{ReadOnly: tt.readOnly})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range report.Results {
			// The failure names the run that started the pager.
			if res.ID == "F-010" && (res.Status != tt.want || tt.want == conformance.Fail && !strings.Contains(res.Failures[0].Evidence, "$PAGER was run") ||
				tt.want == conformance.Fail && !strings.Contains(res.Failures[0].Evidence, "pager show`")) {
				t.Errorf("read-only %v: F-010 %s %+v, want %s", tt.readOnly, res.Status, res.Failures, tt.want)
			}
		}
	}
}

// TestBudget holds a check to its time budget: what it leaves out is not
// judged, never failed, and the report says what was left out. A budget
// spent before the first run judges nothing; one that ends while stdinhang
// hangs cuts that run short, which is not the target's hang (F-009).
func TestBudget(t *testing.T) {
	bins := buildAll(t, "./testdata/fixtures/...")
	tests := []struct {
		fixture        string
		budget, probe  time.Duration
		wantIncomplete string
	}{
		{fixture: "plain", budget: time.Nanosecond, wantIncomplete: "runs were not made"},
		{fixture: "conformant", budget: time.Nanosecond, wantIncomplete: "runs were not made"},
		{fixture: "stdinhang", budget: 3 * time.Second, probe: time.Minute, wantIncomplete: "the time budget of 3s ran out"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			report, err := conformance.Check(context.Background(), conformance.Target{Path: bins[tt.fixture]},
				conformance.Options{Budget: tt.budget, ProbeTimeout: tt.probe})
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Failed(); len(got) > 0 {
				t.Errorf("failed %v, want nothing failed for want of time\n%s", got, evidence(report))
			}
			if !strings.Contains(report.Incomplete, tt.wantIncomplete) {
				t.Errorf("incomplete %q, want it to say %q", report.Incomplete, tt.wantIncomplete)
			}
			budgeted := 0
			for _, r := range report.Results {
				for _, f := range append(slices.Clone(r.Failures), deref(r.Example)...) {
					if strings.Contains(f.Evidence, "time budget") {
						budgeted++
						if f.Status != conformance.NotJudged {
							t.Errorf("%s: %s for want of time, want not judged", r.ID, f.Status)
						}
					}
				}
			}
			if budgeted == 0 {
				t.Errorf("no finding says the budget left it unjudged\n%s", evidence(report))
			}
		})
	}
}

func deref(f *conformance.Finding) []conformance.Finding {
	if f == nil {
		return nil
	}
	return []conformance.Finding{*f}
}
