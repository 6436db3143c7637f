package urfave

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/urfavecli"
	"github.com/duet-cli/duet/schema"
)

// Parse reads args as urfave/cli (v3.14) will when it runs them, without
// running anything — urfave has no parser to call apart from running, and
// running would set the app's flags. It follows urfave's rules: each
// command reads the flags up to the name of its subcommand, and the
// subcommand reads the rest; -name and --name alike; a bare boolean flag
// takes no value, any other the next word unless it has =value; -abc is -a
// -b -c only with UseShortOptionHandling; a dash before anything but a
// letter ends the flags; --help, -h, help and h ask for help; a group that
// cannot run takes no arguments; a boolean, number or duration flag
// refuses a value of another type. TestParseAgreesWithUrfave and
// FuzzParseAgreesWithUrfave hold it to urfave's own parser.
func (a *App) Parse(args []string) adapters.Parsed {
	a.equip(a.root)
	var p adapters.Parsed
	if a.root.EnableShellCompletion && len(args) > 0 && args[len(args)-1] == completionFlag {
		return adapters.Parsed{Node: a.completing} // the shell asks urfave for candidates
	}
	cmd, rest := a.root, args
	var lineage []*cli.Command // cmd's ancestors, nearest last
	for {
		a.equip(cmd)
		r := a.reader(cmd, lineage, &p)
		pos, err := r.flags(rest)
		p.Node, p.Args = a.t.Nodes[cmd], pos
		if r.help {
			if err != nil {
				p.Help = true // cmd's help, whatever else is wrong
				return p
			}
			return a.helpFor(p, cmd, r, pos)
		}
		if err != nil {
			p.Err = err
			return p
		}
		if len(lineage) == 0 && r.version {
			p.Version = true
			return p
		}
		var sub *cli.Command
		switch {
		case len(pos) > 0:
			name := pos[0]
			if cmd.SuggestCommandFunc != nil && name != "--" {
				name = cmd.SuggestCommandFunc(cmd.Commands, name)
			}
			if sub = r.command(name); sub == nil && cmd.DefaultCommand != "" {
				sub, pos = r.command(cmd.DefaultCommand), append([]string{cmd.DefaultCommand}, pos...)
			}
		case cmd.DefaultCommand != "":
			if sub = r.command(cmd.DefaultCommand); sub == cmd {
				sub = nil
			}
			pos = []string{cmd.DefaultCommand} // urfave runs it with no arguments
		}
		if sub == helpCommand {
			return a.help(p, cmd, lineage, r, pos[1:])
		}
		if sub != nil && a.t.Nodes[sub] == nil && sub.Name == a.completionCommand() {
			p.Node = a.tree.Sub(sub.Name) // urfave's own completion command
			return p
		}
		if sub == nil || a.t.Nodes[sub] == nil {
			break
		}
		lineage = append(lineage, cmd)
		cmd, rest = sub, pos[1:]
	}
	if !p.Node.Runnable && len(p.Args) > 0 && p.Args[0] != "" && cmd.CommandNotFound == nil {
		// A group shows help, and refuses a word that names no command.
		p.Err = fmt.Errorf("No help topic for '%v'", p.Args[0])
	}
	return p
}

// helpCommand stands for urfave's help command, which it adds to every
// command when it runs.
var helpCommand = &cli.Command{Name: "help", Aliases: []string{"h"}, HideHelp: true}

// help reads what follows cmd's help command: its flags (the persistent
// ones of cmd and its ancestors), then the command help is for, which must
// be one of cmd's.
func (a *App) help(p adapters.Parsed, cmd *cli.Command, lineage []*cli.Command, r *reader, args []string) adapters.Parsed {
	pos, err := a.reader(helpCommand, append(lineage, cmd), &p).flags(args)
	p.Node, p.Args = a.t.Nodes[cmd], nil
	if err != nil {
		p.Err = err
		return p
	}
	return a.helpFor(p, cmd, r, pos)
}

// helpFor is urfave's help for cmd, asked with the help command or flag:
// for the subcommand the first argument names, when there is one.
func (a *App) helpFor(p adapters.Parsed, cmd *cli.Command, r *reader, pos []string) adapters.Parsed {
	p.Node = a.t.Nodes[cmd]
	return urfavecli.Help(p, pos, func(name string) (*schema.Command, bool) {
		target := r.command(name)
		return a.t.Nodes[target], target != nil
	}, cmd.CommandNotFound != nil)
}

