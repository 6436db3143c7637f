// Package tomlstr writes Go strings as TOML basic strings, for the code
// that writes TOML by hand to keep a file's other bytes as they are (the
// MCP install's Codex edits, Meridian's configuration scaffold).
package tomlstr

import (
	"fmt"
	"strings"
)

// Quote writes s as a TOML basic string. strconv.Quote would not do: Go's
// \x escapes are not TOML.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
