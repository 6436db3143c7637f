package schema

import (
	"slices"
	"strings"

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
	LongRunning          bool                 `json:"long_running,omitempty"`
	Protocol             string               `json:"protocol,omitempty"`
	Flags                map[string]FlagEntry `json:"flags"`
	Arguments            []Arg                `json:"arguments,omitempty"`
	FlagGroups           []Group              `json:"flag_groups,omitempty"`
	InputSchema          Schema               `json:"input_schema,omitempty"`
	OutputSchema         Schema               `json:"output_schema,omitempty"`
	ExitCodes            exitcode.Table       `json:"exit_codes"`
	Examples             []Example            `json:"examples,omitempty"`
	Subcommands          []string             `json:"subcommands,omitempty"`

	// Auth, trust and safety (issue 16).
	RequiredScopes        []string          `json:"required_scopes"` // null for a command nobody declared
	SafeDefault           bool              `json:"safe_default,omitempty"`
	ConfirmFlag           string            `json:"confirm_flag,omitempty"`
	Idempotent            bool              `json:"idempotent,omitempty"`
	HeadlessSupported     *bool             `json:"headless_supported,omitempty"` // set for a command that acquires credentials
	TokenEnvVars          []string          `json:"token_env_vars,omitempty"`
	SecretEnvVars         []string          `json:"secret_env_vars,omitempty"`
	ConfigWriteScope      ConfigScope       `json:"config_write_scope,omitempty"`
	Platform              []string          `json:"platform,omitempty"`
	RequiredTools         map[string]string `json:"required_tools,omitempty"`
	HasNetworkIO          bool              `json:"has_network_io,omitempty"`
	FilesystemSideEffects []SideEffect      `json:"filesystem_side_effects,omitempty"`
	UntrustedOutput       bool              `json:"untrusted_output,omitempty"`
	// discovery: the spec's names and the command's history (discovery.go).
	Parameters        map[string]FlagEntry `json:"parameters,omitempty"`
	OptionPlacement   Placement            `json:"option_placement"`
	SupportsStreaming bool                 `json:"supports_streaming,omitempty"`
	StreamingDefault  bool                 `json:"streaming_default,omitempty"`
	SchemaVersion     string               `json:"schema_version,omitempty"`
	MinSchemaVersion  string               `json:"min_schema_version,omitempty"`
	IntroducedIn      string               `json:"introduced_in,omitempty"`
	DeprecatedIn      string               `json:"deprecated_in,omitempty"`
	Replacement       string               `json:"replacement,omitempty"`
	RemovedIn         string               `json:"removed_in,omitempty"`
	SortKey           string               `json:"sort_key,omitempty"`
	// Passthrough marks a passthrough command (Meta.Arguments; the
	// manifest's arguments: "passthrough", a name Arguments takes here).
	Passthrough bool     `json:"passthrough,omitempty"`
	HelpArgv    []string `json:"help_argv,omitempty"`
	// nobody to ask, and seeing what happened (issue 16: observe)
	Interactive                bool             `json:"interactive,omitempty"`
	RequiresPerson             bool             `json:"requires_person,omitempty"`
	RequiresEditor             bool             `json:"requires_editor,omitempty"`
	NonInteractiveAlternatives []string         `json:"non_interactive_alternatives,omitempty"`
	GUIOperations              []string         `json:"gui_operations,omitempty"`
	HeadlessBehavior           HeadlessBehavior `json:"headless_behavior,omitempty"`
	HighEntropyFields          []string         `json:"high_entropy_fields,omitempty"`
	// long work
	Steps               []string           `json:"steps,omitempty"`
	Resumable           bool               `json:"resumable,omitempty"`
	RollbackAvailable   bool               `json:"rollback_available,omitempty"`
	Async               bool               `json:"async,omitempty"`
	JobDescriptorSchema Schema             `json:"job_descriptor_schema,omitempty"`
	Interruption        *InterruptionEntry `json:"interruption,omitempty"`
	// input: what the command reads beyond its flags (see Meta).
	StdinInput         *StdinInput `json:"stdin_input,omitempty"`
	RecursiveTraversal bool        `json:"recursive_traversal,omitempty"`
	Requires           []Rule      `json:"requires,omitempty"`
	RawPayloadSchema   Schema      `json:"raw_payload_schema,omitempty"`

	// child processes (proc)
	Subprocess              *SubprocessEntry `json:"subprocess,omitempty"`
	PreserveLocale          bool             `json:"preserve_locale,omitempty"`
	SpawnsBackgroundProcess bool             `json:"spawns_background_process,omitempty"`
	CleanupCommand          string           `json:"cleanup_command,omitempty"`
	MaxLifetimeSeconds      int64            `json:"max_lifetime_seconds,omitempty"`
	Stderr                  string           `json:"stderr,omitempty"` // "child_log" (Meta.ChildLog)
}

