package cobra

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/schema"
)

// Parse reads args as cobra will when it runs them: cobra's own Find (or
// the walk of Traverse, for an app with TraverseChildren) chooses the
// command, and pflag's own parser reads its flags — into stand-ins for the
// flags' values, so that nothing the app holds is set before cobra sets it.
func (a *App) Parse(args []string) adapters.Parsed {
	a.addedBuiltins(false)
	root := a.root
	if len(args) > 0 {
		if n := a.tree.Sub(args[0]); n != nil && n.Passthrough {
			// cobra's completion commands, which it adds as it executes
			// (and which take the writers cobra has then).
			return adapters.Parsed{Node: n, Args: args[1:]}
		}
	}
	root.InitDefaultHelpCmd()
	args = a.selfContained(args)
	var p adapters.Parsed
	var cmd *cobra.Command
	var rest []string
	if root.TraverseChildren {
		cmd, rest, p.Err = a.traverse(root, args, &p)
	} else {
		cmd, rest, p.Err = root.Find(args)
	}
	if cmd == nil {
		cmd = root
	}
	p.Node = a.node(cmd)
	if p.Err != nil {
		return p
	}
	if cmd.DisableFlagParsing {
		p.Args = rest
		return p
	}
	cmd.InitDefaultHelpFlag() // as cobra does just before it parses
	cmd.InitDefaultVersionFlag()
	fs, got := standIns(cmd, p.Node)
	err := fs.Parse(rest)
	p.Values = append(p.Values, got.values...)
	p.Args = fs.Args()
	switch {
	case errors.Is(err, pflag.ErrHelp):
		p.Help = true
	case err != nil:
		p.Err = err
	}
	p.Help = p.Help || got.set["help"]
	p.Version = cmd.Version != "" && got.set["version"]
	if p.Err == nil && a.nodes[cmd] == nil && cmd.Name() == "help" && cmd.Parent() == root {
		// cobra's help command: help for the command its arguments name.
		p.Help, p.Args = true, nil
		if target, _, err := root.Find(fs.Args()); err == nil {
			p.Node = a.node(target)
		}
	}
	return p
}

// selfContained writes each of Duet's boolean flags in args as
// --name=true. Cobra is given Duet's flags only for a run Duet answers
// (addedBuiltins), and its Find takes a flag it does not know for one that
// takes a value: `--schema list` would read list as --schema's. A flag
// with its value in one word takes none of the next.
func (a *App) selfContained(args []string) []string {
	if a.bools == nil {
		a.bools = map[string]string{}
		own := map[string]bool{}
		a.tree.Walk(func(n *schema.Command) {
			for _, f := range n.Flags {
				switch {
				case !f.Builtin:
					own["--"+f.Name] = true
					if f.Short != "" {
						own["-"+f.Short] = true
					}
				case f.Type == schema.Boolean:
					a.bools["--"+f.Name] = "--" + f.Name + "=true"
					if f.Short != "" {
						a.bools["-"+f.Short] = "--" + f.Name + "=true"
					}
				}
			}
		})
		for word := range own {
			delete(a.bools, word)
		}
	}
	var out []string
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if to, ok := a.bools[arg]; ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = to
		}
	}
	if out == nil {
		return args
	}
	return out
}

// node is the tree's command for cmd: its own, or that of the nearest
// ancestor the tree has (cobra's completion subcommands are its
// completion's).
func (a *App) node(cmd *cobra.Command) *schema.Command {
	for c := cmd; c != nil; c = c.Parent() {
		if n := a.nodes[c]; n != nil {
			return n
		}
		if c.Parent() == a.root {
			if n := a.tree.Sub(c.Name()); n != nil {
				return n
			}
		}
	}
	return a.tree
}

// recorder keeps what pflag sets, in order.
type recorder struct {
	node   *schema.Command
	values []adapters.Value
	set    map[string]bool
}

// standIn is a flag's value as pflag sees it: of the same type, recording
// what it is set to.
type standIn struct {
	name, typ string
	rec       *recorder
}

func (s *standIn) String() string { return "" }
func (s *standIn) Type() string   { return s.typ }

func (s *standIn) Set(v string) error {
	s.rec.set[s.name] = true
	if f := s.rec.node.Flag(s.name); f != nil {
		s.rec.values = append(s.rec.values, adapters.Value{Flag: f, Value: v})
	}
	return nil
}

