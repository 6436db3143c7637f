package fidelity

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/fidelitytest"

	// The wrapped yq is built from this checkout as the test runs;
	// importing the adapter makes go test's cache miss whenever it changes.
	_ "github.com/duet-cli/duet/adapters/cobra"
)

var yq once

// yqBuilds are yq v4.54.2 as published, and wrapped with Duet in one line:
// its main's `cmd.Execute()` becomes `duetcobra.Main(cmd, ...)` (and the
// imports name Duet's packages).
func yqBuilds(t *testing.T) builds {
	t.Helper()
	return yq.get(t, func() (builds, error) {
		a, err := fetch("github.com/mikefarah/yq/v4", "v4.54.2")
		if err != nil {
			return builds{}, err
		}
		return a.adoptAndBuild(".", "yq",
			[3]string{"yq.go", "\tif err := cmd.Execute(); err != nil {\n\t\tos.Exit(1)\n\t}\n",
				"\tduetcobra.Main(cmd, adapters.WithVersion(\"v4.54.2\"))\n"},
			[3]string{"yq.go", "\tcommand \"github.com/mikefarah/yq/v4/cmd\"",
				"\t\"github.com/duet-cli/duet/adapters\"\n\tduetcobra \"github.com/duet-cli/duet/adapters/cobra\"\n\tcommand \"github.com/mikefarah/yq/v4/cmd\""})
	})
}

var (
	ran      = regexp.MustCompile(`(?m)^Ran (\d+) tests?\.`)
	failures = regexp.MustCompile(`failures=(\d+)`)
)

// acceptance runs yq's acceptance suite (acceptance_tests/*.sh, on the
// shunit2 it bundles) with bin as ./yq, and returns how many tests ran and
// how many failed, and the output of the scripts that had failures.
func acceptance(t *testing.T, b builds, bin string) (total, failed int, report string) {
	t.Helper()
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.app.dir, "yq"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(b.app.dir, "acceptance_tests", "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no acceptance tests in %s: %v", b.app.dir, err)
	}
	for _, script := range scripts {
		cmd := exec.Command("bash", script)
		cmd.Dir = b.app.dir
		cmd.Env = fidelitytest.Environ(t.TempDir(), "SHUNIT_COLOR=none")
		out, _ := cmd.CombinedOutput() // shunit2 exits non-zero on a failure; its report says which
		m := ran.FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s reported no tests:\n%s", filepath.Base(script), out)
		}
		n, _ := strconv.Atoi(string(m[1]))
		total += n
		if f := failures.FindSubmatch(out); f != nil {
			k, _ := strconv.Atoi(string(f[1]))
			failed += k
			report += filepath.Base(script) + ":\n" + string(out) + "\n"
		}
	}
	return total, failed, report
}

// TestYQAcceptanceSuite runs yq's own acceptance suite against the
// published build and the wrapped one: every test passes with both.
func TestYQAcceptanceSuite(t *testing.T) {
	b := yqBuilds(t)
	total, failed, report := acceptance(t, b, b.bare)
	if failed > 0 || total == 0 {
		t.Fatalf("the published yq fails %d of its %d acceptance tests here: the suite cannot judge the wrapped one\n%s", failed, total, report)
	}
	wtotal, wfailed, wreport := acceptance(t, b, b.wrapped)
	t.Logf("yq's acceptance suite: published %d/%d pass, wrapped %d/%d", total-failed, total, wtotal-wfailed, wtotal)
	if wfailed > 0 || wtotal != total {
		t.Errorf("wrapped, yq fails %d of %d acceptance tests (published: 0 of %d)\n%s", wfailed, wtotal, total, wreport)
	}
}

const sampleYAML = `# the sample
name: yq
tags: [cli, yaml]
owner:
  login: mikefarah
  repos: 42
`

const sampleJSON = `{"a": 1, "b": {"c": [1, 2, 3]}, "d": "text"}`

const frontMatter = "---\ntitle: Post\ndraft: true\n---\n# Heading\nBody.\n"

// yqFiles are the files every yq invocation finds in its directory.
var yqFiles = map[string]string{
	"sample.yml":   sampleYAML,
	"data.json":    sampleJSON,
	"post.md":      frontMatter,
	"expr.yq":      ".owner.login\n",
	"multi.yml":    "a: 1\n---\na: 2\n",
	"items.csv":    "name,count\napple,3\npear,5\n",
	"broken.yml":   "a: [1, 2\n",
	"dir/.keep":    "",
	"in-place.yml": "a: 1\n",
}