// SubprocessEntry is the spec's subprocess section of a command: the program
// it runs, the flags and arguments whose values it passes (shell
// metacharacters refused), and the arguments always passed.
type SubprocessEntry struct {
	Binary             string   `json:"binary"`
	UserControlledArgs []string `json:"user_controlled_args"`
	HardcodedArgs      []string `json:"hardcoded_args"`
}

// FlagEntry is the spec's description of one flag.
type FlagEntry struct {
	Type string `json:"type"` // string, integer, number, boolean, array, object or enum
	// EnumValues are the values the flag takes: integers, written as
	// numbers, on an integer flag (ManifestResponse 3.18).
	Required    bool     `json:"required"`
	Description string   `json:"description"`
	Default     any      `json:"default,omitempty"`
	EnumValues  []string `json:"enum_values,omitempty"`
	Short       string   `json:"short,omitempty"`
	Env         []string `json:"env,omitempty"`
	Sensitive   bool     `json:"sensitive,omitempty"`
	// input: the value is JSON (JSON5 too, with feature/json5); "-" reads
	// it from stdin.
	JSON           bool `json:"json,omitempty"`
	PipeCompatible bool `json:"pipe_compatible,omitempty"`
	// Schema is an object flag's value's JSON Schema (type "object").
	Schema Schema `json:"schema,omitempty"`

	// child processes (proc)
	Subprocess bool `json:"subprocess,omitempty"`
	// discovery
	MaxBytes   int    `json:"max_bytes,omitempty"`
	Deprecated string `json:"deprecated,omitempty"` // what to use instead
}

// Document returns c's self-description, as `--schema` prints it. agent
// selects which subcommands are listed: those visible to an agent, or those
// visible to a person. It fails only when the declared output schema cannot
// be built (see [Command.OutputSchema]).
func (c *Command) Document(agent bool) (Doc, error) { return c.document(agent, true) }

// Entry returns c's entry in the describe manifest: its [Command.Document]
// without the input schema, which restates the flags and arguments the entry
// already lists. It is a fifth of a typical document, and a manifest has one
// per command; `<command> --schema` gives the schema.
func (c *Command) Entry(agent bool) (Doc, error) { return c.document(agent, false) }

// undeclaredOutput is the output schema of a command that declares none.
func undeclaredOutput() Schema {
	return Schema{"description": "not declared: data may be any JSON value"}
}

func (c *Command) document(agent, input bool) (Doc, error) {
	output, err := c.OutputSchema()
	if err != nil {
		return Doc{}, err
	}
	if output == nil && c.Runnable {
		// Still a JSON Schema, as every command's must be (C-015): one that
		// says what an agent can count on, which is any JSON.
		output = undeclaredOutput()
	}
	flags := c.visibleFlags()
	d := Doc{
		Command:              c.DotPath(),
		Description:          deprecated(c.Usage, c.Deprecated),
		Aliases:              c.Aliases,
		DangerLevel:          c.Danger(),
		Audience:             c.Meta.Audience,
		Runnable:             c.Runnable,
		List:                 c.Meta.List,
		RequiresConfirmation: c.NeedsConfirmation(),
		TimeoutMS:            c.Timeout().Milliseconds(),
		LongRunning:          c.Meta.LongRunning,
		Protocol:             c.Meta.Protocol,
		Flags:                make(map[string]FlagEntry, len(flags)),
		Arguments:            c.Args,
		FlagGroups:           c.Meta.Groups,
		OutputSchema:         output,
		ExitCodes:            c.ExitCodes(),
		Examples:             c.Meta.Examples,
	}
	if !c.Runnable {
		d.TimeoutMS = 0
	}
	d.work(c)
	c.observeDoc(&d)
	c.trustDoc(&d)
	if input {
		d.InputSchema = c.inputSchema(flags)
	}
	for _, f := range flags {
		d.Flags[f.Name] = f.entry()
	}
	for _, s := range c.Commands {
		if !s.Hidden && s.VisibleTo(agent) {
			d.Subcommands = append(d.Subcommands, s.DotPath())
		}
	}
	c.inputDoc(&d, input)
	c.documentProc(&d, flags)
	c.discovery(&d, input)
	return d, nil
}

