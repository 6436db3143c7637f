package main

import (
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfave"
)

// TestOutputMatchesDeclaredSchema runs the real handlers in-process and holds
// their data to the output schemas the commands declare.
func TestOutputMatchesDeclaredSchema(t *testing.T) {
	// The app reads TODO_FILE through urfave, from the process environment.
	t.Setenv("TODO_FILE", filepath.Join(t.TempDir(), "todo.json"))
	run := func(args ...string) *adaptertest.Result {
		t.Helper()
		app, err := urfave.Wrap(newApp())
		if err != nil {
			t.Fatal(err)
		}
		return adaptertest.Run(t, app, args)
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
}
