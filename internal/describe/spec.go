package describe

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// SpecVersion is the ManifestResponse contract `tool manifest` follows: the
// CLI Agent Spec v1.16's (3.21).
const SpecVersion = "3.21"

// SpecManifest is the CLI Agent Spec's ManifestResponse 3.x, as `tool
// manifest` prints it: every member its schema allows, and none it does
// not. It is [Manifest] (describe) projected onto that schema, with the
// same commands and the same etag. The global options are listed once, in
// Flags (REQ-F-079); a command's own flags and positional arguments are in
// its entry.
type SpecManifest struct {
	SchemaVersion    string                 `json:"schema_version"`
	FrameworkVersion string                 `json:"framework_version"`
	Etag             string                 `json:"etag"`
	EnvVars          []SpecEnvVar           `json:"env_vars,omitempty"` // those that back no flag and hold no secret (REQ-F-073)
	Flags            map[string]SpecFlag    `json:"flags"`
	Commands         map[string]SpecCommand `json:"commands"`
}

// SpecCommand is the spec's CommandEntry.
type SpecCommand struct {
	Description    string              `json:"description"`
	DangerLevel    string              `json:"danger_level"`
	RequiredScopes []string            `json:"required_scopes"`
	Flags          map[string]SpecFlag `json:"flags"`
	Positionals    []SpecPositional    `json:"positionals,omitempty"`
	ExitCodes      exitcode.Table      `json:"exit_codes"`
	Aliases        []string            `json:"aliases,omitempty"`
	OutputSchema   schema.Schema       `json:"output_schema,omitempty"`
	Examples       []schema.Example    `json:"examples,omitempty"`
	Subcommands    []string            `json:"subcommands,omitempty"`
	Builtin        bool                `json:"builtin,omitempty"`
	OutputFile     string              `json:"output_file,omitempty"`
	Stdout         string              `json:"stdout,omitempty"`
	Stderr         string              `json:"stderr,omitempty"`
	// Every path the command may write (REQ-C-011), the audit log among
	// them while it is on (REQ-O-030).
	FilesystemSideEffects []schema.SideEffect       `json:"filesystem_side_effects,omitempty"`
	Protocol              string                    `json:"protocol,omitempty"`
	MCP                   *bool                     `json:"mcp,omitempty"` // only ever false
	Interactive           bool                      `json:"interactive,omitempty"`
	RequiresPerson        bool                      `json:"requires_person,omitempty"`
	HasNetworkIO          bool                      `json:"has_network_io,omitempty"`
	Steps                 []string                  `json:"steps,omitempty"`
	Async                 bool                      `json:"async,omitempty"`
	Interruption          *schema.InterruptionEntry `json:"interruption,omitempty"`
	SecretEnvVars         []string                  `json:"secret_env_vars,omitempty"`
	TokenEnvVars          []string                  `json:"token_env_vars,omitempty"`
	Platform              []string                  `json:"platform,omitempty"`
	RequiredTools         map[string]string         `json:"required_tools,omitempty"`
	ConfigWriteScope      string                    `json:"config_write_scope,omitempty"`
	StreamingDefault      bool                      `json:"streaming_default,omitempty"`
	SafeDefault           bool                      `json:"safe_default,omitempty"`
	ConfirmFlag           string                    `json:"confirm_flag,omitempty"`
	Idempotent            bool                      `json:"idempotent,omitempty"`
	OptionPlacement       string                    `json:"option_placement,omitempty"`
	Arguments             string                    `json:"arguments,omitempty"` // "passthrough" only (REQ-C-031)
	HelpArgv              []string                  `json:"help_argv,omitempty"`
	Stdin                 *SpecStdin                `json:"stdin,omitempty"`
	Requires              []schema.Rule             `json:"requires,omitempty"` // REQ-C-026
}

// SpecStdin is the spec's StdinDeclaration: how a command reads stdin.
type SpecStdin struct {
	Mode         string        `json:"mode"` // buffered or lines
	MaxBytes     int           `json:"max_bytes,omitempty"`
	MaxLineBytes int           `json:"max_line_bytes,omitempty"`
	RecordSchema schema.Schema `json:"record_schema,omitempty"` // records only
}

// SpecFlag is the spec's FlagEntry.
type SpecFlag struct {
	Type        string            `json:"type"`
	Required    bool              `json:"required"`
	Description string            `json:"description"`
	Default     any               `json:"default,omitempty"`
	EnumValues  []string          `json:"enum_values,omitempty"`
	Short       string            `json:"short,omitempty"`
	EnvVars     []SpecEnvVar      `json:"env_vars,omitempty"`
	MediaTypes  map[string]string `json:"media_types,omitempty"`
	Schema      schema.Schema     `json:"schema,omitempty"` // an object flag's value (ManifestResponse 3.7)
}

