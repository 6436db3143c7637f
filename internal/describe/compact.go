package describe

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// Compact is the tree as `describe` gives it: what an agent needs to call
// any command correctly, with what every command shares said once. Global
// flags (those every runnable command takes alike) and the common exit
// codes are at the top; each command lists only its own flags, the exit
// codes it adds or changes, and its output as a one-line shape
// ([schema.Schema.Shape]). It is a view of a [Manifest], with its etag:
// `describe --full` gives every document whole, `<command> --schema` one of
// them, and `manifest` the spec's ManifestResponse.
type Compact struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Etag    string `json:"etag"`
	// Usage says how a command's key turns into a command line.
	Usage       string                 `json:"usage"`
	GlobalFlags map[string]CompactFlag `json:"global_flags"`
	// ExitCodes are every command's, for a command that may change state;
	// SafeExitCodes, where a safe command's differ (it changed nothing).
	ExitCodes     map[string]string         `json:"exit_codes"`
	SafeExitCodes map[string]string         `json:"exit_codes_safe,omitempty"`
	Commands      map[string]CompactCommand `json:"commands"`
	Profiles      any                       `json:"profiles,omitempty"`
}

// CompactCommand is one command of a [Compact] manifest. Members that do not
// apply are left out: a command is runnable unless it says false, and takes
// no arguments and no flags but the global ones unless it lists them. A
// group lists the flags and exit codes every command under it has alike.
type CompactCommand struct {
	Description          string                 `json:"description"`
	Aliases              []string               `json:"aliases,omitempty"`
	DangerLevel          schema.Danger          `json:"danger_level"`
	Runnable             *bool                  `json:"runnable,omitempty"` // false for a group
	Arguments            []CompactArg           `json:"arguments,omitempty"`
	Flags                map[string]CompactFlag `json:"flags,omitempty"`
	FlagGroups           []schema.Group         `json:"flag_groups,omitempty"`
	RequiresConfirmation bool                   `json:"requires_confirmation,omitempty"`
	List                 bool                   `json:"list,omitempty"`
	LongRunning          bool                   `json:"long_running,omitempty"`
	Async                bool                   `json:"async,omitempty"`
	Protocol             string                 `json:"protocol,omitempty"`
	StdinInput           *schema.StdinInput     `json:"stdin_input,omitempty"`
	SideEffects          []schema.SideEffect    `json:"filesystem_side_effects,omitempty"`
	Replacement          string                 `json:"replacement,omitempty"`
	Output               string                 `json:"output,omitempty"` // or "same as <command>"
	ExitCodes            map[string]string      `json:"exit_codes,omitempty"`
	// Examples are command lines, each followed by what it shows as a
	// shell comment.
	Examples []string `json:"examples,omitempty"`
}

// CompactFlag is a flag of a [Compact] manifest: its type, and only what
// differs from a flag's usual (optional, no default, any value).
type CompactFlag struct {
	Type        string   `json:"type"`
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	EnumValues  []string `json:"enum_values,omitempty"`
	Short       string   `json:"short,omitempty"`
	Description string   `json:"description"`
}

// CompactArg is a positional argument of a [Compact] manifest, in the order
// the command takes them.
type CompactArg struct {
	Name        string   `json:"name"`
	Required    bool     `json:"required,omitempty"`
	Variadic    bool     `json:"variadic,omitempty"`
	Type        string   `json:"type,omitempty"` // left out for a string
	EnumValues  []string `json:"enum_values,omitempty"`
	Pattern     string   `json:"pattern,omitempty"`
	ID          bool     `json:"id,omitempty"`
	Description string   `json:"description,omitempty"`
}

// usage is [Compact.Usage], for a tool.
func usage(tool string) string {
	return tool + " <command> [arguments] [flags]: a command's key with dots as spaces; every runnable command also takes global_flags, " +
		"and may exit with exit_codes (exit_codes_safe for a safe one); the flags and exit codes of a group are those of every command under it; " +
		"an output \"same as <command>\" is that command's"
}

// Compact returns the manifest's compact form.
func (m Manifest) Compact() Compact {
	global := globalFlags(m.Commands)
	c := Compact{
		Tool:        m.Tool,
		Version:     m.FrameworkVersion,
		Etag:        m.Etag,
		Usage:       usage(m.Tool),
		GlobalFlags: make(map[string]CompactFlag, len(global)),
		ExitCodes:   codeLines(common(schema.Mutating), nil),
		Commands:    make(map[string]CompactCommand, len(m.Commands)),
		Profiles:    m.Profiles,
	}
	c.SafeExitCodes = codeLines(common(schema.Safe), common(schema.Mutating))
	for name, f := range global {
		c.GlobalFlags[name] = compactFlag(f)
	}
	for path, d := range m.Commands {
		c.Commands[path] = compactCommand(m.Tool, d, global)
	}
	c.hoist()
	c.shareOutputs()
	return c
}

// sameAs begins the output of a command whose data has the shape of
// another's: the shape is written once, at the first command by key.
const sameAs = "same as "