// yqCases are yq invocations as people type them: reading files, choosing
// formats, short flags grouped and with attached values, editing in place,
// splitting output into files, exit codes, errors, help and completion.
var yqCases = [][]string{
	{".name", "sample.yml"},
	{"sample.yml"},
	{"e", ".tags[0]", "sample.yml"},
	{"eval", ".owner", "sample.yml"},
	{"-oj", ".", "sample.yml"},
	{"-o", "json", "-I0", ".", "sample.yml"},
	{"-o=json", ".owner", "sample.yml"},
	{"-I4", "-oj", ".", "data.json"},
	{"-Poy", ".", "data.json"},
	{"-P", ".b", "data.json"},
	{"-p", "json", "-o", "yaml", ".b.c", "data.json"},
	{"-r", ".d", "data.json"},
	{"-r=false", ".d", "data.json"},
	{"-pc", "-oj", ".", "items.csv"},
	{"-n", ".a = 1"},
	{"-n", ".a.b = \"c\" | .a.d = [1, 2]"},
	{"-N", ".a", "multi.yml"},
	{"ea", ".", "multi.yml"},
	{"eval-all", "select(fi == 0) * select(fi == 1)", "multi.yml", "sample.yml"},
	{"--from-file", "expr.yq", "sample.yml"},
	{"--expression", ".name", "sample.yml"},
	{"-i", ".a = 2", "in-place.yml"},
	{"-s", "\"out_\" + .name", ".", "sample.yml"},
	{"-e", ".missing", "sample.yml"},
	{"-e", ".name", "sample.yml"},
	{"-0", ".tags[]", "sample.yml"},
	{"-f", "extract", ".title", "post.md"},
	{"-f", "process", ".draft = false", "post.md"},
	{"--", ".name", "sample.yml"},
	{"-M", ".", "sample.yml"},
	{"-C", ".owner", "sample.yml"},
	{".a[", "sample.yml"},
	{".", "missing.yml"},
	{".", "broken.yml"},
	{".", "dir"},
	{"--bogus", ".", "sample.yml"},
	{"-Z", ".", "sample.yml"},
	{"-I", "x", ".", "sample.yml"},
	{"-o"},
	{"eval", "-i", "-n", ".a"},
	{"-V"},
	{"--version"},
	{"--help"},
	{"eval", "--help"},
	{"help", "eval-all"},
	{"completion", "bash"},
	{"completion", "zsh"},
	{"__complete", "ev"},
	{"__complete", "-o", ""},
}

func yqCase(args []string) fidelitytest.Case {
	return fidelitytest.Case{Args: args, Files: yqFiles}
}

// TestYQScript: a script gets from the wrapped yq what it gets from yq.
func TestYQScript(t *testing.T) {
	b := yqBuilds(t)
	for _, args := range yqCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForScript(t, b.bare, b.wrapped, yqCase(args))
		})
	}
	t.Run("stdin", func(t *testing.T) {
		fidelitytest.SameForScript(t, b.bare, b.wrapped, fidelitytest.Case{Args: []string{".owner.repos"}, Stdin: sampleYAML})
	})
	t.Run("stdin as -", func(t *testing.T) {
		fidelitytest.SameForScript(t, b.bare, b.wrapped, fidelitytest.Case{Args: []string{"ea", ".", "sample.yml", "-"}, Stdin: "x: 1\n", Files: yqFiles})
	})
}

// TestYQPerson: a person at a terminal sees from the wrapped yq what yq
// shows (colour included).
func TestYQPerson(t *testing.T) {
	b := yqBuilds(t)
	for _, args := range yqCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			fidelitytest.SameForPerson(t, b.bare, b.wrapped, yqCase(args), "")
		})
	}
}

// TestYQAgent: an agent gets one envelope: yq's output as data, its errors
// typed.
func TestYQAgent(t *testing.T) {
	b := yqBuilds(t)
	tests := []struct {
		args []string
		exit int
		code string
	}{
		{args: []string{".name", "sample.yml"}},
		{args: []string{"-oj", ".", "sample.yml"}},
		{args: []string{"-P", ".b", "data.json"}},
		{args: []string{"-n", ".a = 1"}},
		{args: []string{"-i", ".a = 2", "in-place.yml"}},
		{args: []string{".", "missing.yml"}, exit: 5, code: "NOT_FOUND"},
		{args: []string{".a[", "sample.yml"}, exit: 1, code: "GENERAL_ERROR"},
		{args: []string{"--bogus", "-Z", ".", "sample.yml"}, exit: 2, code: "VALIDATION_FAILED"},
		{args: []string{"-I", "x", ".", "sample.yml"}, exit: 2, code: "INVALID_FLAG_VALUE"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForAgent(t, b.bare, b.wrapped, yqCase(tt.args), tt.exit, tt.code)
		})
	}
}
