//go:build linux

package completion_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/ptytest"
)

// An interactive shell on a pseudo-terminal completes as it does for a
// person: the test types a line and Tab, then Enter, and the shell runs the
// line. There notes is a shell function that prints its arguments between
// ARGS<n>< and >, so the test reads what completion left on the line.

// shellSession is an interactive shell on a pseudo-terminal.
type shellSession struct {
	p *ptytest.Session
	n int // lines run so far
}

func startShell(t *testing.T, dir string, env []string, argv ...string) *shellSession {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	return &shellSession{p: ptytest.Start(t, cmd)}
}

// do types input and waits for the shell to print want.
func (s *shellSession) do(t *testing.T, input, want string) {
	t.Helper()
	s.p.Write(t, input)
	s.p.WaitFor(t, want)
}

// complete types line, Tab and Enter, and returns the arguments notes ran
// with: the line as completion left it, less the command.
func (s *shellSession) complete(t *testing.T, line string) string {
	t.Helper()
	s.n++
	s.p.Write(t, line+"\t\r")
	ran := regexp.MustCompile(fmt.Sprintf(`ARGS%d<([^>\r\n]*)>`, s.n))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := ran.FindStringSubmatch(s.p.Output()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q: the shell never ran the line; the terminal shows %q", line, s.p.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBashReadline drives the bash script through readline itself, as a
// Tab does: bash splits the line (at = too), calls the script, and inserts
// the one candidate, quoting it and marking a directory as readline does.
func TestBashReadline(t *testing.T) {
	t.Parallel()
	bash := needShell(t, "bash")
	file := scriptFile(t, "bash")
	s := startShell(t, filesDir(t), shellEnv(t), bash, "--norc", "--noprofile", "-i")
	s.do(t, `PS1='$ '; n=0; notes() { n=$((n + 1)); printf 'ARGS%s<%s>\n' $n "$*"; }; source `+file+"; echo READ''Y\r", "READY")
	tests := []struct{ line, want string }{
		{"notes li", "list"},
		{"notes note tag s", "note tag set"},
		{"notes list --status=o", "list --status=open"},
		{"notes list -s d", "list -s done"},
		{"notes note tag set n1 gr", "note tag set n1 green"},
		{"notes --dir nes", "--dir nested/"},
		{"notes --colour=ne", "--colour=never"},
		{"notes se", "setup"}, // not the hidden secret
	}
	for _, tt := range tests {
		if got := s.complete(t, tt.line); got != tt.want {
			t.Errorf("%q completed to %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestZshLoads loads the zsh script both ways a person can: sourced after
// compinit, and autoloaded by compinit from $fpath as _notes, its #compdef
// line naming the command it completes.
func TestZshLoads(t *testing.T) {
	t.Parallel()
	zsh := needShell(t, "zsh")
	file := scriptFile(t, "zsh")
	fpath := t.TempDir()
	if err := os.Link(file, filepath.Join(fpath, "_notes")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, script string }{
		{"sourced", `autoload -U compinit && compinit -u -D && source "$1" && print -r -- $_comps[notes]`},
		{"fpath", `fpath=("$2" $fpath) && autoload -U compinit && compinit -u -D && print -r -- $_comps[notes]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // compinit reads every function on $fpath: seconds
			cmd := exec.Command(zsh, "-f", "-c", tt.script, "zsh", file, fpath)
			cmd.Env = shellEnv(t)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 || strings.TrimSpace(string(out)) != "_notes" {
				t.Errorf("zsh: %v: stdout %q (want _notes), stderr %q", err, out, stderr.String())
			}
		})
	}
}

// captureCompadd wraps zsh's compadd, which every completion function ends
// in, so that it also appends the candidates it adds, matched against the
// word at the cursor, to the file $CAPTURE. Calls that only ask (-O, -A, -D)
// go through untouched.
const captureCompadd = `compadd() {
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "$@"
		return
	fi
	local -a hits
	builtin compadd -O hits "$@"
	(($#hits)) && print -rl -- $hits >>$CAPTURE
	builtin compadd "$@"
}`

// TestZsh drives the zsh script through zsh's line editor and completion
// system, as a Tab does: the candidates zsh offered, and what it put on the
// line. It runs the cases bash and fish run, and the --flag=value form that
// zsh keeps as one word.
func TestZsh(t *testing.T) {
	t.Parallel()
	zsh := needShell(t, "zsh")
	file := scriptFile(t, "zsh")
	capture := filepath.Join(t.TempDir(), "capture")
	s := startShell(t, filesDir(t), append(shellEnv(t), "CAPTURE="+capture), zsh, "-f", "-i")
	s.do(t, "PROMPT='%% '; autoload -U compinit; compinit -u -D; source "+file+"\r", "% ")
	s.do(t, captureCompadd+"\r", "% ")
	s.do(t, `n=0; notes() { print -r -- "ARGS$((++n))<$*>" }; print READ''Y`+"\r", "READY")
	more := []completionCase{
		{"notes list --status=", []string{"all", "done", "open"}},
		{"notes list --status=o", []string{"open"}},
		{"notes --dir n", []string{"nested", "notes.txt"}},
		{"notes note add n", []string{"nested", "notes.txt"}},
	}
	for _, tt := range append(cases, more...) {
		if err := os.WriteFile(capture, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		s.complete(t, tt.line)
		raw, err := os.ReadFile(capture)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Compact(sorted(strings.Fields(string(raw)))) // _files may add a name twice
		if diff := cmp.Diff(sorted(tt.want), got); diff != "" {
			t.Errorf("zsh offered for %q (-want +got):\n%s", tt.line, diff)
		}
	}
	inserted := []struct{ line, want string }{
		{"notes li", "list"},
		{"notes note tag set n1 gr", "note tag set n1 green"},
		{"notes list --status=o", "list --status=open"},
		{"notes --dir nes", "--dir nested"}, // zsh drops the / it added on Enter
	}
	for _, tt := range inserted {
		if got := s.complete(t, tt.line); got != tt.want {
			t.Errorf("%q completed to %q, want %q", tt.line, got, tt.want)
		}
	}
}