// shareOutputs writes a long output shape that several commands share
// once: a run's detail, answered by five run commands, is hundreds of
// tokens each time.
func (c *Compact) shareOutputs() {
	first := map[string]string{}
	for _, path := range slices.Sorted(maps.Keys(c.Commands)) {
		cmd := c.Commands[path]
		if len(cmd.Output) < minShared {
			continue
		}
		if at, ok := first[cmd.Output]; ok {
			cmd.Output = sameAs + at
			c.Commands[path] = cmd
			continue
		}
		first[cmd.Output] = path
	}
}

// minShared is the shortest shape written once rather than again: a
// reference costs about as much as a short shape.
const minShared = 40

// OutputOf returns the shape of a command's output, following a reference
// to the command that has it written out.
func (c Compact) OutputOf(path string) string {
	out := c.Commands[path].Output
	if at, ok := strings.CutPrefix(out, sameAs); ok {
		return c.Commands[at].Output
	}
	return out
}

// hoist moves what every runnable command under a group has alike — its
// flags (a persistent flag of the group, say) and its exit codes — up to
// the group, the outermost first: said once, as the global ones are.
func (c *Compact) hoist() {
	groups := slices.SortedFunc(maps.Keys(c.Commands), func(a, b string) int {
		return cmp.Or(strings.Count(a, ".")-strings.Count(b, "."), strings.Compare(a, b))
	})
	for _, g := range groups {
		group := c.Commands[g]
		if group.Runnable == nil || g == c.Tool {
			continue
		}
		var under []string
		for path, cmd := range c.Commands {
			if strings.HasPrefix(path, g+".") && cmd.Runnable == nil {
				under = append(under, path)
			}
		}
		if len(under) < 2 {
			continue
		}
		flags := make([]map[string]CompactFlag, len(under))
		codes := make([]map[string]string, len(under))
		for i, path := range under {
			flags[i], codes[i] = c.Commands[path].Flags, c.Commands[path].ExitCodes
		}
		group.Flags, group.ExitCodes = alike(flags, sameCompactFlag), alike(codes, func(a, b string) bool { return a == b })
		c.Commands[g] = group
		for _, path := range under {
			cmd := c.Commands[path]
			cmd.Flags = without(cmd.Flags, group.Flags)
			cmd.ExitCodes = without(cmd.ExitCodes, group.ExitCodes)
			c.Commands[path] = cmd
		}
	}
}

