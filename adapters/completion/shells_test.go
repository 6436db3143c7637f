package completion_test

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
)

// completionCase is a command line typed up to the cursor (a trailing space:
// the cursor is on a new, empty word) and the candidates a shell offers.
type completionCase struct {
	line string
	want []string
}

// cases are asked of bash and fish alike; zsh's test asks most of them too.
var cases = []completionCase{
	{"notes ", rootCommands},
	{"notes s", []string{"setup", "status"}}, // not the hidden secret, nor sync for agents
	{"notes sec", nil},
	{"notes l", []string{"list"}},
	{"notes note ", []string{"add", "tag"}},
	{"notes note tag ", []string{"set"}},
	{"notes note tag set ", nil}, // an id: nothing to offer
	{"notes note tag set n1 ", []string{"blue", "green", "red"}},
	{"notes note tag set n1 g", []string{"green"}},
	{"notes list -", listFlags},
	{"notes ls --st", []string{"--stable-output", "--status", "--stream"}}, // by alias
	{"notes list --debug-", nil},                                           // hidden
	{"notes list --status ", []string{"all", "done", "open"}},
	{"notes list -s d", []string{"done"}},
	{"notes list --min-words ", nil},
	{"notes list --status done --c", []string{"--color", "--colour", "--cursor", "--cwd"}},
	{"notes --color never note tag ", []string{"set"}},        // a flag's value is no command
	{"notes note add --col", []string{"--color", "--colour"}}, // inherited from the root
	{"notes note add --colour a", []string{"always", "auto"}},
	{"notes note add title ", nil}, // add takes one argument
	{"notes completion ", []string{"bash", "fish", "install", "zsh"}},
	{"notes -- ", nil}, // after --, no command and no flag
	{"notes --", []string{"--color", "--colour", "--debug", "--dir", "--format", "--help", "--instance-id", "--no-update-check", "--output-schema", "--quiet", "--schema", "--show-config", "--stable-output", "--stream", "--token-count", "--token-limit", "--token-offset", "--tokenizer", "--unmask", "--verbose", "--version", "--warnings-as-errors", "--width"}},
}

// words splits a line as bash does for COMP_WORDS: at blanks, and at = (in
// COMP_WORDBREAKS by default), which becomes a word of its own.
func words(line string) []string {
	var out []string
	for _, f := range strings.Fields(line) {
		for {
			before, after, ok := strings.Cut(f, "=")
			if before != "" {
				out = append(out, before)
			}
			if !ok {
				break
			}
			out = append(out, "=")
			f = after
		}
	}
	if strings.HasSuffix(line, " ") {
		out = append(out, "")
	}
	return out
}

