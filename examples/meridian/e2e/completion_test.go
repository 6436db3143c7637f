//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompletion loads `meridian completion bash` into a real bash and
// presses Tab as bash does (COMP_WORDS, COMP_CWORD); zsh and fish scripts
// are checked to load in their shells when those are installed.
func TestCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	sb := newSandbox(t)
	script := filepath.Join(t.TempDir(), "meridian.bash")
	if err := os.WriteFile(script, []byte(sb.run(t, sb.env, "completion", "bash").stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string // up to the cursor; a trailing space starts a new word
		want []string
	}{
		{"meridian st", []string{"start", "status"}},
		{"meridian space ", []string{"close", "list", "show"}},
		{"meridian start --co", []string{"--config", "--continue"}},
		{"meridian start --sandbox ", []string{"read-only", "workspace-write", "full-access"}},
		{"meridian run sp", []string{"spawn"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			words := strings.Fields(tt.line)
			if strings.HasSuffix(tt.line, " ") {
				words = append(words, "")
			}
			cmd := exec.Command(bash, append([]string{"--norc", "-c",
				`source "$1" || exit 9; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); __meridian_complete; printf '%s\n' "${COMPREPLY[@]}"`,
				"complete", script}, words...)...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash: %v", err)
			}
			got := strings.Fields(string(out))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
		})
	}
	for shell, load := range map[string][]string{
		"zsh":  {"-f", "-c", `autoload -U compinit && compinit -u && source "$1"`, "zsh"},
		"fish": {"--no-config", "-c", `source $argv[1]; and complete -C "meridian st"`},
	} {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			file := filepath.Join(t.TempDir(), "meridian."+shell)
			if err := os.WriteFile(file, []byte(sb.run(t, sb.env, "completion", shell).stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(path, append(load, file)...).CombinedOutput()
			if err != nil || shell == "fish" && !strings.Contains(string(out), "start") {
				t.Errorf("%s: %v\n%s", shell, err, out)
			}
		})
	}
}