// standIns is a flag set for cobra's command cmd that parses as cmd's own:
// the same names, shorthands, optional values, normalisation, interspersed
// arguments and allowed errors, over stand-in values.
func standIns(cmd *cobra.Command, node *schema.Command) (*pflag.FlagSet, *recorder) {
	rec := &recorder{node: node, set: map[string]bool{}}
	own := cmd.Flags() // with the persistent flags of its ancestors, merged by InitDefaultHelpFlag
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetNormalizeFunc(own.GetNormalizeFunc())
	fs.SetInterspersed(interspersed(own))
	fs.ParseErrorsAllowlist = pflag.ParseErrorsAllowlist(cmd.FParseErrWhitelist)
	own.VisitAll(func(f *pflag.Flag) {
		v := &standIn{name: f.Name, typ: f.Value.Type(), rec: rec}
		stand := fs.VarPF(v, f.Name, f.Shorthand, "")
		stand.NoOptDefVal = f.NoOptDefVal
	})
	// Duet's built-ins, which cobra is given only for a run Duet answers
	// (addedBuiltins): the command's own, and its ancestors' persistent ones.
	for n := node; n != nil; n = n.Parent {
		for i := range n.Flags {
			f := &n.Flags[i]
			if !f.Builtin || n != node && !f.Persistent || fs.Lookup(f.Name) != nil {
				continue
			}
			typ := "string"
			if f.Type == schema.Boolean {
				typ = "bool"
			}
			short := f.Short
			if short != "" && fs.ShorthandLookup(short) != nil {
				short = ""
			}
			stand := fs.VarPF(&standIn{name: f.Name, typ: typ, rec: rec}, f.Name, short, "")
			if typ == "bool" {
				stand.NoOptDefVal = "true"
			}
		}
	}
	return fs, rec
}

// interspersed reads whether fs takes flags after its first argument, which
// pflag keeps unexported.
func interspersed(fs *pflag.FlagSet) bool {
	v := reflect.ValueOf(fs).Elem().FieldByName("interspersed")
	return !v.IsValid() || v.Bool()
}

// traverse walks args as cobra's Traverse does for an app with
// TraverseChildren, reading each command's flags as it goes into stand-ins
// where Traverse sets the command's own.
func (a *App) traverse(c *cobra.Command, args []string, p *adapters.Parsed) (*cobra.Command, []string, error) {
	var flags []string
	inFlag := false
	known, _ := standIns(c, a.node(c)) // cobra's flags and Duet's, which cobra gets for a run Duet answers
	for i, arg := range args {
		switch {
		case strings.HasPrefix(arg, "--") && !strings.Contains(arg, "="):
			inFlag = !hasNoOptDefVal(arg[2:], known)
			flags = append(flags, arg)
			continue
		case strings.HasPrefix(arg, "-") && !strings.Contains(arg, "=") && len(arg) == 2 && !shortHasNoOptDefVal(arg[1:], known):
			inFlag = true
			flags = append(flags, arg)
			continue
		case inFlag:
			inFlag = false
			flags = append(flags, arg)
			continue
		case len(arg) >= 3 && arg[:2] == "--" || len(arg) >= 2 && arg[0] == '-' && arg[1] != '-':
			flags = append(flags, arg)
			continue
		}
		next := findNext(c, arg)
		if next == nil {
			return c, args, nil
		}
		c.InitDefaultHelpFlag()
		fs, got := standIns(c, a.node(c))
		if err := fs.Parse(flags); err != nil {
			return nil, args, err
		}
		p.Values = append(p.Values, got.values...)
		return a.traverse(next, args[i+1:], p)
	}
	return c, args, nil
}

func hasNoOptDefVal(name string, fs *pflag.FlagSet) bool {
	f := fs.Lookup(name)
	return f != nil && f.NoOptDefVal != ""
}

func shortHasNoOptDefVal(name string, fs *pflag.FlagSet) bool {
	if name == "" {
		return false
	}
	f := fs.ShorthandLookup(name[:1])
	return f != nil && f.NoOptDefVal != ""
}

// findNext is the subcommand of c that cobra's Traverse takes next for arg.
func findNext(c *cobra.Command, arg string) *cobra.Command {
	var prefixed []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.Name() == arg || sub.HasAlias(arg) || cobra.EnableCaseInsensitive && strings.EqualFold(sub.Name(), arg) {
			return sub
		}
		if cobra.EnablePrefixMatching && hasPrefix(sub, arg) {
			prefixed = append(prefixed, sub)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return nil
}

func hasPrefix(c *cobra.Command, prefix string) bool {
	if strings.HasPrefix(c.Name(), prefix) {
		return true
	}
	for _, alias := range c.Aliases {
		if strings.HasPrefix(alias, prefix) {
			return true
		}
	}
	return false
}
