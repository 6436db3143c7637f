// Package e2e holds jot wrapped with Duet (one line: urfave.Exec instead of
// root.Run, its main unchanged) to jot as it was (built with -tags bare): a
// person at a terminal and a script get the same bytes, exit codes and files
// from both, and an agent gets one envelope with what jot printed.
package e2e

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/fidelitytest"

	// The binaries are built as the test runs; importing what they are
	// built from makes go test's cache miss whenever it changes.
	_ "github.com/duet-cli/duet/adapters/urfave"
	_ "github.com/duet-cli/duet/examples/jot/internal/app"
)

const pkg = "github.com/duet-cli/duet/examples/jot/cmd/jot"

// notes is a notes file with three notes, one pinned.
const notes = "1\t0\thome\tbuy milk\n2\t1\twork,urgent\tship it\n3\t0\t\tcall Ann\n"

func builds(t *testing.T) (bare, wrapped string) {
	t.Helper()
	return fidelitytest.Build(t, pkg, "bare"), fidelitytest.Build(t, pkg)
}

// cases are invocations of jot the way people type them, in a directory
// holding notes, which JOT_FILE names.
var cases = []fidelitytest.Case{
	{Args: []string{"list"}},
	{Args: []string{"ls", "-l"}},                 // an alias, a short flag
	{Args: []string{"ls", "-ln", "1"}},           // grouped, the last one taking a value
	{Args: []string{"ls", "-ln1"}},               // urfave reads no value inside a group
	{Args: []string{"list", "--tag=home", "-l"}}, // = and a bare boolean
	{Args: []string{"list", "-tag", "work"}},     // one dash for a long name
	{Args: []string{"--file", "notes", "list"}},  // a global flag before the command
	{Args: []string{"list", "--file", "notes"}},  // and after it
	{Args: []string{"list", "-n", "-1"}},
	{Args: []string{"add", "water", "the", "plants", "-t", "home", "-t", "weekly"}},
	{Args: []string{"a", "-pt", "work", "send", "the", "report"}},
	{Args: []string{"add", "--pinned", "old", "flag"}}, // a deprecated flag
	{Args: []string{"add", "--", "-v", "is", "not", "a", "flag"}},
	{Args: []string{"add"}},             // cli.Exit with exit code 2
	{Args: []string{"rm", "2"}},         // an argument urfave parses (cli.IntArg)
	{Args: []string{"rm", "9"}},         // cli.Exit with exit code 4
	{Args: []string{"rm", "two"}},       // urfave refuses the argument
	{Args: []string{"del", "1"}},        // a deprecated, hidden command
	{Args: []string{"-v"}},              // urfave's version flag
	{Args: []string{"--version"}},       //
	{Args: []string{"h"}},               // urfave's help command, by its alias
	{Args: []string{"help", "list"}},    //
	{Args: []string{"list", "--help"}},  //
	{Args: []string{}},                  // a group shows its help
	{Args: []string{"nope"}},            // No help topic, exit 3
	{Args: []string{"list", "--bogus"}}, // urfave's usage error, then jot's main prints it
	{Args: []string{"list", "-n"}},      // a flag without its value
	{Args: []string{"list", "--limit", "x"}},
	{Args: []string{"--file"}},
	{Args: []string{"tail", "--every", "soon"}},
}

func prepare(c fidelitytest.Case) fidelitytest.Case {
	c.Files = map[string]string{"notes": notes}
	if len(c.Env) == 0 {
		c.Env = []string{"JOT_FILE=notes"}
	}
	return c
}

func TestScript(t *testing.T) {
	bare, wrapped := builds(t)
	for _, c := range cases {
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForScript(t, bare, wrapped, prepare(c))
		})
	}
}

func TestPerson(t *testing.T) {
	bare, wrapped := builds(t)
	for _, c := range cases {
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			fidelitytest.SameForPerson(t, bare, wrapped, prepare(c), "")
		})
	}
}

// TestInterrupt: Ctrl-C ends a command that runs until it is stopped as it
// ends it unwrapped — at once, killed by SIGINT — since nobody ported it.
func TestInterrupt(t *testing.T) {
	bare, wrapped := builds(t)
	fidelitytest.SameForPerson(t, bare, wrapped, prepare(fidelitytest.Case{Args: []string{"tail"}}), "call Ann")
}

// TestAgent: one envelope whatever jot printed, with what it printed in
// data and a typed exit code.
func TestAgent(t *testing.T) {
	bare, wrapped := builds(t)
	tests := []struct {
		args []string
		exit int
		code string // error.code when it fails
	}{
		{args: []string{"list"}},
		{args: []string{"ls", "-l"}},
		{args: []string{"add", "water", "the", "plants"}},
		{args: []string{"rm", "2"}},
		{args: []string{"rm", "9"}, exit: 4, code: "APP_EXIT"}, // cli.Exit(…, 4): the code a script gets
		{args: []string{"rm", "two"}, exit: 2, code: "INVALID_ARGUMENT"},
		{args: []string{"nope"}, exit: 2, code: "UNKNOWN_COMMAND"},
		{args: []string{"list", "--bogus", "-x"}, exit: 2, code: "VALIDATION_FAILED"},
		{args: []string{"list", "--limit", "x"}, exit: 2, code: "INVALID_FLAG_VALUE"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForAgent(t, bare, wrapped, prepare(fidelitytest.Case{Args: tt.args}), tt.exit, tt.code)
		})
	}
}
