package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// Command is one command of the target as the checker knows it: from the
// manifest, where the target has one, or from its --help.
type Command struct {
	Path                 []string        `json:"path"` // words after the binary; empty for the root
	Danger               string          `json:"danger_level,omitempty"`
	Runnable             bool            `json:"runnable"`
	List                 bool            `json:"list,omitempty"`
	RequiresConfirmation bool            `json:"requires_confirmation,omitempty"`
	LongRunning          bool            `json:"long_running,omitempty"`
	Protocol             string          `json:"protocol,omitempty"`
	Flags                map[string]Flag `json:"flags,omitempty"`
	Args                 []Arg           `json:"arguments,omitempty"`
	Subcommands          []string        `json:"subcommands,omitempty"`
	// input: a payload the command reads on stdin (REQ-F-054's stdin_input).
	StdinInput json.RawMessage `json:"stdin_input,omitempty"`
	// SideEffects are the files it declares it may write (REQ-C-011), from
	// the manifest or its --schema.
	SideEffects []SideEffect `json:"filesystem_side_effects,omitempty"`
}

// SideEffect is a file a command declares it may write.
type SideEffect struct {
	Path string `json:"path"` // a path or glob; ~ is the home directory, {name} a value known when it runs
	Type string `json:"type"` // cache, log, temp, credential or config
}

// Flag is a flag of a command, as a manifest lists it.
type Flag struct {
	Type       string   `json:"type"`
	Required   bool     `json:"required"`
	EnumValues []string `json:"enum_values,omitempty"` // an integer flag's (ManifestResponse 3.18) as they are written
}