// reader reads one command's part of a command line.
type reader struct {
	a       *App
	cmd     *cli.Command
	lineage []*cli.Command
	applied []cli.Flag // the flags cmd accepts: its own, then its ancestors' persistent ones
	helpOK  bool       // urfave gives cmd its help command and --help
	p       *adapters.Parsed

	help, version bool
}

func (a *App) reader(cmd *cli.Command, lineage []*cli.Command, p *adapters.Parsed) *reader {
	r := &reader{a: a, cmd: cmd, lineage: lineage, p: p, helpOK: true}
	for _, c := range append(slices.Clone(lineage), cmd) {
		r.helpOK = r.helpOK && !c.HideHelp
	}
	r.applied = allFlags(cmd)
	if r.helpOK {
		if h := builtinFlag(cli.HelpFlag, r.applied); h != nil {
			r.applied = append(r.applied, h)
		}
	}
	if len(lineage) == 0 && cmd.Version != "" && !cmd.HideVersion {
		if v := builtinFlag(cli.VersionFlag, r.applied); v != nil {
			r.applied = append(r.applied, v)
		}
	}
	for i := len(lineage) - 1; i >= 0; i-- {
		for _, f := range allFlags(lineage[i]) {
			if l, ok := f.(cli.LocalFlag); !ok || l.IsLocal() {
				continue
			}
			if !slices.ContainsFunc(f.Names(), func(n string) bool { return flagNamed(allFlags(cmd), n) != nil }) {
				r.applied = append(r.applied, f)
			}
		}
	}
	return r
}

// allFlags are a command's own flags, its mutually exclusive groups' too.
func allFlags(cmd *cli.Command) []cli.Flag {
	flags := slices.Clip(cmd.Flags)
	for _, g := range cmd.MutuallyExclusiveFlags {
		for _, group := range g.Flags {
			flags = append(flags, group...)
		}
	}
	return flags
}

// builtinFlag is one of urfave's own flags (help, version) as it adds it
// beside own: without the aliases own takes, or not at all when own takes
// its name.
func builtinFlag(f cli.Flag, own []cli.Flag) cli.Flag {
	if f == nil {
		return nil
	}
	names := f.Names()
	if flagNamed(own, names[0]) != nil {
		return nil
	}
	kept := []string{names[0]}
	for _, alias := range names[1:] {
		if flagNamed(own, alias) == nil {
			kept = append(kept, alias)
		}
	}
	return &cli.BoolFlag{Name: kept[0], Aliases: kept[1:], Local: true}
}

// completionFlag is the flag a shell ends a command line with to ask urfave
// for completion candidates.
const completionFlag = "--generate-shell-completion"

// completionCommand is the name of the command urfave adds to print a shell
// completion script, or "" when it adds none.
func (a *App) completionCommand() string {
	if !a.root.EnableShellCompletion && a.root.ConfigureShellCompletionCommand == nil {
		return ""
	}
	return cmpOr(a.root.ShellCompletionCommandName, "completion")
}

// command is the subcommand of r's command that name names, or
// helpCommand for urfave's own help command.
func (r *reader) command(name string) *cli.Command {
	for _, sub := range r.cmd.Commands {
		if sub.HasName(name) {
			return sub
		}
	}
	if len(r.lineage) == 0 && name != "" && name == r.a.completionCommand() {
		return &cli.Command{Name: name}
	}
	if r.helpOK && !r.hideHelpCommand() && helpCommand.HasName(name) {
		return helpCommand
	}
	return nil
}

func (r *reader) hideHelpCommand() bool {
	for _, c := range append(slices.Clone(r.lineage), r.cmd) {
		if c.HideHelpCommand {
			return true
		}
	}
	return r.cmd.Command("help") != nil
}

func (r *reader) lookup(name string) cli.Flag { return flagNamed(r.applied, name) }

func (r *reader) shortOptions() bool {
	for _, c := range append(slices.Clone(r.lineage), r.cmd) {
		if c.UseShortOptionHandling {
			return true
		}
	}
	return false
}

// isBool reports whether urfave reads f without a value: its own boolean
// flags, and any flag of the app's that says so once urfave has set it up.
func (r *reader) isBool(f cli.Flag) bool {
	if b, ok := f.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return true
	}
	switch f.(type) {
	case *cli.BoolFlag, *cli.BoolWithInverseFlag:
		return true
	}
	sf := r.neutral(f.Names()[0])
	return sf != nil && sf.Type == schema.Boolean
}

// neutral is the tree's flag of that name for r's command.
func (r *reader) neutral(name string) *schema.Flag {
	if n := r.a.t.Nodes[r.cmd]; n != nil {
		return n.Flag(name)
	}
	return nil
}

