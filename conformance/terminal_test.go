package conformance

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTerminalAnswers feeds a terminal what programs print, in pieces as a
// pty delivers them, and checks what it types back.
func TestTerminalAnswers(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing asked", []string{"hello\r\n", "\x1b[1mbold\x1b[0m"}, ""},
		{"device attributes", []string{"\x1b[c"}, "\x1b[?1;2c"},
		{"device attributes, 0", []string{"\x1b[0c"}, "\x1b[?1;2c"},
		{"secondary attributes", []string{"\x1b[>c"}, "\x1b[>0;10;1c"},
		{"cursor position", []string{"text\x1b[6n"}, "\x1b[1;1R"},
		{"status", []string{"\x1b[5n"}, "\x1b[0n"},
		{"version", []string{"\x1b[>0q"}, "\x1bP>|duet-check\x1b\\"},
		{"mode", []string{"\x1b[?2026$p"}, "\x1b[?2026;0$y"},
		{"keyboard", []string{"\x1b[?u"}, "\x1b[?0u"},
		{"background, BEL", []string{"\x1b]11;?\x07"}, "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"foreground, ST", []string{"\x1b]10;?\x1b\\"}, "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"},
		{"split across writes", []string{"abc\x1b[", "6", "n"}, "\x1b[1;1R"},
		{"two in one write, once each", []string{"\x1b[c\x1b[6n", "more"}, "\x1b[?1;2c\x1b[1;1R"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var shown, typed bytes.Buffer
			term := &terminal{shown: &shown, keyboard: &typed}
			for _, w := range tt.writes {
				if n, err := term.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if diff := cmp.Diff(tt.want, typed.String()); diff != "" {
				t.Errorf("typed (-want +got):\n%s", diff)
			}
			if got := shown.String(); got != strings.Join(tt.writes, "") {
				t.Errorf("shown %q", got)
			}
		})
	}
}

// TestRunAnswersTerminalQueries runs a program that asks its terminal
// where the cursor is, as gh does, and reads the answer.
func TestRunAnswersTerminalQueries(t *testing.T) {
	inv := sh(`stty raw -echo; printf '\033[6n'; dd bs=1 count=6 2>/dev/null | od -An -c; stty sane`)
	inv.PTY, inv.Timeout = true, 5*time.Second
	o := runInvocation(t.Context(), inv)
	if o.Err != nil || o.TimedOut || o.Exit != 0 {
		t.Fatalf("Run: %v, timed out %v, exit %d: %q", o.Err, o.TimedOut, o.Exit, o.Stdout)
	}
	if !bytes.Contains(o.Stdout, []byte("033   [   1   ;   1   R")) {
		t.Errorf("the program read no cursor position: %q", o.Stdout)
	}
}