// TestBash sources the bash script in a real bash and calls its completion
// function as bash does on Tab — COMP_WORDS and COMP_CWORD set — then reads
// COMPREPLY.
func TestBash(t *testing.T) {
	t.Parallel()
	bash := needShell(t, "bash")
	file := scriptFile(t, "bash")
	dir := filesDir(t)
	more := []completionCase{
		{"notes list --status=", []string{"all", "done", "open"}},
		{"notes list --status=o", []string{"open"}},
		{"notes --format=j", []string{"json", "jsonl"}},
		{"notes list --status=done --li", []string{"--limit"}},
		// Files, where a string is expected: readline marks the
		// directory itself (compopt -o filenames).
		{"notes --dir n", []string{"nested", "notes.txt"}},
		{"notes --dir=n", []string{"nested", "notes.txt"}},
		{"notes note add n", []string{"nested", "notes.txt"}},
		{"notes list --output=n", []string{"nested", "notes.txt"}}, // a path, not a format
	}
	for _, tt := range append(cases, more...) {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c",
				`source "$1" || exit 9; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); __notes_complete; printf '%s\n' "${COMPREPLY[@]}"`,
				"bash", file)
			cmd.Args = append(cmd.Args, words(tt.line)...)
			cmd.Dir, cmd.Env = dir, shellEnv(t)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("bash: %v\n%s", err, stderr.String())
			}
			if diff := gocmp.Diff(sorted(tt.want), sorted(strings.Fields(string(out)))); diff != "" {
				t.Errorf("COMPREPLY for %q (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// TestFish loads the fish script in a real fish and asks it what it offers
// with complete -C, as fish does on Tab (fish filters by the word typed).
func TestFish(t *testing.T) {
	t.Parallel()
	fish := needShell(t, "fish")
	file := scriptFile(t, "fish")
	dir := filesDir(t)
	more := []completionCase{
		{"notes list --status=", []string{"--status=all", "--status=done", "--status=open"}},
		{"notes list --status=o", []string{"--status=open"}},
		{"notes --dir n", []string{"nested/", "notes.txt"}}, // fish marks a directory
		{"notes note add n", []string{"nested/", "notes.txt"}},
		{"notes list --output n", []string{"nested/", "notes.txt"}}, // a path, not a format
	}
	for _, tt := range append(cases, more...) {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(fish, "--no-config", "-c", `source $argv[1]; or exit 9; complete -C $argv[2]`, file, tt.line)
			cmd.Dir, cmd.Env = dir, shellEnv(t)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("fish: %v\n%s", err, stderr.String())
			}
			// Where nothing starts with the word typed, fish offers what
			// contains it, or its letters in order ("sec" finds
			// describe): fish's matching, not the script's offer.
			word := tt.line[strings.LastIndex(tt.line, " ")+1:]
			var got []string
			for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
				name, _, _ := strings.Cut(l, "\t") // the description follows a tab
				if name != "" && strings.HasPrefix(name, word) {
					got = append(got, name)
				}
			}
			if diff := gocmp.Diff(sorted(tt.want), sorted(got)); diff != "" {
				t.Errorf("complete -C %q (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// TestInstall writes the script where each shell loads it, for the shell
// named or $SHELL's: the script completion <shell> prints, again unchanged;
// a real fish, started with that home, completes the app with no script
// sourced by hand.
func TestInstall(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "SHELL=/usr/bin/fish"}
	inst := func(args ...string) (string, int) {
		t.Helper()
		var out, errs strings.Builder
		code := adapters.Run(context.Background(), wrap(t), append([]string{"completion", "install"}, args...),
			adapters.WithStdio(strings.NewReader(""), &out, &errs), adapters.WithEnv(env),
			adapters.WithTerminal(adapters.Console), adapters.WithSpecStrict())
		return out.String() + errs.String(), code
	}
	for _, tc := range []struct{ shell, path string }{
		{"", ".config/fish/completions/notes.fish"}, // $SHELL's
		{"bash", ".local/share/bash-completion/completions/notes"},
		{"zsh", ".zfunc/_notes"},
	} {
		var args []string
		if tc.shell != "" {
			args = []string{"--shell", tc.shell}
		}
		out, code := inst(args...)
		shell := cmp.Or(tc.shell, "fish")
		raw, err := os.ReadFile(filepath.Join(home, tc.path))
		if code != 0 || err != nil || string(raw) != script(t, shell) || !strings.Contains(out, "Installed") {
			t.Errorf("install %s: exit %d, %q; %s: %v", shell, code, out, tc.path, err)
		}
		if out, _ := inst("--shell", shell); !strings.Contains(out, "already") {
			t.Errorf("install %s again: %q, want it said installed already", shell, out)
		}
	}
	env = []string{"HOME=" + home, "SHELL=/bin/tcsh"}
	if out, code := inst(); code != 2 || !strings.Contains(out, "tcsh") {
		t.Errorf("install for tcsh: exit %d, %q", code, out)
	}
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not installed: the installed script is not loaded by a real fish")
	}
	// fish loads a command's completions when the command is on PATH.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "notes"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fish, "-c", `complete -C "notes completion "`)
	cmd.Env = []string{"HOME=" + home, "PATH=" + bin + ":" + os.Getenv("PATH"), "TERM=xterm"}
	got, err := cmd.Output()
	if err != nil || !strings.Contains(string(got), "install") || !strings.Contains(string(got), "bash") {
		t.Errorf("fish with the installed script completes %q (%v)", got, err)
	}
}
