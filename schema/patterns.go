package schema

// Patterns for values agents are most often asked for, to use as a
// FlagMeta.Pattern or an Arg.Pattern. Each is anchored. --schema shows the
// pattern itself, so an agent can check a value before it calls.
const (
	// AlphanumericID is a resource id of letters, digits, '-' and '_': no
	// path separator, dot, query, fragment or percent sign can pass it.
	AlphanumericID = `^[A-Za-z0-9][A-Za-z0-9_-]*$`
	// UUID is an RFC 9562 UUID in its hyphenated text form.
	UUID = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// SemVer is a semantic version, 1.2.3 with an optional pre-release and
	// build, and no leading v.
	SemVer = `^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`
	// URL is an absolute http or https URL without whitespace.
	URL = `^https?://[^\s/?#]+[^\s]*$`
)

// PatternType names a pattern of this package as the CLI Agent Spec's
// pattern_type does ("alphanumeric_id", "uuid", "semver", "url"), or
// returns "" for any other pattern.
func PatternType(pattern string) string {
	switch pattern {
	case AlphanumericID:
		return "alphanumeric_id"
	case UUID:
		return "uuid"
	case SemVer:
		return "semver"
	case URL:
		return "url"
	}
	return ""
}