// MarshalJSON writes an integer flag's enum_values as numbers
// (ManifestResponse 3.18).
func (f SpecFlag) MarshalJSON() ([]byte, error) {
	type plain SpecFlag
	if f.Type != string(schema.Integer) || len(f.EnumValues) == 0 {
		return json.Marshal(plain(f))
	}
	return json.Marshal(struct {
		plain
		EnumValues []json.Number `json:"enum_values"`
	}{plain(f), numbers(f.EnumValues)})
}

// numbers are integer values, checked when the app was wrapped, as JSON
// numbers.
func numbers(values []string) []json.Number {
	out := make([]json.Number, len(values))
	for i, v := range values {
		out[i] = json.Number(v)
	}
	return out
}

// SpecEnvVar is the spec's EnvVarEntry.
type SpecEnvVar struct {
	Name        string `json:"name"`
	Deprecated  bool   `json:"deprecated,omitempty"`
	Description string `json:"description,omitempty"` // required in root env_vars
}

// globalEnv are the variables the lifecycle reads as the default of one of
// its global options, in the order it reads them: each is declared in
// that flag's env_vars, its one home (REQ-F-073).
func globalEnv(tool, flag string, legacyOutput bool) []SpecEnvVar {
	name := func(suffix string) SpecEnvVar { return SpecEnvVar{Name: envelope.EnvName(tool, suffix)} }
	switch flag {
	case flagname.Debug:
		return []SpecEnvVar{name("DEBUG")}
	case flagname.Format:
		if !legacyOutput {
			return []SpecEnvVar{name("FORMAT")}
		}
		old := name("OUTPUT") // read only when FORMAT is not set
		old.Deprecated = true
		return []SpecEnvVar{name("FORMAT"), old}
	case flagname.InstanceID:
		return []SpecEnvVar{name("INSTANCE_ID")}
	case flagname.Profile:
		return []SpecEnvVar{name("PROFILE")}
	case flagname.NoUpdateCheck:
		return []SpecEnvVar{name("NO_UPDATE")}
	}
	return nil
}

// rootEnv is root env_vars: the variables Duet reads for every tool that
// back no flag and hold no secret, then those the app declares it reads
// itself (AgentsInfo.Env), except any with another home. Each has its
// description; the one name without the prefix, the spec's literal
// TOOL_TRACE_ID, follows the prefixed name that wins over it (REQ-F-073).
func (m Manifest) rootEnv(homed map[string]bool) []SpecEnvVar {
	var vars []SpecEnvVar
	seen := map[string]bool{}
	for _, v := range slices.Concat(DuetEnv(m.Tool), m.agents.Env) {
		if !seen[v.Name] && !homed[v.Name] {
			seen[v.Name] = true
			vars = append(vars, SpecEnvVar{Name: v.Name, Description: v.Description})
		}
	}
	return vars
}

// SpecPositional is the spec's PositionalEntry.
type SpecPositional struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Required    bool     `json:"required"`
	Description string   `json:"description"`
	EnumValues  []string `json:"enum_values,omitempty"`
	Variadic    bool     `json:"variadic,omitempty"`
}

// MarshalJSON writes an integer positional's enum_values as numbers
// (ManifestResponse 3.18).
func (p SpecPositional) MarshalJSON() ([]byte, error) {
	type plain SpecPositional
	if p.Type != string(schema.Integer) || len(p.EnumValues) == 0 {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		plain
		EnumValues []json.Number `json:"enum_values"`
	}{plain(p), numbers(p.EnumValues)})
}

// globalFlag is one option every command accepts.
type globalFlag struct {
	name  string
	entry schema.FlagEntry
}

// entryFacts are what a command's document leaves to the tree.
type entryFacts struct {
	builtin    bool
	outputFile bool // it has Duet's --output <path>
	mcpOff     bool // runnable, and the tool's MCP server does not offer it
	placement  schema.Placement
	// introspection: it only reads what the tool is (Introspection).
	introspection bool
}

// Introspection reports whether c is one of Duet's commands that only read
// what the tool is — its manifest, its description, its audit log — which
// the audit log leaves out (REQ-O-030): they do no work.
func Introspection(c *schema.Command) bool {
	if !c.Builtin || c.Parent == nil || c.Parent.Parent != nil {
		return false
	}
	switch c.Name {
	case "audit-log", "manifest", "describe":
		return true
	}
	return false
}

