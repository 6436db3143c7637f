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
	"context"
	"fmt"
	"io"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// The shells a script can be made for.
const (
	Bash = "bash"
	Zsh  = "zsh"
	Fish = "fish"
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
			Usage: "Print a shell completion script for bash, zsh or fish",
			Description: "Print a script that completes this tool's commands, flags and their values in the given shell. " +
				"It is made from the command tree and never runs the tool; make it again after an upgrade.",
			Args: []schema.Arg{{Name: "shell", Usage: "the shell: bash, zsh or fish", Required: true, Type: schema.String, Enum: []string{Bash, Zsh, Fish}}},
			Meta: schema.Meta{
				Danger:   schema.Safe,
				Audience: schema.HumanOnly,
				Tool:     schema.ToolNever,
				// What it prints is a script for a shell to read, not
				// an envelope; a checker of the contract skips it.
				Protocol: "shell-completion",
				Examples: []schema.Example{
					{Description: "the script for bash, to source from ~/.bashrc", Command: name + " bash"},
					{Description: "the script for fish, to save in ~/.config/fish/completions", Command: name + " fish"},
				},
			},
		},
		Run: func(_ context.Context, h *adapters.Host) int {
			root := h.App.Tree()
			shell := h.Args()[0] // required and one of the three: checked before Run
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
