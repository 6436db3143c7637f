package fidelity

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/fidelitytest"

	// The wrapped dasel is built from this checkout as the test runs;
	// importing the adapter makes go test's cache miss whenever it changes.
	_ "github.com/duet-cli/duet/adapters/cobra"
)

var dasel, daselPorted once

// daselMain wraps dasel v2.8.1 (cobra) as the README's "Adopting" says for
// an app that keeps its own main: its `cmd.Execute()` becomes
// `duetcobra.Exec(cmd)`, its error printing is kept for what Duet did not
// answer, and it exits with the code Duet answered with.
var daselMain = [][3]string{
	{"cmd/dasel/main.go", `	if err := cmd.Execute(); err != nil {
		cmd.PrintErrln("Error:", err.Error())
		os.Exit(1)
	}`, `	if err := duetcobra.Exec(cmd); err != nil {
		var answered *adapters.ExitError
		if !errors.As(err, &answered) {
			cmd.PrintErrln("Error:", err.Error())
		}
		os.Exit(adapters.ExitCode(err))
	}`},
	{"cmd/dasel/main.go", `import (
`, `import (
	"errors"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
`},
}

// daselPort ports two of dasel's commands: select (the root, which reads)
// declared safe, and put, which writes, declared mutating and reporting
// what it changed — a file updated, or nothing when it prints the result.
// Their output is dasel's own.
var daselPort = [][3]string{
	{"internal/command/put.go", `	if err := opts.Write.writeValue(cmd, opts.Read, value); err != nil {
		return err
	}
`, `	if err := opts.Write.writeValue(cmd, opts.Read, value); err != nil {
		return err
	}
	if opts.Write.FilePath != "" {
		envelope.From(cmd.Context()).Effect(envelope.Updated)
	} else {
		envelope.From(cmd.Context()).Effect(envelope.Noop)
	}
`},
	{"internal/command/put.go", "import (\n", "import (\n\t\"github.com/duet-cli/duet/envelope\"\n"},
	{"internal/command/root.go", "\t\tputCommand(),\n", "\t\tduetcobra.Annotate(putCommand(), schema.Meta{Danger: schema.Mutating}),\n"},
	{"internal/command/root.go", "\treturn selectCmd\n", "\treturn duetcobra.Annotate(selectCmd, schema.Meta{Danger: schema.Safe})\n"},
	{"internal/command/root.go", "import (\n", "import (\n\tduetcobra \"github.com/duet-cli/duet/adapters/cobra\"\n\t\"github.com/duet-cli/duet/schema\"\n"},
}

// daselVariants are dasel wrapped (one line in main), and wrapped with two
// commands ported.
var daselVariants = []struct {
	name   string
	builds func(*testing.T) builds
}{
	{"wrapped", daselBuilds},
	{"ported", daselPortedBuilds},
}

func daselBuilds(t *testing.T) builds {
	t.Helper()
	return dasel.get(t, func() (builds, error) {
		a, err := fetch("github.com/tomwright/dasel/v2", "v2.8.1")
		if err != nil {
			return builds{}, err
		}
		return a.adoptAndBuild("./cmd/dasel", "dasel", daselMain...)
	})
}

func daselPortedBuilds(t *testing.T) builds {
	t.Helper()
	return daselPorted.get(t, func() (builds, error) {
		a, err := fetchAs("github.com/tomwright/dasel/v2", "v2.8.1", "dasel-ported")
		if err != nil {
			return builds{}, err
		}
		return a.adoptAndBuild("./cmd/dasel", "dasel-ported", append(slices.Clone(daselMain), daselPort...)...)
	})
}

// TestDaselOwnTests runs dasel's own tests of its command tree — 63 calls
// that build a root, SetArgs, SetOut and Execute, each compared byte for
// byte — with every Execute routed through duetcobra.Exec: plainly, and
// with CLAUDECODE=1 set, as a coding agent runs an adopter's tests (Duet
// then answers each call; the suite must still run to its end).
func TestDaselOwnTests(t *testing.T) {
	for _, v := range daselVariants {
		b := v.builds(t)
		helper := filepath.Join(b.app.dir, "internal", "command", "root_test.go")
		orig, err := os.ReadFile(helper)
		if err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(helper, orig, 0o644)
		if err := b.app.edit("internal/command/root_test.go", "err := cmd.Execute()", "err := duetcobra.Exec(cmd)"); err != nil {
			t.Fatal(err)
		}
		if err := b.app.edit("internal/command/root_test.go", "import (\n", "import (\n\tduetcobra \"github.com/duet-cli/duet/adapters/cobra\"\n"); err != nil {
			t.Fatal(err)
		}
		b.app.ownTests(t, "dasel", v.name, "./internal/command/", "duetcobra.Exec", 70)
	}
}

