package urfavev2

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/urfavecli"
	"github.com/duet-cli/duet/schema"
)

// completionFlag is the flag a shell ends a command line with to ask v2 for
// completion candidates.
const completionFlag = "--generate-bash-completion"

// Parse reads args as urfave/cli v2 (v2.27) will when it runs them, without
// running anything: running would set the app's flags. Each command reads
// its flags with Go's flag package, as v2 does, up to its first argument;
// the first argument that names a subcommand (or help) hands it the rest.
// A number or duration flag's value is checked as Go's flag package checks
// it; a slice flag's items are not, and a refused item is the framework's
// error when it runs. An app's DefaultCommand is followed when no command
// is named.
func (a *App) Parse(args []string) adapters.Parsed {
	a.equip(a.root)
	if a.app.EnableBashCompletion && len(args) > 0 && args[len(args)-1] == completionFlag {
		return adapters.Parsed{Node: a.completing} // the shell asks v2 for candidates
	}
	var p adapters.Parsed
	cmd, rest := a.root, args
	for {
		a.equip(cmd)
		p.Node = a.t.Nodes[cmd]
		r := &reader{a: a, cmd: cmd, p: &p}
		pos, err := r.read(rest)
		p.Args = pos
		switch {
		case err != nil:
			p.Err = err
			return p
		case r.help: // v2 asks before the version
			return a.helpFor(p, cmd, pos)
		case r.version:
			p.Version = true
			return p
		}
		var sub *cli.Command
		switch {
		case len(pos) > 0:
			sub = cmd.Command(pos[0])
			if sub == nil && isHelp(cmd, pos[0]) {
				return a.helpCommand(p, cmd, pos[1:])
			}
		case cmd == a.root && a.app.DefaultCommand != "":
			sub = cmd.Command(a.app.DefaultCommand)
			pos = []string{a.app.DefaultCommand}
		}
		if sub == nil || a.t.Nodes[sub] == nil {
			break
		}
		cmd, rest = sub, pos[1:]
	}
	if !p.Node.Runnable && len(p.Args) > 0 && p.Args[0] != "" && a.app.CommandNotFound == nil {
		// A group shows help, and refuses a word that names no command.
		p.Err = fmt.Errorf("No help topic for '%v'", p.Args[0])
	}
	return p
}

// isHelp reports whether name is v2's help command, which it gives every
// command that does not hide it.
func isHelp(cmd *cli.Command, name string) bool {
	return (name == "help" || name == "h") && !cmd.HideHelp && !cmd.HideHelpCommand
}

// helpCommand reads what follows cmd's help command. It is a command of
// its own to v2: it reads its flags (only --help, which asks for the same
// help, at once), and has a help command of its own, for which the next word names
// a command of the help command's — which has none but help.
func (a *App) helpCommand(p adapters.Parsed, cmd *cli.Command, args []string) adapters.Parsed {
	help := &cli.Command{Name: "help"}
	r := &reader{a: a, cmd: help, p: &p}
	pos, err := r.read(args)
	switch {
	case err != nil:
		p.Args, p.Err = nil, err
		return p
	case !r.help && len(pos) > 0 && isHelp(help, pos[0]):
		return a.helpCommand(p, help, pos[1:])
	}
	return a.helpFor(p, cmd, pos)
}

// helpFor is v2's help on cmd, asked with its help command or flag: for
// the subcommand the first argument names, or for cmd.
func (a *App) helpFor(p adapters.Parsed, cmd *cli.Command, pos []string) adapters.Parsed {
	return urfavecli.Help(p, pos, func(name string) (*schema.Command, bool) {
		target := cmd.Command(name) // or its help command, shown as help on cmd
		return a.t.Nodes[target], target != nil || isHelp(cmd, name)
	}, a.app.CommandNotFound != nil)
}

// reader reads one command's flags.
type reader struct {
	a   *App
	cmd *cli.Command
	p   *adapters.Parsed

	help, version bool
}

// read parses args as v2 parses them for r.cmd and returns its positional
// arguments: the flag set v2 makes, with values that parse as v2's, each
// recording what it is set to, in order.
func (r *reader) read(args []string) ([]string, error) {
	set := flag.NewFlagSet(r.cmd.Name, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	flags := r.cmd.Flags
	if !r.cmd.HideHelp && cli.HelpFlag != nil {
		flags = append(slices.Clip(flags), cli.HelpFlag)
	}
	if r.cmd == r.a.root && r.a.app.Version != "" && !r.a.app.HideVersion && cli.VersionFlag != nil {
		flags = append(slices.Clip(flags), cli.VersionFlag)
	}
	for _, f := range flags {
		if len(f.Names()) == 0 {
			continue // presetFlag
		}
		v := recorder{Value: typeOf(f, new(schema.Flag)), record: r.recording(f)}
		for _, name := range f.Names() {
			if set.Lookup(name) == nil { // v2 would panic on a name given twice
				set.Var(v, name, "")
			}
		}
	}
	if r.cmd.SkipFlagParsing {
		err := set.Parse(append([]string{"--"}, args...))
		return set.Args(), err
	}
	short := r.cmd.UseShortOptionHandling || r.a.app.UseShortOptionHandling
	for {
		err := set.Parse(args)
		if err == nil {
			break
		}
		if args = splitShort(set, err, args); !short || args == nil {
			return nil, err
		}
	}
	return set.Args(), twoForms(flags, set)
}

// recording returns what records a value of f: the help and version
// flags are asked for, others are the command line's values.
func (r *reader) recording(f cli.Flag) func(string) {
	switch {
	case f == cli.HelpFlag:
		return func(string) { r.help = true }
	case f == cli.VersionFlag:
		return func(string) { r.version = true }
	}
	sf := r.a.t.Nodes[r.cmd].Flag(f.Names()[0])
	return func(text string) {
		if sf != nil {
			r.p.Values = append(r.p.Values, adapters.Value{Flag: sf, Value: text})
		}
	}
}

// recorder is a flag's value that records the text that sets it.
type recorder struct {
	flag.Value
	record func(string)
}

func (r recorder) Set(s string) error {
	if err := r.Value.Set(s); err != nil {
		return err
	}
	r.record(s)
	return nil
}

func (r recorder) IsBoolFlag() bool {
	b, ok := r.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// splitShort is v2's short option handling: the args again with the word
// Go's flag package refused, -abc, as -a -b -c when each is a flag, and
// without the words before it, which are set already; nil when it cannot.
func splitShort(set *flag.FlagSet, err error, args []string) []string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return nil
	}
	for i, w := range args {
		if strings.TrimLeft(w, "-") != name {
			continue
		}
		if strings.HasPrefix(w, "--") || len(w) <= 2 || strings.ContainsFunc(w[1:], func(c rune) bool { return set.Lookup(string(c)) == nil }) {
			return nil
		}
		var split []string
		for _, c := range w[1:] {
			split = append(split, "-"+string(c))
		}
		return append(split, args[i+1:]...)
	}
	return nil
}

// twoForms is v2's refusal of a flag given under two of its names.
func twoForms(flags []cli.Flag, set *flag.FlagSet) error {
	visited := map[string]bool{}
	set.Visit(func(f *flag.Flag) { visited[f.Name] = true })
	for _, f := range flags {
		first := ""
		for _, name := range f.Names() {
			switch {
			case !visited[name]:
			case first != "":
				return errors.New("Cannot use two forms of the same flag: " + name + " " + first)
			default:
				first = name
			}
		}
	}
	return nil
}
