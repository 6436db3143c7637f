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
	// a command that hands what follows, verbatim, to another program.
	// An option after one is refused, rather than silently given away.
	Strict Placement = "strict"
)

// Placement returns where c accepts its options.
func (c *Command) Placement() Placement {
	if c.Meta.OptionPlacement == "" {
		return Any
	}
	return c.Meta.OptionPlacement
}

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
	d.SupportsStreaming = m.Streaming || m.StreamingDefault
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
