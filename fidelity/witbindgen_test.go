package fidelity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/fidelitytest"

	// The wrapped wit-bindgen-go is built from this checkout as the test
	// runs; importing the adapter makes go test's cache miss whenever it
	// changes.
	_ "github.com/duet-cli/duet/adapters/urfave"
)

var witBindgen once

const witPkg = "./cmd/wit-bindgen-go"

// witBuilds are wit-bindgen-go v0.7.0 (urfave/cli v3) as published, and
// wrapped with Duet: its main's `Command.Run(ctx, os.Args)` becomes
// `urfave.Exec(ctx, Command, os.Args)`, its own error printing stays as it
// was, and its `os.Exit(1)` exits with the code Duet answered with. Both take urfave/cli v3.14, which Duet needs, where
// wit-bindgen-go asks for v3.3.3: adopting Duet upgrades it, and that alone
// changes urfave's help (no "(default: false)" after a boolean flag).
func witBuilds(t *testing.T) builds {
	t.Helper()
	return witBindgen.get(t, func() (builds, error) {
		a, err := fetch("go.bytecodealliance.org", "v0.7.0")
		if err != nil {
			return builds{}, err
		}
		return a.adoptAndBuild(witPkg, "wit-bindgen-go",
			[3]string{"cmd/wit-bindgen-go/main.go", "err := Command.Run(context.Background(), os.Args)",
				"err := urfave.Exec(context.Background(), Command, os.Args)"},
			[3]string{"cmd/wit-bindgen-go/main.go", "os.Exit(1)", "os.Exit(adapters.ExitCode(err))"},
			[3]string{"cmd/wit-bindgen-go/main.go", "\t\"github.com/urfave/cli/v3\"\n",
				"\t\"github.com/urfave/cli/v3\"\n\n\t\"github.com/duet-cli/duet/adapters\"\n\t\"github.com/duet-cli/duet/adapters/urfave\"\n"})
	})
}

// TestWitBindgenOwnTests runs wit-bindgen-go's own tests of its command
// tree with that tree wrapped: code that runs the app's *cli.Command
// itself, as its tests do, gets the same answers once Duet has wrapped it.
func TestWitBindgenOwnTests(t *testing.T) {
	b := witBuilds(t)
	shim := filepath.Join(b.app.dir, "cmd", "wit-bindgen-go", "duet_wrap_test.go")
	err := os.WriteFile(shim, []byte(`package main

import (
	"os"
	"testing"

	"github.com/duet-cli/duet/adapters/urfave"
)

// TestMain wraps the app's command before its tests run it.
func TestMain(m *testing.M) {
	if _, err := urfave.Wrap(Command); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(shim)
	out, err := b.app.goCmd("test", "-count=1", "-v", "./cmd/...")
	if err != nil {
		t.Fatalf("wit-bindgen-go's tests fail with its command wrapped: %v", err)
	}
	passed := strings.Count(string(out), "--- PASS")
	if passed == 0 || strings.Contains(string(out), "--- FAIL") {
		t.Fatalf("wit-bindgen-go's tests with its command wrapped:\n%s", out)
	}
	t.Logf("wit-bindgen-go's own tests pass with its command wrapped: %d", passed)
}

const demoWIT = `package example:demo@0.1.0;

interface greeter {
  record person { name: string, age: u32 }
  enum mood { happy, sad }
  greet: func(p: person) -> string;
  count: func() -> u64;
}

interface logger {
  log: func(msg: string);
}

world app {
  import logger;
  export greeter;
}

world tiny {
  import logger;
}
`

// witCases are wit-bindgen-go invocations as people type them (none that
// reaches the network: a path that is no file is taken for an OCI image).
var witCases = [][]string{
	{},
	{"version"},
	{"--version"},
	{"help", "wit"},
	{"wit", "--help"},
	{"wit", "demo.wit"},
	{"wit", "-w", "tiny", "demo.wit"},
	{"--force-wit", "wit", "-i", "logger", "demo.wit"},
	{"generate", "--dry-run", "-p", "example.com/b", "demo.wit"},
	{"go", "-o", "out", "-p", "example.com/out", "--versioned", "--generate-wit", "demo.wit"},
	{"wit", "-w", "a", "-w", "b", "demo.wit"},
	{"wit", "--nope", "demo.wit"},
	{"wit", "-w", "missing", "demo.wit"},
	{"generate", "-o", "demo.wit", "demo.wit"},
	{"wit", "a.wit", "b.wit"},
	{"nope"},
}

func witCase(args []string) fidelitytest.Case {
	return fidelitytest.Case{Args: args, Files: map[string]string{"demo.wit": demoWIT, "a.wit": demoWIT, "b.wit": demoWIT}}
}

// TestWitBindgenScript: a script gets from the wrapped wit-bindgen-go what
// it gets from wit-bindgen-go, generated files included.
func TestWitBindgenScript(t *testing.T) {
	b := witBuilds(t)
	for _, args := range witCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForScript(t, b.bare, b.wrapped, witCase(args))
		})
	}
}

// TestWitBindgenPerson: a person at a terminal sees the same.
func TestWitBindgenPerson(t *testing.T) {
	b := witBuilds(t)
	for _, args := range witCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			fidelitytest.SameForPerson(t, b.bare, b.wrapped, witCase(args), "")
		})
	}
}

// TestWitBindgenAgent: an agent gets one envelope, with what the command
// printed, and the files it writes.
func TestWitBindgenAgent(t *testing.T) {
	b := witBuilds(t)
	tests := []struct {
		args []string
		exit int
		code string
	}{
		{args: []string{"wit", "demo.wit"}},
		{args: []string{"generate", "--dry-run", "-p", "example.com/b", "demo.wit"}},
		{args: []string{"go", "-o", "out", "-p", "example.com/out", "demo.wit"}},
		{args: []string{"wit", "-w", "missing", "demo.wit"}, exit: 1, code: "GENERAL_ERROR"},
		{args: []string{"wit", "--nope", "demo.wit"}, exit: 2, code: "UNKNOWN_FLAG"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForAgent(t, b.bare, b.wrapped, witCase(tt.args), tt.exit, tt.code)
		})
	}
}
