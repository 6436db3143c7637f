package describe

import (
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// SpecManifest is the CLI Agent Spec's ManifestResponse exactly, as `tool
// manifest` prints it: every member its schema (manifest-response.json)
// allows, and none it does not. It is [Manifest] (describe) projected onto
// that schema, with the same commands and the same etag; what only Duet
// says — positional arguments, flag groups, history, option placement — is
// in describe, and positional arguments are also in each description.
type SpecManifest struct {
	SchemaVersion    string                 `json:"schema_version"`
	FrameworkVersion string                 `json:"framework_version"`
	Etag             string                 `json:"etag"`
	Commands         map[string]SpecCommand `json:"commands"`
}

// SpecCommand is the spec's CommandEntry.
type SpecCommand struct {
	Description   string              `json:"description"`
	Aliases       []string            `json:"aliases,omitempty"`
	DangerLevel   string              `json:"danger_level"`
	Flags         map[string]SpecFlag `json:"flags"`
	ExitCodes     exitcode.Table      `json:"exit_codes"`
	OutputSchema  schema.Schema       `json:"output_schema,omitempty"`
	OutputFormats []string            `json:"output_formats,omitempty"`
	Examples      []schema.Example    `json:"examples,omitempty"`
	Subcommands   []string            `json:"subcommands,omitempty"`
}

// SpecFlag is the spec's FlagEntry.
type SpecFlag struct {
	Type        string   `json:"type"`
	Required    bool     `json:"required"`
	Description string   `json:"description"`
	Default     any      `json:"default,omitempty"`
	EnumValues  []string `json:"enum_values,omitempty"`
	Short       string   `json:"short,omitempty"`
}

// Spec projects the manifest onto the spec's ManifestResponse.
//
// A command whose danger is unknown (undeclared) is listed as destructive:
// the spec has no word for "not declared", and an agent must assume the
// worst of it. Examples are written in full, starting with the tool's name,
// and a command's positional arguments are appended to its description as
// a usage line, since the spec's entry has no member for them.
func (m Manifest) Spec() SpecManifest {
	s := SpecManifest{
		SchemaVersion:    m.SchemaVersion,
		FrameworkVersion: m.FrameworkVersion,
		Etag:             m.Etag,
		Commands:         make(map[string]SpecCommand, len(m.Commands)),
	}
	for path, d := range m.Commands {
		c := SpecCommand{
			Description: d.Description,
			Aliases:     d.Aliases,
			DangerLevel: string(d.DangerLevel),
			Flags:       make(map[string]SpecFlag, len(d.Flags)),
			ExitCodes:   d.ExitCodes,
			// data's schema; a command that declares none answers with
			// whatever its data is.
			OutputSchema: d.OutputSchema,
			Subcommands:  d.Subcommands,
		}
		if d.DangerLevel == schema.Unknown {
			c.DangerLevel = string(schema.Destructive)
		}
		if usage := usageLine(m.Tool, path, d); usage != "" {
			c.Description = strings.TrimSpace(strings.TrimRight(c.Description, ".") + ". Usage: " + usage)
		}
		c.Description = withHistory(c.Description, d) // discovery: the spec's introduced_in and deprecated_in
		for name, f := range d.Flags {
			c.Flags[name] = specFlag(f)
		}
		// The formats --output takes, toon among them: the spec lists them
		// where a command accepts more than its framework defaults.
		if out, ok := d.Flags["output"]; ok && d.Runnable {
			c.OutputFormats = out.EnumValues
		}
		for _, ex := range d.Examples {
			c.Examples = append(c.Examples, schema.Example{Description: ex.Description, Command: fullCommand(m.Tool, ex.Command)})
		}
		s.Commands[path] = c
	}
	return s
}

func specFlag(f schema.FlagEntry) SpecFlag {
	t := f.Type
	switch t {
	case "string", "integer", "number", "boolean", "array", "enum":
	case "object":
		t = "array" // key=value pairs, one per value
	default:
		t = "string"
	}
	s := SpecFlag{Type: t, Required: f.Required, Description: f.Description, Default: f.Default, EnumValues: f.EnumValues, Short: f.Short}
	if len(s.Short) != 1 {
		s.Short = ""
	}
	return s
}

// usageLine is a runnable command's positional arguments as a usage line:
// "todo show <id>"; "" for a command without any.
func usageLine(tool, path string, d schema.Doc) string {
	if !d.Runnable || len(d.Arguments) == 0 {
		return ""
	}
	words := []string{fullCommand(tool, commandWords(tool, path))}
	for _, a := range d.Arguments {
		w := "<" + a.Name + ">"
		if a.Variadic {
			w += "..."
		}
		if !a.Required {
			w = "[" + w + "]"
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// commandWords turns a dot path into the words that call it.
func commandWords(tool, path string) string {
	if path == tool {
		return ""
	}
	return strings.ReplaceAll(path, ".", " ")
}

// fullCommand prefixes a command line with the tool's name, unless it has
// it already.
func fullCommand(tool, line string) string {
	if line == "" {
		return tool
	}
	if line == tool || strings.HasPrefix(line, tool+" ") {
		return line
	}
	return tool + " " + line
}

// SortedPaths returns the manifest's command paths in order.
func (m Manifest) SortedPaths() []string { return slices.Sorted(maps.Keys(m.Commands)) }