// globalsOf returns the options root gives every command (REQ-F-079).
func globalsOf(root *schema.Command) []globalFlag {
	var out []globalFlag
	for i := range root.Flags {
		f := &root.Flags[i]
		if f.Hidden || !f.Persistent {
			continue
		}
		out = append(out, globalFlag{f.Name, f.Entry()})
	}
	return out
}

func factsOf(c *schema.Command) entryFacts {
	out := c.Flag(flagname.Output)
	return entryFacts{
		builtin:    c.Builtin,
		outputFile: out != nil && out.Builtin,
		mcpOff:     c.Runnable && !c.IsTool(),
		placement:  c.Placement(),

		introspection: Introspection(c),
	}
}

// isBinarySchema reports whether s is the schema of envelope.Binary's
// wrapper (REQ-F-017): an object whose type is the constant "binary" and
// encoding the constant "base64". A command that declares it as its output
// answers with a single binary value.
func isBinarySchema(s schema.Schema) bool {
	props := asMap(s["properties"])
	return asMap(props["type"])["const"] == "binary" && asMap(props["encoding"])["const"] == "base64"
}

// asMap is v as a JSON object, or nil.
func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case schema.Schema:
		return m
	}
	return nil
}

// mediaType is the media type of a format Duet adds beside the spec's
// table (REQ-O-001), which the root format flag must name, or "".
func mediaType(format string) string {
	switch format {
	case "text":
		return "text/plain"
	case "toon":
		return "text/toon"
	}
	return ""
}

// Spec projects the manifest onto the spec's ManifestResponse.
//
// A command whose danger is unknown (undeclared) is listed as destructive:
// the spec has no word for "not declared", and an agent must assume the
// worst of it. Examples are written in full, starting with the tool's name.
func (m Manifest) Spec() SpecManifest {
	s := SpecManifest{
		SchemaVersion:    SpecVersion,
		FrameworkVersion: m.FrameworkVersion,
		Etag:             m.Etag,
		Flags:            make(map[string]SpecFlag, len(m.globals)),
		Commands:         make(map[string]SpecCommand, len(m.Commands)),
	}
	global := make(map[string]bool, len(m.globals))
	for _, g := range m.globals {
		f := specFlag(g.entry)
		if env := globalEnv(m.Tool, g.name, m.agents.LegacyOutput); env != nil { // read by the lifecycle itself, as the flag's default
			f.EnvVars = env
		}
		if g.name == flagname.Format {
			f.MediaTypes = map[string]string{}
			for _, v := range f.EnumValues {
				if mt := mediaType(v); mt != "" {
					f.MediaTypes[v] = mt
				}
			}
		}
		s.Flags[g.name], global[g.name] = f, true
	}
	for path, d := range m.Commands {
		facts := m.entries[path]
		c := SpecCommand{
			Description:    d.Description,
			DangerLevel:    string(d.DangerLevel),
			RequiredScopes: d.RequiredScopes,
			Flags:          make(map[string]SpecFlag, len(d.Flags)),
			ExitCodes:      d.ExitCodes,
			Aliases:        d.Aliases,
			OutputSchema:   d.OutputSchema, // data's schema; absent, data may be anything
			Subcommands:    d.Subcommands,
			Builtin:        facts.builtin,
			Interactive:    d.Interactive,
			RequiresPerson: d.RequiresPerson,
			HasNetworkIO:   d.HasNetworkIO,
			Steps:          d.Steps,
			Async:          d.Async,
			Interruption:   d.Interruption,
			// A token an auth command accepts is named in its
			// token_env_vars only, the first home (REQ-F-073).
			SecretEnvVars: slices.DeleteFunc(slices.Clone(d.SecretEnvVars), func(v string) bool {
				return slices.Contains(d.TokenEnvVars, v)
			}),
			TokenEnvVars:     d.TokenEnvVars,
			Platform:         d.Platform,
			RequiredTools:    d.RequiredTools,
			ConfigWriteScope: string(d.ConfigWriteScope),
			StreamingDefault: d.StreamingDefault,
			SafeDefault:      d.SafeDefault,
			ConfirmFlag:      d.ConfirmFlag,
			Idempotent:       d.Idempotent,
			Requires:         d.Requires,
			Stderr:           d.Stderr, // child_log (REQ-F-038)
		}
		c.FilesystemSideEffects = slices.Clone(d.FilesystemSideEffects)
		if m.agents.AuditLog != "" && d.Runnable && !facts.introspection {
			c.FilesystemSideEffects = append(c.FilesystemSideEffects, schema.SideEffect{Path: m.agents.AuditLog, Kind: schema.LogFile})
		}
		if c.RequiredScopes == nil {
			c.RequiredScopes = []string{}
		}
		if in := d.StdinInput; in != nil {
			c.Stdin = &SpecStdin{Mode: in.Mode, MaxBytes: in.MaxBytes, MaxLineBytes: in.MaxLineBytes, RecordSchema: in.RecordSchema}
		}
		if d.DangerLevel == schema.Unknown {
			c.DangerLevel = string(schema.Destructive)
		}
		// Every command says where it takes its options, "any" included,
		// so that an agent never infers it from an absence (REQ-C-027).
		c.OptionPlacement = string(facts.placement)
		if d.Passthrough {
			// Every token after its path is the delegated tool's: the
			// options it takes are Duet's own, given before the path, and
			// it lists none of its own (REQ-C-031).
			c.Arguments, c.HelpArgv = string(schema.PassthroughArguments), d.HelpArgv
		}
		if d.Protocol != "" {
			// A server's stdout is its protocol's from the first byte
			// (REQ-C-032); the spec names MCP over stdio mcp-stdio.
			c.Stdout, c.Protocol, c.OutputSchema = "protocol", d.Protocol, nil
			if d.Protocol == "mcp" {
				c.Protocol = "mcp-stdio"
			}
		} else if facts.outputFile {
			c.OutputFile = "formatted"
			if isBinarySchema(d.OutputSchema) {
				// --output writes a binary result's raw bytes (REQ-O-001).
				c.OutputFile = "binary"
			}
		}
		if facts.mcpOff {
			c.MCP = new(false)
		}
		if d.Passthrough && c.OutputFile != "" {
			c.OutputFile = "envelope" // --output keeps the envelope stderr ends with (REQ-C-031)
		}
		c.Description = withHistory(c.Description, d) // discovery: the spec's introduced_in and deprecated_in
		for name, f := range d.Flags {
			if global[name] || c.Stdout != "" && name == flagname.Output || d.Passthrough {
				continue
			}
			c.Flags[name] = specFlag(f)
		}
		for _, a := range d.Arguments {
			c.Positionals = append(c.Positionals, specPositional(a))
		}
		for _, ex := range d.Examples {
			c.Examples = append(c.Examples, schema.Example{Description: ex.Description, Command: fullCommand(m.Tool, ex.Command)})
		}
		s.Commands[path] = c
	}
	homed := map[string]bool{}
	for _, f := range s.Flags {
		for _, e := range f.EnvVars {
			homed[e.Name] = true
		}
	}
	for _, c := range s.Commands {
		for _, f := range c.Flags {
			for _, e := range f.EnvVars {
				homed[e.Name] = true
			}
		}
		for _, e := range slices.Concat(c.SecretEnvVars, c.TokenEnvVars) {
			homed[e] = true // a secret's home is secret_env_vars
		}
	}
	s.EnvVars = m.rootEnv(homed)
	return s
}