// Entry is f as the spec's FlagEntry describes it.
func (f *Flag) Entry() FlagEntry { return f.entry() }

func (f *Flag) entry() FlagEntry {
	e := FlagEntry{
		Type:        string(f.Type),
		Required:    f.Required,
		Description: deprecated(f.Usage, f.Deprecated),
		Default:     f.Default,
		Short:       f.Short,
		Env:         f.Env,
		Sensitive:   f.Sensitive,

		JSON:           f.Format == FormatJSON,
		PipeCompatible: f.Pipe,
		Subprocess:     f.Subprocess,
	}
	switch {
	case f.Schema != nil:
		e.Type, e.Schema = string(Object), f.Schema
	case len(f.Enum) > 0 && f.Type == Integer:
		e.EnumValues = f.Enum // integers, which the encoding writes as numbers
	case len(f.Enum) > 0:
		e.Type, e.EnumValues = "enum", f.Enum
	}
	if f.Sensitive {
		e.Default = nil
	}
	e.MaxBytes, e.Deprecated = f.MaxBytes, f.Deprecated
	return e
}

// InputSchema returns the JSON Schema of c's input: an object with one
// property per visible flag, by long name, and one per positional argument.
func (c *Command) InputSchema() Schema { return c.inputSchema(c.visibleFlags()) }

// ToolInputSchema returns the JSON Schema of c's input as an MCP tool: the
// [Command.InputSchema] without the flags marked Control, property for
// property the same.
func (c *Command) ToolInputSchema() Schema {
	flags := c.visibleFlags()
	inputs := flags[:0]
	for _, f := range flags {
		if !f.Control {
			inputs = append(inputs, f)
		}
	}
	return c.inputSchema(inputs)
}

// ToolFlags returns the flags an MCP tool of c takes: those of its
// [Command.ToolInputSchema].
func (c *Command) ToolFlags() []*Flag {
	var flags []*Flag
	for _, f := range c.visibleFlags() {
		if !f.Control {
			flags = append(flags, f)
		}
	}
	return flags
}

// visibleFlags returns the accepted flags that are not hidden.
func (c *Command) visibleFlags() []*Flag {
	var flags []*Flag
	for f := range c.Accepted() {
		if !f.Hidden {
			flags = append(flags, f)
		}
	}
	return flags
}

func (c *Command) inputSchema(flags []*Flag) Schema {
	props := make(properties, 0, len(flags)+len(c.Args))
	var required []string
	for _, f := range flags {
		props = append(props, namedProperty{f.Name, f.property()})
		if f.Required {
			required = append(required, f.Name)
		}
	}
	for _, a := range c.Args {
		props = append(props, namedProperty{a.Name, a.property()})
		if a.Required {
			required = append(required, a.Name)
		}
	}
	// Sorted by name, as a map encodes; an argument named like a flag
	// replaces it, as it would in a map.
	slices.SortStableFunc(props, func(a, b namedProperty) int { return strings.Compare(a.name, b.name) })
	unique := props[:0]
	for i, p := range props {
		if i+1 == len(props) || props[i+1].name != p.name {
			unique = append(unique, p)
		}
	}
	s := Schema{"type": "object", "properties": unique, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	return s
}

// properties are an input schema's properties, sorted by name. A sorted list
// rather than a map, because describe builds one per command; it encodes as
// the JSON object the map would.
type properties []namedProperty

type namedProperty struct {
	name string
	*property
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
	p := &property{Type: f.Type, Description: f.Usage, Format: f.Format, WriteOnly: f.Sensitive}
	// An enum or pattern constrains each value of a repeated flag, not the
	// list: in the schema it belongs to the items.
	each := &property{Type: orString(f.Items), Enum: f.Enum, Pattern: f.Pattern}
	switch f.Type {
	case Array:
		p.Items = each
	case Object:
		p.AdditionalProperties = each
	default:
		p.Enum, p.Pattern = f.Enum, f.Pattern
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