const daselDoc = `{"name": "duet", "tags": ["go", "cli"], "users": [{"name": "ann", "age": 31}, {"name": "bob", "age": 42}]}`

const daselYAML = "name: duet\nport: 8080\nlist:\n  - a\n  - b\n"

// daselCases are dasel invocations as people type them.
var daselCases = [][]string{
	{},
	{"--help"},
	{"--version"},
	{"help", "put"},
	{"select", "--help"},
	{"-f", "doc.json", ".name"},
	{"-f", "doc.json", "-r", "json", ".users.[0].name"},
	{"-f", "doc.json", ".users.all().name", "--multiple"},
	{"-f", "doc.json", "-w", "yaml"},
	{"-f", "doc.yaml", ".port"},
	{"-f", "doc.yaml", "-w", "json"},
	{"-f", "doc.yaml", "-w", "toml"},
	{"select", "-f", "doc.json", ".tags"},
	{"-f", "doc.json", ".tags.[5]"},
	{"-f", "doc.json", ".nope"},
	{"-f", "missing.json", ".name"},
	{"-f", "doc.json", "--nope"},
	{"put", "-f", "doc.json", "-t", "string", "-v", "hello", ".greeting"},
	{"put", "-f", "doc.yaml", "-t", "int", "-v", "9090", ".port", "-o", "out.yaml"},
	{"delete", "-f", "doc.json", ".tags"},
	{"delete", "-f", "doc.json", ".nope.deeper"},
	{"nope"},
	{"completion", "bash"},
}

func daselCase(args []string) fidelitytest.Case {
	return fidelitytest.Case{Args: args, Files: map[string]string{"doc.json": daselDoc, "doc.yaml": daselYAML}}
}

// TestDaselScript: a script gets from the wrapped dasel what it gets from
// dasel: stdout, stderr, exit code and files. (Ported, select and put are
// held to the contract for every audience — typed errors and exit codes —
// and so differ on failure by design; TestDaselAgent runs them.)
func TestDaselScript(t *testing.T) {
	b := daselBuilds(t)
	for _, args := range daselCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForScript(t, b.bare, b.wrapped, daselCase(args))
		})
	}
}

// TestDaselPerson: a person at a terminal sees the same.
func TestDaselPerson(t *testing.T) {
	b := daselBuilds(t)
	for _, args := range daselCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			fidelitytest.SameForPerson(t, b.bare, b.wrapped, daselCase(args), "")
		})
	}
}

// TestDaselAgent: an agent gets one envelope for every invocation —
// completion included — with what dasel printed, the files it wrote, and
// dasel's exit code: its own where dasel gives one, and where dasel exits 1
// for every failure, the typed code of the failure (a missing file is 5).
// --version is the one line the CLI Agent Spec asks of it for every reader
// (REQ-F-068's wire format), not an envelope.
func TestDaselAgent(t *testing.T) {
	for _, v := range daselVariants {
		testDaselAgent(t, v.name, v.builds(t))
	}
}

func testDaselAgent(t *testing.T, variant string, b builds) {
	for _, args := range daselCases {
		t.Run(variant+"/"+strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			c := daselCase(args)
			script := fidelitytest.Run(t, b.bare, c)
			if len(args) == 1 && args[0] == "--version" {
				got := fidelitytest.Run(t, b.wrapped, fidelitytest.Case{Args: args, Env: []string{"CLAUDECODE=1"}})
				if got.Stdout != script.Stdout || got.Exit != 0 {
					t.Errorf("--version for an agent: exit %d, %q; want the one line a script gets, %q", got.Exit, got.Stdout, script.Stdout)
				}
				return
			}
			help := slices.Contains(args, "--help") || len(args) > 0 && args[0] == "help"
			switch _, got := fidelitytest.ForAgent(t, b.wrapped, c); {
			case script.Exit == 0 && help: // help goes to stderr, the envelope says meta.help
				if got.Exit != 0 || !strings.Contains(got.Stderr, "Usage:") {
					t.Errorf("%q: exit %d for an agent, help on stderr %q", args, got.Exit, got.Stderr)
				}
			case script.Exit == 0:
				fidelitytest.SameForAgent(t, b.bare, b.wrapped, c, 0, "")
			case script.Exit != 1 && got.Exit != script.Exit, script.Exit == 1 && got.Exit == 0:
				t.Errorf("%q: exit %d for an agent, %d for a script", args, got.Exit, script.Exit)
			}
		})
	}
}