func specFlag(f schema.FlagEntry) SpecFlag {
	t := f.Type
	switch t {
	case "string", "integer", "number", "boolean", "array", "enum":
	case "object":
		if f.Schema == nil {
			t = "array" // a map flag: key=value pairs, one per value
		}
	default:
		t = "string"
	}
	s := SpecFlag{Type: t, Required: f.Required, Description: f.Description, Default: f.Default, EnumValues: f.EnumValues, Short: f.Short, Schema: f.Schema}
	if len(s.Short) != 1 {
		s.Short = ""
	}
	if s.Description == "" {
		s.Description = "(undocumented)"
	}
	// A secret is never a flag's value (REQ-C-016): its variable is listed
	// in secret_env_vars, never in a flag's env_vars (ManifestResponse 3.4).
	for _, e := range f.Env {
		if !f.Sensitive {
			s.EnvVars = append(s.EnvVars, SpecEnvVar{Name: e})
		}
	}
	return s
}

func specPositional(a schema.Arg) SpecPositional {
	p := SpecPositional{Name: a.Name, Type: "string", Required: a.Required, Description: a.Usage, Variadic: a.Variadic}
	switch {
	case len(a.Enum) > 0 && a.Type == schema.Integer:
		p.Type, p.EnumValues = string(a.Type), a.Enum // integers, written as numbers
	case len(a.Enum) > 0:
		p.Type, p.EnumValues = "enum", a.Enum
	case a.Type == schema.Integer || a.Type == "number":
		p.Type = string(a.Type)
	}
	if p.Description == "" {
		p.Description = "<" + a.Name + ">"
	}
	return p
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

// commandWords turns a dot path into the words that call it.
func commandWords(tool, path string) string {
	if path == tool {
		return ""
	}
	return strings.ReplaceAll(path, ".", " ")
}