// UnmarshalJSON reads a flag of a manifest, whose enum_values are strings,
// or integers on an integer flag (ManifestResponse 3.18).
func (f *Flag) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type       string            `json:"type"`
		Required   bool              `json:"required"`
		EnumValues []json.RawMessage `json:"enum_values"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = Flag{Type: raw.Type, Required: raw.Required}
	for _, v := range raw.EnumValues {
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(bytes.TrimSpace(v)) // a number, as the command line gives it
		}
		f.EnumValues = append(f.EnumValues, s)
	}
	return nil
}

// Arg is a positional argument, as a Duet manifest lists it.
type Arg struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	ID       bool   `json:"id,omitempty"`
	Pattern  string `json:"pattern,omitempty"`
}

// manifestTree reads the commands of a manifest: the data of `describe`
// (source) or `manifest`, in the spec's shape (ManifestResponse 3.x) or
// Duet's compact one. It returns nil for data that lists no commands.
//
// The two say what a command takes differently. Duet's compact describe
// names its root (tool), lists the flags every command takes once
// (global_flags), and on a group the flags of every command under it; a
// command's positional arguments are its arguments. ManifestResponse 3.x
// lists the global options once in the root flags, each command's flags
// are its own alone, and its positional arguments are its positionals; the
// root command, where it is listed, is the entry whose subcommands are the
// top-level commands.
func manifestTree(source string, data json.RawMessage) *tree {
	var m struct {
		Tool     string                     `json:"tool"` // Duet's: the root's key
		Etag     string                     `json:"etag"`
		Commands map[string]json.RawMessage `json:"commands"`
		// Duet's compact describe says once what every command takes,
		// and on a group what every command under it takes.
		GlobalFlags map[string]Flag `json:"global_flags"`
		// ManifestResponse 3.x: the global options.
		Flags map[string]Flag `json:"flags"`
	}
	if json.Unmarshal(data, &m) != nil || len(m.Commands) == 0 {
		return nil
	}
	compact := m.GlobalFlags != nil || m.Tool != ""
	t := &tree{source: source, manifest: data, etag: m.Etag}
	for path, raw := range m.Commands {
		var entry struct {
			Command
			Runnable    *bool `json:"runnable"`    // Duet's; the spec's manifest does not say
			Positionals []Arg `json:"positionals"` // the spec's (3.x) arguments
		}
		if json.Unmarshal(raw, &entry) != nil {
			continue
		}
		cmd := entry.Command
		cmd.Runnable = len(cmd.Subcommands) == 0
		if entry.Runnable != nil {
			cmd.Runnable = *entry.Runnable
		}
		if cmd.Args == nil {
			cmd.Args = entry.Positionals
		}
		cmd.Path = strings.Split(path, ".")
		if path == m.Tool || !compact && isRoot(path, cmd.Subcommands) {
			cmd.Path = nil
		}
		t.commands = append(t.commands, &cmd)
	}
	if compact {
		t.inherit(m.GlobalFlags, true)
	} else {
		t.inherit(m.Flags, false)
	}
	// (Duet's compact describe without global_flags, as --full gives it,
	// lists every flag on each command: there is nothing to inherit.)
	t.sort()
	return t
}

// isRoot reports whether the entry at key is a 3.x manifest's root
// command: its subcommands are not under it, but at the top.
func isRoot(key string, subcommands []string) bool {
	for _, s := range subcommands {
		if !strings.HasPrefix(s, key+".") {
			return true
		}
	}
	return false
}

// inherit gives every runnable command the flags it takes without listing
// them: the global ones and, in Duet's compact describe (groups), those of
// the groups above it. A flag a command lists itself stays as it is.
func (t *tree) inherit(global map[string]Flag, groups bool) {
	if global == nil {
		return
	}
	byGroup := map[string]map[string]Flag{}
	for _, c := range t.commands {
		if !c.Runnable && groups {
			byGroup[c.DotPath()] = c.Flags
		}
	}
	for _, c := range t.commands {
		if !c.Runnable {
			continue
		}
		if c.Flags == nil {
			c.Flags = map[string]Flag{}
		}
		inherited := []map[string]Flag{global}
		for i := range c.Path {
			inherited = append(inherited, byGroup[strings.Join(c.Path[:i], ".")])
		}
		for _, flags := range inherited {
			for name, f := range flags {
				if _, own := c.Flags[name]; !own {
					c.Flags[name] = f
				}
			}
		}
	}
}

// DotPath is the command's key in a manifest.
func (c *Command) DotPath() string { return strings.Join(c.Path, ".") }

// requiresInput reports whether the command cannot run without arguments
// or a payload on stdin.
func (c *Command) requiresInput() bool {
	if len(c.StdinInput) > 0 && string(c.StdinInput) != "null" {
		return true // run with nothing on stdin, it is refused (EMPTY_STDIN)
	}
	for _, f := range c.Flags {
		if f.Required {
			return true
		}
	}
	for _, a := range c.Args {
		if a.Required {
			return true
		}
	}
	return false
}

// tree is what discovery found.
type tree struct {
	source   string // "describe", "manifest", "help" or "none"
	manifest json.RawMessage
	etag     string
	commands []*Command // sorted by dot path, the root first
}

// discover learns the target's commands: from `describe` or `manifest` (an
// envelope whose data has the spec's manifest shape), else by crawling
// --help, so that any CLI gets a report. A word that is not a flag may be a
// command that acts (`curl describe` fetches a URL), so describe and
// manifest are run only when the target's help shows it has them: its
// piped --help answers with an envelope, as a tool that speaks the spec
// does, or lists them as commands.
func (c *checker) discover(ctx context.Context) *tree {
	help := c.run(ctx, c.invoke("--help"))
	c.rootHelp = help
	c.documented = documented(help)
	for _, name := range []string{"describe", "manifest"} {
		if !c.documented[name] {
			continue
		}
		out := c.run(ctx, c.invoke(name))
		env, f, _ := parseEnvelope(out.Stdout)
		if f != noFault || out.Exit != 0 {
			continue
		}
		if t := manifestTree(name, env.Data); t != nil {
			return t
		}
	}
	return c.crawl(ctx, help)
}

// documented reports which of describe and manifest the root's piped
// --help shows the target has.
func documented(help runOutcome) map[string]bool {
	if _, f, _ := parseEnvelope(help.Stdout); f == noFault {
		return map[string]bool{"describe": true, "manifest": true}
	}
	found := map[string]bool{}
	for _, e := range helpEntries(helpText(help), nil) {
		// A command of that name may be the tool's own (kubectl describe
		// shows a resource): only one that says it prints the commands.
		summary := strings.ToLower(e.Summary)
		if (e.Name == "describe" || e.Name == "manifest") && (strings.Contains(summary, "every command") || strings.Contains(summary, "json") || strings.Contains(summary, "manifest")) {
			found[e.Name] = true
		}
	}
	return found
}

// fromManifest reports whether the tree came from the target's own
// manifest (describe or manifest) rather than from reading its help.
func (t *tree) fromManifest() bool { return t.source == "describe" || t.source == "manifest" }

// helpText is what a --help run printed for a person to read: stdout and
// stderr, or stderr alone beside an envelope on stdout, as a Duet-like
// target answers piped help.
func helpText(out runOutcome) []byte {
	if _, f, _ := parseEnvelope(out.Stdout); f == noFault {
		return out.Stderr
	}
	return append(slices.Clone(out.Stdout), out.Stderr...)
}

// root is the tree's root command.
func (t *tree) root() *Command {
	if len(t.commands) > 0 && len(t.commands[0].Path) == 0 {
		return t.commands[0]
	}
	return &Command{}
}

func (t *tree) sort() {
	slices.SortFunc(t.commands, func(a, b *Command) int { return strings.Compare(a.DotPath(), b.DotPath()) })
}

// crawl builds the tree from --help: the commands listed under a heading
// such as "Commands:" or "Available Commands:", two levels deep. root is
// what the root's --help printed.
func (c *checker) crawl(ctx context.Context, root runOutcome) *tree {
	t := &tree{source: "help"}
	helps := map[string][]byte{} // what each crawled command's help printed
	// Half the budget at most: the probes need the rest.
	stop := c.start.Add(c.opts.Budget / 2)
	// Level by level, each level's help runs several at once: help changes
	// nothing, and a CLI that takes a second to start has many commands.
	for level := [][]string{nil}; len(level) > 0; {
		if room := c.opts.MaxCommands - len(t.commands); len(level) > room {
			level = level[:room]
		}
		outs := make([]runOutcome, len(level))
		parallel(len(level), func(i int) {
			switch {
			case level[i] == nil:
				outs[i] = root
			case c.opts.Budget > 0 && time.Now().After(stop):
				outs[i] = runOutcome{Exit: -1, Err: errOverBudget}
			default:
				outs[i] = c.run(ctx, c.invoke(append(slices.Clone(level[i]), "--help")...))
			}
		})
		var next [][]string
		for i, path := range level {
			out := outs[i]
			if errors.Is(out.Err, errOverBudget) {
				c.crawlCut = true
				continue
			}
			help := helpText(out)
			subs := helpCommands(help, append([]string{c.name()}, path...))
			if path != nil && bytes.Equal(help, helps[strings.Join(path[:len(path)-1], " ")]) {
				subs = nil // the parent's help again: the words after it are not commands it knows
			}
			helps[strings.Join(path, " ")] = help
			t.commands = append(t.commands, &Command{Path: path, Runnable: len(subs) == 0, Subcommands: subs})
			if len(path) < 2 {
				for _, s := range subs {
					next = append(next, append(slices.Clone(path), s))
				}
			}
		}
		level = next
	}
	if len(t.commands) == 1 && len(t.commands[0].Subcommands) == 0 {
		t.source = "none"
	}
	t.sort()
	return t
}