// set records that the command line gives the flag f, named name, value,
// or returns urfave's refusal of a value its type cannot take.
func (r *reader) set(f cli.Flag, name, value string) error {
	if err := r.valid(f, value); err != nil {
		return fmt.Errorf("invalid value %q for flag -%s: %w", value, name, err)
	}
	switch names := f.Names(); {
	case names[0] == "help":
		b, _ := parseBool(value)
		r.help = r.help || b
	case names[0] == "version" && len(r.lineage) == 0 && r.cmd.Version != "":
		b, _ := parseBool(value)
		r.version = r.version || b
	}
	if sf := r.neutral(name); sf != nil {
		r.p.Values = append(r.p.Values, adapters.Value{Flag: sf, Value: value})
	}
	return nil
}

// valid checks a value as urfave's own flag types do when they are set:
// booleans, integers, floats and durations.
func (r *reader) valid(f cli.Flag, value string) error {
	if r.isBool(f) {
		if _, err := strconv.ParseBool(value); err != nil {
			return errors.New("parse error")
		}
		return nil
	}
	sf := r.neutral(f.Names()[0])
	if sf == nil {
		return nil
	}
	var err error
	switch {
	case sf.Format == "duration":
		_, err = time.ParseDuration(value)
	case sf.Type == schema.Integer:
		_, err = strconv.ParseInt(value, 0, 64)
	case sf.Type == schema.Number:
		_, err = strconv.ParseFloat(value, 64)
	}
	return err
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "t", "true":
		return true, nil
	case "0", "f", "false":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %q", s)
}

// flags reads r's command's flags from args, as urfave's parseFlags does,
// and returns the positional arguments: everything from the name of a
// subcommand on, when one is named.
func (r *reader) flags(args []string) ([]string, error) {
	cmd := r.cmd
	if cmd.SkipFlagParsing {
		return args, nil
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		first := strings.TrimSpace(arg)
		switch {
		case first == "":
			pos = append(pos, arg)
			continue
		case first == "--":
			return append(pos, args[i+1:]...), nil
		case cmd.StopOnNthArg != nil && len(pos) == *cmd.StopOnNthArg:
			return append(pos, args[i:]...), nil
		case first[0] != '-':
			if r.command(first) != nil {
				return append(pos, args[i:]...), nil
			}
			pos = append(pos, arg)
			continue
		case first == "-":
			pos = append(pos, arg)
			continue
		}
		short, dashes := r.shortOptions(), 1
		if first[1] == '-' {
			short, dashes = false, 2
		} else if c, _ := utf8.DecodeRuneInString(first[1:]); !unicode.IsLetter(c) {
			return append(pos, args[i:]...), nil // not a flag: the flags end here
		}
		name, value, eq := first[dashes:], "", false
		if at := strings.Index(name, "="); at >= 0 {
			_, value, _ = strings.Cut(arg, "=")
			name, eq = name[:at], true
		}
		if f := r.lookup(name); f != nil {
			if r.isBool(f) {
				if err := r.set(f, name, cmpOr(value, "true")); err != nil {
					return pos, err
				}
				continue
			}
			if value == "" && !eq {
				if i+1 >= len(args) {
					return pos, fmt.Errorf("flag needs an argument: %s", first)
				}
				i++
				value = args[i]
			}
			if err := r.set(f, name, value); err != nil {
				return pos, err
			}
			continue
		}
		if !short {
			if cmd.DefaultCommand != "" {
				return append(pos, args[i:]...), nil
			}
			return pos, fmt.Errorf("flag provided but not defined: -%s", name)
		}
		for at, c := range name {
			if r.lookup(string(c)) == nil {
				if at == 0 && cmd.DefaultCommand != "" {
					return append(pos, args[i:]...), nil
				}
				return pos, fmt.Errorf("flag provided but not defined: -%s", name)
			}
		}
		_, lastSize := utf8.DecodeLastRuneInString(name)
		last := len(name) - lastSize
		for at, c := range name {
			f := r.lookup(string(c))
			switch {
			case r.isBool(f):
				if err := r.set(f, string(c), cmpOr(value, "true")); err != nil {
					return pos, err
				}
			case at == last:
				if value == "" {
					if i+1 >= len(args) {
						return pos, fmt.Errorf("flag needs an argument: %s", string(c))
					}
					i++
					value = args[i]
				}
				if err := r.set(f, string(c), value); err != nil {
					return pos, err
				}
			default:
				return pos, fmt.Errorf("flag needs an argument: %s", string(c))
			}
		}
	}
	return pos, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