// alike returns the entries every one of ms has, equal in each; nil when
// there are none. The maps are not changed.
func alike[V any](ms []map[string]V, equal func(a, b V) bool) map[string]V {
	if len(ms) == 0 {
		return nil
	}
	out := maps.Clone(ms[0])
	for _, m := range ms[1:] {
		for k, v := range out {
			if o, ok := m[k]; !ok || !equal(o, v) {
				delete(out, k)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// without returns m less the keys of drop; nil when nothing is left.
func without[V any](m, drop map[string]V) map[string]V {
	for k := range drop {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func compactCommand(tool string, d schema.Doc, global map[string]schema.FlagEntry) CompactCommand {
	c := CompactCommand{
		Description:          d.Description,
		Aliases:              d.Aliases,
		DangerLevel:          d.DangerLevel,
		FlagGroups:           d.FlagGroups,
		RequiresConfirmation: d.RequiresConfirmation,
		List:                 d.List,
		LongRunning:          d.LongRunning,
		Async:                d.Async,
		Protocol:             d.Protocol,
		StdinInput:           d.StdinInput,
		SideEffects:          d.FilesystemSideEffects,
		Replacement:          d.Replacement,
	}
	if !d.Runnable {
		// A group runs nothing: its description and its commands (the keys
		// under it) are all there is to say.
		c.Runnable = new(false)
		return c
	}
	for _, a := range d.Arguments {
		arg := CompactArg{Name: a.Name, Required: a.Required, Variadic: a.Variadic, Type: string(a.Type), EnumValues: a.Enum, Pattern: a.Pattern, ID: a.ID, Description: a.Usage}
		if arg.Type == string(schema.String) {
			arg.Type = ""
		}
		c.Arguments = append(c.Arguments, arg)
	}
	for name, f := range d.Flags {
		if g, ok := global[name]; ok && sameFlag(g, f) {
			continue
		}
		if c.Flags == nil {
			c.Flags = map[string]CompactFlag{}
		}
		c.Flags[name] = compactFlag(f)
	}
	if d.OutputSchema != nil {
		c.Output = d.OutputSchema.Shape()
	}
	c.ExitCodes = codeLines(d.ExitCodes, common(d.DangerLevel))
	for _, ex := range d.Examples {
		line := fullCommand(tool, ex.Command)
		if ex.Description != "" {
			line += "  # " + ex.Description
		}
		c.Examples = append(c.Examples, line)
	}
	return c
}

func compactFlag(f schema.FlagEntry) CompactFlag {
	c := CompactFlag{Type: f.Type, Required: f.Required, EnumValues: f.EnumValues, Short: f.Short, Description: f.Description}
	if f.Default != nil && !reflect.ValueOf(f.Default).IsZero() {
		// false, 0 and "" are what an unset flag is anyway.
		c.Default = f.Default
	}
	return c
}

// globalFlags are the flags every runnable command takes alike: said once
// at the top of a compact manifest rather than once per command.
func globalFlags(docs map[string]schema.Doc) map[string]schema.FlagEntry {
	var flags []map[string]schema.FlagEntry
	for _, d := range docs {
		if d.Runnable {
			flags = append(flags, d.Flags)
		}
	}
	if len(flags) < 2 {
		return nil // one command's flags are its own
	}
	return alike(flags, sameFlag)
}

// sameFlag reports whether two commands describe a flag alike. A struct
// compare, not reflect.DeepEqual: describe compares every flag of every
// command, and reflection took most of its time.
func sameFlag(a, b schema.FlagEntry) bool {
	return a.Type == b.Type && a.Required == b.Required && a.Description == b.Description && a.Short == b.Short &&
		a.Sensitive == b.Sensitive && a.JSON == b.JSON && a.PipeCompatible == b.PipeCompatible && a.Subprocess == b.Subprocess &&
		a.MaxBytes == b.MaxBytes && a.Deprecated == b.Deprecated &&
		slices.Equal(a.EnumValues, b.EnumValues) && slices.Equal(a.Env, b.Env) && sameValue(a.Default, b.Default) &&
		(a.Schema == nil) == (b.Schema == nil) && (a.Schema == nil || reflect.DeepEqual(a.Schema, b.Schema))
}

func sameCompactFlag(a, b CompactFlag) bool {
	return a.Type == b.Type && a.Required == b.Required && a.Short == b.Short && a.Description == b.Description &&
		slices.Equal(a.EnumValues, b.EnumValues) && sameValue(a.Default, b.Default)
}

// sameValue compares defaults: scalars by ==, anything else deeply.
func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == b
	}
	if reflect.TypeOf(a).Comparable() && reflect.TypeOf(b).Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// common is the exit-code table of a command at the given danger level that
// declares no codes of its own.
func common(danger schema.Danger) exitcode.Table {
	return (&schema.Command{Runnable: true, Meta: schema.Meta{Danger: danger}}).ExitCodes()
}

// codeLines writes the entries of t that base does not have alike, each as
// "NAME: description" under its code.
func codeLines(t, base exitcode.Table) map[string]string {
	var out map[string]string
	for code, e := range t {
		if b, ok := base[code]; ok && b.Equal(e) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		line := e.Name + ": " + e.Description
		if e.Retryable && !strings.Contains(strings.ToLower(e.Description), "retry") {
			line += " Retryable."
		}
		out[strconv.Itoa(int(code))] = line
	}
	return out
}

// Only returns the compact manifest of the given commands, by key, and of
// the groups above them, with what every command shares: the detail of the
// few commands an agent found in the [Index]. It fails naming a key the
// manifest lacks.
func (c Compact) Only(keys ...string) (Compact, error) {
	kept, err := only(c.Tool, c.Commands, keys)
	for path, cmd := range kept {
		if at, ok := strings.CutPrefix(cmd.Output, sameAs); ok {
			if _, there := kept[at]; !there { // the shape is written where it is not kept
				cmd.Output = c.OutputOf(path)
				kept[path] = cmd
			}
		}
	}
	c.Commands = kept
	return c, err
}

// Only returns the manifest of the given commands, by key, and of the groups
// above them, as [Compact.Only] does.
func (m Manifest) Only(keys ...string) (Manifest, error) {
	kept, err := only(m.Tool, m.Commands, keys)
	m.Commands, m.raw = kept, nil // encoded again, without the others
	return m, err
}

// only keeps of commands those named by keys and the groups above them.
func only[C any](tool string, commands map[string]C, keys []string) (map[string]C, error) {
	kept := make(map[string]C, len(keys))
	for _, key := range keys {
		cmd, ok := commands[key]
		if !ok {
			return nil, fmt.Errorf("%s has no command %q", tool, key)
		}
		kept[key] = cmd
		for p := key; strings.Contains(p, "."); {
			p = p[:strings.LastIndex(p, ".")]
			if g, ok := commands[p]; ok {
				kept[p] = g
			}
		}
	}
	return kept, nil
}

// Index is the tree at its briefest: each command's key and one line, for
// an agent that will ask `<command> --schema` of the few it uses.
type Index struct {
	Tool     string            `json:"tool"`
	Etag     string            `json:"etag"`
	Commands map[string]string `json:"commands"`
}

// Index returns the manifest's index.
func (m Manifest) Index() Index {
	ix := Index{Tool: m.Tool, Etag: m.Etag, Commands: make(map[string]string, len(m.Commands))}
	for path, d := range m.Commands {
		line, _, _ := strings.Cut(d.Description, "\n")
		ix.Commands[path] = line
	}
	return ix
}
