package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfave"
)

// TestOutputMatchesDeclaredSchema runs the real handlers in-process and holds
// their data to the output schemas the commands declare.
func TestOutputMatchesDeclaredSchema(t *testing.T) {
	// The file comes from the environment the adapter is given, not the
	// process's; HOME and XDG_DATA_HOME point into the test's own directory
	// too, so that if it ever did not, no real to-do file would be touched.
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_DATA_HOME", dir)
	env := []string{"TODO_FILE=" + filepath.Join(dir, "todo.json"), "TODO_CONFIG_DIR=" + filepath.Join(dir, "config")}
	run := func(args ...string) *adaptertest.Result {
		t.Helper()
		app, err := urfave.Wrap(newApp())
		if err != nil {
			t.Fatal(err)
		}
		return adaptertest.Run(t, app, args, env...)
	}
	for _, args := range [][]string{
		{"add", "write the docs", "--tag", "docs", "--priority", "high"},
		{"add", "ship it"},
		{"list"},
		{"list", "--status", "all", "--limit", "1"},
		{"show", "t1"},
		{"done", "t2"},
		{"done", "t2"},
	} {
		res := run(args...)
		res.AssertOK(t)
		res.AssertOutputSchema(t)
	}
	run("show", "t9").AssertError(t, 5, "TODO_NOT_FOUND")
}

func TestDeclarationsCompile(t *testing.T) {
	app, err := urfave.Wrap(newApp())
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.AssertDeclarations(t, app)
	if w := adaptertest.Warnings(app); len(w) > 0 {
		t.Errorf("declarations to fix:\n%s", strings.Join(w, "\n"))
	}
}
