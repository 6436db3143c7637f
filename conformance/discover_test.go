package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelpCommands reads command lists from the help layouts of common
// frameworks and tools.
func TestHelpCommands(t *testing.T) {
	tests := []struct {
		name, help string
		want       []string
	}{
		{"cobra", "Usage:\n  app [command]\n\nAvailable Commands:\n  add         Add a thing\n  completion  Generate completions\n  help        Help about any command\n\nFlags:\n  -h, --help   help\n", []string{"add", "completion"}},
		{"urfave", "USAGE:\n   app [global options] [command]\n\nCOMMANDS:\n   list, ls  List things\n   show      Show one\n\nGLOBAL OPTIONS:\n   --help\n", []string{"list", "show"}},
		{"go", "Usage:\n\n\tgo <command> [arguments]\n\nThe commands are:\n\n\tbug         start a bug report\n\tbuild       compile packages\n\nUse \"go help <command>\" for more information.\n", []string{"bug", "build"}},
		{"git", "usage: git [-v | --version]\n\nThese are common Git commands used in various situations:\n\nstart a working area (see also: git help tutorial)\n   clone     Clone a repository into a new directory\n   init      Create an empty Git repository\n\nwork on the current change\n   add       Add file contents to the index\n", []string{"clone", "init"}},
		{"no commands", "Usage: ls [OPTION]... [FILE]...\nList information about the FILEs.\n\n  -a, --all   do not ignore entries\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, helpCommands([]byte(tt.help))); diff != "" {
				t.Errorf("helpCommands (-want +got):\n%s", diff)
			}
		})
	}
}
