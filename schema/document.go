package schema

import (
	"slices"

	"github.com/duet-cli/duet/exitcode"
)

// DocVersion is the version of the --schema and describe document shapes.
const DocVersion = "1.0"

// Doc is one command's self-description: what `--schema` prints and what
// describe lists for each command. Its keys are a superset of the CLI Agent
// Spec's CommandEntry.
type Doc struct {
	Command              string               `json:"command"`
	Description          string               `json:"description"`
	Aliases              []string             `json:"aliases,omitempty"`
	DangerLevel          Danger               `json:"danger_level"`
	Audience             Audience             `json:"audience,omitempty"`
	Runnable             bool                 `json:"runnable"`
	List                 bool                 `json:"list,omitempty"`
	RequiresConfirmation bool                 `json:"requires_confirmation,omitempty"`
	TimeoutMS            int64                `json:"timeout_ms,omitempty"`
	Flags                map[string]FlagEntry `json:"flags"`
	Arguments            []Arg                `json:"arguments,omitempty"`
	FlagGroups           []Group              `json:"flag_groups,omitempty"`
	InputSchema          Schema               `json:"input_schema"`
	OutputSchema         Schema               `json:"output_schema,omitempty"`
	ExitCodes            exitcode.Table       `json:"exit_codes"`
	Examples             []Example            `json:"examples,omitempty"`
	Subcommands          []string             `json:"subcommands,omitempty"`
}

// FlagEntry is the spec's description of one flag.
type FlagEntry struct {
	Type        string   `json:"type"` // string, integer, number, boolean, array or enum
	Required    bool     `json:"required"`
	Description string   `json:"description"`
	Default     any      `json:"default,omitempty"`
	EnumValues  []string `json:"enum_values,omitempty"`
	Short       string   `json:"short,omitempty"`
	Env         []string `json:"env,omitempty"`
	Sensitive   bool     `json:"sensitive,omitempty"`
}

// Document returns c's self-description. agent selects which subcommands are
// listed: those visible to an agent, or those visible to a person.
func (c *Command) Document(agent bool) Doc {
	d := Doc{
		Command:              c.DotPath(),
		Description:          c.Usage,
		Aliases:              c.Aliases,
		DangerLevel:          c.Danger(),
		Audience:             c.Meta.Audience,
		Runnable:             c.Runnable,
		List:                 c.Meta.List,
		RequiresConfirmation: c.NeedsConfirmation(),
		TimeoutMS:            c.Timeout().Milliseconds(),
		Flags:                map[string]FlagEntry{},
		Arguments:            c.Args,
		FlagGroups:           c.Meta.Groups,
		InputSchema:          c.InputSchema(),
		OutputSchema:         c.Meta.Output,
		ExitCodes:            c.ExitCodes(),
		Examples:             c.Meta.Examples,
	}
	if !c.Runnable {
		d.TimeoutMS = 0
	}
	for _, f := range c.AllFlags() {
		if f.Hidden {
			continue
		}
		d.Flags[f.Name] = f.entry()
	}
	for _, s := range c.Commands {
		if !s.Hidden && s.VisibleTo(agent) {
			d.Subcommands = append(d.Subcommands, s.DotPath())
		}
	}
	return d
}

func (f *Flag) entry() FlagEntry {
	e := FlagEntry{
		Type:        string(f.Type),
		Required:    f.Required,
		Description: f.Usage,
		Default:     f.Default,
		Short:       f.Short,
		Env:         f.Env,
		Sensitive:   f.Sensitive,
	}
	if len(f.Enum) > 0 {
		e.Type, e.EnumValues = "enum", f.Enum
	}
	if f.Sensitive {
		e.Default = nil
	}
	return e
}

// InputSchema returns the JSON Schema of c's input: an object with one
// property per visible flag, by long name, and one per positional argument.
func (c *Command) InputSchema() Schema {
	props := map[string]*property{}
	var required []string
	for _, f := range c.AllFlags() {
		if f.Hidden {
			continue
		}
		props[f.Name] = f.property()
		if f.Required {
			required = append(required, f.Name)
		}
	}
	for _, a := range c.Args {
		props[a.Name] = a.property()
		if a.Required {
			required = append(required, a.Name)
		}
	}
	s := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	return s
}

// property is one property of an input schema. It is a struct rather than a
// map because describe encodes one per flag of every command; its fields are
// in alphabetical order of their JSON names, so it encodes exactly as the
// equivalent map would.
type property struct {
	AdditionalProperties *property `json:"additionalProperties,omitempty"`
	Default              any       `json:"default,omitempty"`
	Description          string    `json:"description,omitempty"`
	Enum                 []string  `json:"enum,omitempty"`
	Format               string    `json:"format,omitempty"`
	Items                *property `json:"items,omitempty"`
	MinItems             int       `json:"minItems,omitempty"`
	Pattern              string    `json:"pattern,omitempty"`
	Type                 Type      `json:"type"`
	WriteOnly            bool      `json:"writeOnly,omitempty"`
}

func (f *Flag) property() *property {
	p := &property{Type: f.Type, Description: f.Usage, Format: f.Format, Enum: f.Enum, Pattern: f.Pattern, WriteOnly: f.Sensitive}
	switch f.Type {
	case Array:
		p.Items = &property{Type: orString(f.Items)}
	case Object:
		p.AdditionalProperties = &property{Type: orString(f.Items)}
	}
	if !f.Sensitive {
		p.Default = f.Default
	}
	return p
}

func (a *Arg) property() *property {
	item := &property{Type: orString(a.Type), Enum: a.Enum, Pattern: a.Pattern, Description: a.Usage}
	if !a.Variadic {
		return item
	}
	p := &property{Type: Array, Items: item, Description: a.Usage}
	if a.Required {
		p.MinItems = 1
	}
	return p
}

func orString(t Type) Type {
	if t == "" {
		return String
	}
	return t
}
