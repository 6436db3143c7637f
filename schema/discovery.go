package schema

import (
	"strconv"

	"github.com/duet-cli/duet/internal/jsonw"
)

// Placement says where a command accepts its options (the CLI Agent Spec's
// option_placement).
type Placement string

// The option placements a command can declare.
const (
	// Any accepts options anywhere among the arguments: the default.
	Any Placement = "any"
	// Strict accepts options only before the first positional argument:
	// a command that hands what follows, verbatim, to another program
	// (REQ-C-027). Its framework must stop reading options there too
	// (urfave's StopOnNthArg: 1, cobra's SetInterspersed(false)): then an
	// option after the first argument is the program's, forwarded as it
	// is, as the declaration tells an agent. Where the framework would
	// read it instead, it is refused, since the command would take for
	// its own what the caller meant for the program.
	Strict Placement = "strict"
)

// Placement returns where c accepts its options: a passthrough command's
// are always before its path, the rest being the delegated tool's.
func (c *Command) Placement() Placement {
	if c.Meta.OptionPlacement == "" {
		if c.Delegates() {
			return Strict
		}
		return Any
	}
	return c.Meta.OptionPlacement
}

// Arguments says who parses a command's arguments (the CLI Agent Spec's
// arguments, REQ-C-031).
type Arguments string

// The ways a command's arguments can be parsed.
const (
	// DeclaredArguments: the framework parses them, as the command
	// declares them. The default.
	DeclaredArguments Arguments = "declared"
	// PassthroughArguments: every token after the command's path goes,
	// verbatim and unparsed, to another tool's parser; the framework's
	// own options go before the path.
	PassthroughArguments Arguments = "passthrough"
)

// Delegates reports whether c is a passthrough command (Meta.Arguments),
// whose arguments are another tool's to parse.
func (c *Command) Delegates() bool { return c.Meta.Arguments == PassthroughArguments }

// DataVersion returns the current major version of the shape of c's data:
// Meta.SchemaVersion, or 1.
func (c *Command) DataVersion() int { return max(c.Meta.SchemaVersion, 1) }

// MinDataVersion returns the oldest version of the shape of c's data that
// --schema-version gives: Meta.MinSchemaVersion, or the current one.
func (c *Command) MinDataVersion() int {
	if c.Meta.MinSchemaVersion <= 0 {
		return c.DataVersion()
	}
	return min(c.Meta.MinSchemaVersion, c.DataVersion())
}

// Versioned reports whether c declares versions of its data, and so takes
// --schema-version.
func (c *Command) Versioned() bool { return c.Meta.SchemaVersion > 1 || c.Meta.MinSchemaVersion > 0 }

// VersionString writes a major version as the spec's schema versions are
// written: "2.0".
func VersionString(major int) string { return strconv.Itoa(major) + ".0" }

// discovery fills the document's discovery members. The command's
// parameters, the spec's name for its flags, are in its --schema document
// (input), not in every entry of a manifest, which lists them as flags.
func (c *Command) discovery(d *Doc, input bool) {
	if input {
		d.Parameters = d.Flags
	}
	m := c.Meta
	d.OptionPlacement = c.Placement()
	if c.Delegates() {
		d.Passthrough, d.HelpArgv = true, m.HelpArgv
	}
	d.SupportsStreaming = c.Streams()
	d.StreamingDefault = m.StreamingDefault
	if c.Versioned() {
		d.SchemaVersion, d.MinSchemaVersion = VersionString(c.DataVersion()), VersionString(c.MinDataVersion())
	}
	d.IntroducedIn, d.DeprecatedIn, d.Replacement, d.RemovedIn = m.IntroducedIn, m.DeprecatedIn, m.Replacement, m.RemovedIn
	d.SortKey = m.SortKey
}

// appendDiscovery appends the discovery members, in the order of their
// fields.
func (d Doc) appendDiscovery(b []byte) []byte {
	if len(d.Parameters) > 0 {
		b = append(b, `,"parameters":`...)
		b = jsonw.MapFunc(b, d.Parameters, FlagEntry.AppendJSON)
	}
	b = append(b, `,"option_placement":`...)
	b = jsonw.String(b, string(d.OptionPlacement))
	if d.Passthrough {
		b = append(b, `,"passthrough":true`...)
	}
	if len(d.HelpArgv) > 0 {
		b = jsonw.Strings(jsonw.Key(b, "help_argv"), d.HelpArgv)
	}
	if d.SupportsStreaming {
		b = append(b, `,"supports_streaming":true`...)
	}
	if d.StreamingDefault {
		b = append(b, `,"streaming_default":true`...)
	}
	for _, m := range [...]struct{ name, v string }{
		{"schema_version", d.SchemaVersion}, {"min_schema_version", d.MinSchemaVersion},
		{"introduced_in", d.IntroducedIn}, {"deprecated_in", d.DeprecatedIn},
		{"replacement", d.Replacement}, {"removed_in", d.RemovedIn}, {"sort_key", d.SortKey},
	} {
		if m.v != "" {
			b = jsonw.String(jsonw.Key(b, m.name), m.v)
		}
	}
	return b
}
