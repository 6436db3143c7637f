// Package completion gives a wrapped app a built-in command that prints a
// shell completion script for bash, zsh or fish:
//
//	urfave.Main(app, completion.Command("completion")) // or duetcobra.Main(...)
//
// and then, in a person's shell:
//
//	source <(todo completion bash)    # ~/.bashrc
//	source <(todo completion zsh)     # ~/.zshrc, after compinit
//	todo completion fish > ~/.config/fish/completions/todo.fish
//
// or once, for the shell the person uses ($SHELL, or the one named):
//
//	todo completion install [--shell bash|zsh|fish]
//
// which writes the script where that shell loads completions from.
//
// The script is made from the command tree Duet builds for either framework,
// so it knows what help shows a person: subcommands at every depth (their
// aliases are understood, not offered), the flags each command accepts — its
// own and those it inherits, Duet's built-ins among them, by every name —
// the values of a flag or positional argument declared with an enum, and
// files where another string is expected. Hidden commands and flags,
// commands for agents only, and the framework's own pass-through commands
// are left out. It reads the words before the cursor as the lifecycle does:
// a flag's value is not a command, -- ends the flags, --flag=value is one
// flag. The script is static: completing never runs the app, so it costs
// nothing per Tab, and it must be made again when the commands change.
//
// On cobra the command takes the place of cobra's own completion command
// (cobra's hidden __complete still answers a script cobra made).
package completion

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/schema"
)

// The shells a script can be made for, and Install: the word that writes
// the script where a shell loads it instead of printing it.
const (
	Bash    = "bash"
	Zsh     = "zsh"
	Fish    = "fish"
	Install = "install"
)

// Command returns the option that adds the built-in command name to an app
// (give it to the adapter's Wrap, Run or Main): `<tool> <name> bash|zsh|fish`
// prints the script for that shell on stdout. The shell is a positional
// argument the lifecycle validates: any other is an ARG_ERROR listing the
// three. Whatever the audience, the answer is the script, never an envelope:
// its reader is a shell. The command is for people: agents do not see it in
// help or describe, and it is never an MCP tool.
func Command(name string) adapters.Option {
	return adapters.WithExtension(adapters.Extension{
		Command: schema.Command{
			Name:  name,
			Usage: "Print a shell completion script for bash, zsh or fish, or install it",
			Description: "Print a script that completes this tool's commands, flags and their values in the given shell. " +
				"It is made from the command tree and never runs the tool; make it again after an upgrade.",
			Args:  []schema.Arg{{Name: "shell", Usage: "the shell: bash, zsh or fish; or install, to write the script where the shell loads it", Required: true, Type: schema.String, Enum: []string{Bash, Zsh, Fish, Install}}},
			Flags: []schema.Flag{{Name: "shell", Type: schema.String, Enum: []string{Bash, Zsh, Fish}, Usage: "with install: the shell to install for (default: $SHELL's)"}},
			Meta: schema.Meta{
				Danger:   schema.Safe,
				Audience: schema.HumanOnly,
				Tool:     schema.ToolNever,
				// What it prints is a script for a shell to read, not
				// an envelope; a checker of the contract skips it.
				Protocol: adapters.ShellCompletion,
				Examples: []schema.Example{
					{Description: "the script for bash, to source from ~/.bashrc", Command: name + " bash"},
					{Description: "the script for fish, to save in ~/.config/fish/completions", Command: name + " fish"},
					{Description: "write the script where $SHELL loads completions from", Command: name + " install"},
				},
			},
		},
		Run: func(_ context.Context, h *adapters.Host) int {
			root := h.App.Tree()
			shell := h.Args()[0] // required and of the enum: checked before Run
			if shell == Install {
				return install(h, root, name)
			}
			if err := write(h.Stdout, root, shell, root.Name+" "+name+" "+shell); err != nil {
				fmt.Fprintf(h.Stderr, "%s %s: %v\n", root.Name, name, err)
				return int(exitcode.GeneralError)
			}
			return int(exitcode.Success)
		},
	})
}

// write writes the script for shell; load is the command line that prints
// it, which the script's header shows.
func write(w io.Writer, root *schema.Command, shell, load string) error {
	m := newModel(root)
	var script string
	switch shell {
	case Bash:
		script = bash(m, "source <("+load+")")
	case Zsh:
		script = zsh(m, "source <("+load+")")
	case Fish:
		script = fish(m, load)
	default:
		return fmt.Errorf("no completion for shell %q: want bash, zsh or fish", shell)
	}
	_, err := io.WriteString(w, script)
	return err
}

// install writes the script for the shell named, else $SHELL's, where that
// shell loads completions from — bash-completion's and fish's directories
// for the user, zsh's ~/.zfunc (which the person adds to fpath) — and says
// where. Writing the same script again changes nothing.
func install(h *adapters.Host, root *schema.Command, name string) int {
	getenv := func(k string) string { v, _ := h.LookupEnv(k); return v }
	shell, ok := h.Flag("shell")
	if !ok || shell == "" {
		shell = filepath.Base(getenv("SHELL"))
	}
	home := getenv("HOME")
	var path, next string
	switch shell {
	case Bash:
		path = filepath.Join(cmp.Or(getenv("XDG_DATA_HOME"), filepath.Join(home, ".local", "share")), "bash-completion", "completions", root.Name)
		next = "new bash shells load it (with the bash-completion package)"
	case Zsh:
		path = filepath.Join(cmp.Or(getenv("ZDOTDIR"), home), ".zfunc", "_"+root.Name)
		next = "add `fpath=(" + filepath.Dir(path) + " $fpath)` before compinit in ~/.zshrc, once"
	case Fish:
		path = filepath.Join(cmp.Or(getenv("XDG_CONFIG_HOME"), filepath.Join(home, ".config")), "fish", "completions", root.Name+".fish")
		next = "new fish shells load it"
	default:
		fmt.Fprintf(h.Stderr, "%s %s install: no completion for shell %q: name one of bash, zsh or fish\n", root.Name, name, shell)
		return int(exitcode.ArgError)
	}
	if home == "" && !filepath.IsAbs(path) {
		fmt.Fprintf(h.Stderr, "%s %s install: HOME is not set: there is nowhere to install to\n", root.Name, name)
		return int(exitcode.Precondition)
	}
	var script strings.Builder
	if err := write(&script, root, shell, root.Name+" "+name+" "+shell); err != nil {
		fmt.Fprintf(h.Stderr, "%s %s install: %v\n", root.Name, name, err)
		return int(exitcode.GeneralError)
	}
	if old, err := os.ReadFile(path); err == nil && string(old) == script.String() {
		fmt.Fprintf(h.Stdout, "The %s completion of %s is installed in %s already.\n", shell, root.Name, path)
		return int(exitcode.Success)
	}
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = atomicfile.Write(path, []byte(script.String()), 0o644)
	}
	if err != nil {
		fmt.Fprintf(h.Stderr, "%s %s install: %v\n", root.Name, name, err)
		return int(exitcode.GeneralError)
	}
	fmt.Fprintf(h.Stdout, "Installed the %s completion of %s in %s: %s.\n", shell, root.Name, path, next)
	return int(exitcode.Success)
}
