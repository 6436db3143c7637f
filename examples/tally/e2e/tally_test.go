// Package e2e holds tally wrapped with Duet (one line: duetcobra.Main
// instead of root.Execute) to tally as it was (built with -tags bare): a
// person at a terminal and a script get the same bytes, exit codes and
// files from both, and an agent gets one envelope with what tally printed.
package e2e

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/fidelitytest"

	// The binaries are built as the test runs; importing what they are
	// built from makes go test's cache miss whenever it changes.
	_ "github.com/duet-cli/duet/adapters/cobra"
	_ "github.com/duet-cli/duet/examples/tally/internal/app"
)

const pkg = "github.com/duet-cli/duet/examples/tally/cmd/tally"

const text = "one two two\nthree Two\n"

func builds(t *testing.T) (bare, wrapped string) {
	t.Helper()
	return fidelitytest.Build(t, pkg, "bare"), fidelitytest.Build(t, pkg)
}

// cases are invocations of tally the way people type them.
var cases = []fidelitytest.Case{
	{Args: []string{"t.txt"}},                   // the default command, chosen with SetArgs
	{Args: []string{"count", "t.txt", "t.txt"}}, // a total line
	{Args: []string{"wc", "-lw", "t.txt"}},      // an alias, grouped shorts
	{Args: []string{"count", "-l", "-c", "--", "t.txt"}},
	{Args: []string{"count"}, Stdin: text},
	{Args: []string{"-w"}, Stdin: text},
	{Args: []string{"top", "-n2", "t.txt"}}, // a short flag's value attached
	{Args: []string{"top", "-in", "1", "t.txt"}},
	{Args: []string{"top", "--number=3", "--ignore-case", "t.txt"}},
	{Args: []string{"top", "t.txt", "-n", "1"}}, // a flag after the argument
	{Args: []string{"top", "a", "b"}},           // too many arguments (cobra.MaximumNArgs)
	{Args: []string{"top", "-n", "0", "t.txt"}},
	{Args: []string{"top", "-n", "two"}},
	{Args: []string{"top", "-n"}},
	{Args: []string{"words", "t.txt"}},            // a deprecated command
	{Args: []string{"count", "--bytes", "t.txt"}}, // a deprecated flag
	{Args: []string{"case", "upper"}, Stdin: text},
	{Args: []string{"case", "middle"}}, // cobra.OnlyValidArgs
	{Args: []string{"case"}},
	{Args: []string{"version"}},
	{Args: []string{"version", "extra"}}, // cobra.NoArgs
	{Args: []string{"missing.txt"}},
	{Args: []string{"count", "--nope", "t.txt"}},
	{Args: []string{"count", "-x"}},
	{Args: []string{"--help"}},
	{Args: []string{"help", "top"}},
	{Args: []string{"top", "-h"}},
	{Args: []string{"completion", "bash"}},
	{Args: []string{"__complete", "to"}},
	{Args: []string{"follow"}},
}

func withFiles(c fidelitytest.Case) fidelitytest.Case {
	c.Files = map[string]string{"t.txt": text}
	return c
}

func TestScript(t *testing.T) {
	bare, wrapped := builds(t)
	for _, c := range cases {
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			t.Parallel()
			fidelitytest.SameForScript(t, bare, wrapped, withFiles(c))
		})
	}
}

func TestPerson(t *testing.T) {
	bare, wrapped := builds(t)
	for _, c := range cases {
		if c.Stdin != "" {
			continue // a person types at the terminal: see TestPersonTypes
		}
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			fidelitytest.SameForPerson(t, bare, wrapped, withFiles(c), "")
		})
	}
}

// TestPersonTypes: text typed at the terminal, ended with ^D.
func TestPersonTypes(t *testing.T) {
	bare, wrapped := builds(t)
	fidelitytest.SameForPerson(t, bare, wrapped, fidelitytest.Case{Args: []string{"count", "-w"}, Stdin: "typed words here\n\x04"}, "")
}

// TestInterrupt: Ctrl-C ends a command that runs until it is stopped as it
// ends it unwrapped — at once, killed by SIGINT — since nobody ported it.
func TestInterrupt(t *testing.T) {
	bare, wrapped := builds(t)
	c := withFiles(fidelitytest.Case{Args: []string{"follow", "t.txt"}})
	fidelitytest.SameForPerson(t, bare, wrapped, c, "2 lines")
}

// TestAgent: one envelope whatever tally printed, with what it printed in
// data and a typed exit code.
func TestAgent(t *testing.T) {
	bare, wrapped := builds(t)
	tests := []struct {
		args  []string
		stdin string
		exit  int
		code  string // error.code when it fails
		warn  string // the start of its one warning
	}{
		{args: []string{"t.txt"}},
		{args: []string{"top", "-n2", "t.txt"}},
		{args: []string{"count"}, stdin: text},
		{args: []string{"words", "t.txt"}, warn: `WARNING [DEPRECATED]: command "words" is deprecated. Next: use 'tally count -w'`},
		{args: []string{"count", "--bytes", "t.txt"}, warn: "WARNING [DEPRECATED]: flag --bytes is deprecated. Next: use -c"},
		{args: []string{"version"}},
		{args: []string{"missing.txt"}, exit: 5, code: "NOT_FOUND"},
		{args: []string{"top", "a", "b"}, exit: 2, code: "WRONG_ARGUMENT_COUNT"},
		{args: []string{"case", "middle"}, exit: 2, code: "INVALID_ARGUMENT"},
		{args: []string{"count", "--nope", "-x", "t.txt"}, exit: 2, code: "VALIDATION_FAILED"},
		{args: []string{"top", "-n", "0", "t.txt"}, exit: 1, code: "GENERAL_ERROR"},
		{args: []string{"bogus", "extra"}, exit: 5, code: "NOT_FOUND"}, // tally's main makes it `count bogus extra`
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			c := withFiles(fidelitytest.Case{Args: tt.args, Stdin: tt.stdin})
			env := fidelitytest.SameForAgent(t, bare, wrapped, c, tt.exit, tt.code)
			if tt.warn != "" && (len(env.Warnings) != 1 || !strings.HasPrefix(env.Warnings[0].String(), tt.warn)) {
				t.Errorf("warnings %q, want one starting %q", env.Warnings, tt.warn)
			}
		})
	}
}
