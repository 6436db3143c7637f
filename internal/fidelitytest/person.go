//go:build linux

package fidelitytest

import (
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/ptytest"
)

// AtTerminal runs bin with c on a pseudo-terminal, as a person does, and
// returns everything the terminal showed and how the program ended. When
// interrupt is not empty, Ctrl-C is typed once the terminal shows it.
// The run's working directory and HOME is dir, emptied first.
func AtTerminal(t testing.TB, dir, bin string, c Case, interrupt string) (screen string, exit int) {
	t.Helper()
	prepare(t, dir, c)
	//duetvet:allow rawexec -- runs the binary under test as a caller would
	cmd := exec.Command(bin, c.Args...)
	cmd.Dir = dir
	cmd.Env = Environ(dir, c.Env...)
	s := ptytest.Start(t, cmd)
	if c.Stdin != "" {
		s.Write(t, c.Stdin)
	}
	if interrupt != "" {
		s.WaitFor(t, interrupt)
		s.Write(t, "\x03") // the terminal sends SIGINT to the foreground group
	}
	return s.Wait(t)
}

// SameForPerson runs c with both builds at a terminal and fails the test
// unless the terminal shows the same bytes and the programs end the same
// way. With interrupt, each is interrupted once it shows that text.
func SameForPerson(t testing.TB, bare, wrapped string, c Case, interrupt string) {
	t.Helper()
	type seen struct {
		Screen string
		Exit   int
	}
	var want, got seen
	dir := t.TempDir()
	want.Screen, want.Exit = AtTerminal(t, dir, bare, c, interrupt)
	got.Screen, got.Exit = AtTerminal(t, dir, wrapped, c, interrupt)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: a person sees something else from the wrapped build (-bare +wrapped):\n%s", describe(c), diff)
	}
}
