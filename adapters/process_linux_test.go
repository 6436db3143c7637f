//go:build linux

package adapters_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/ptytest"
)

// TestEditorAtATerminal: at a terminal, a child a command starts finds the
// person's editors as they were (REQ-F-055).
func TestEditorAtATerminal(t *testing.T) {
	if inProcess() {
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	p := ptytest.Start(t, processCmd(t, "child-env", "EDITOR=vim", "VISUAL=code", "TERM=dumb"))
	screen, code := p.Wait(t)
	if code != 0 || !strings.Contains(screen, "vim,code,") {
		t.Errorf("exit %d, screen %q; want the editors as they were", code, screen)
	}
}
