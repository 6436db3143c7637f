package describe

import (
	"strings"

	"github.com/duet-cli/duet/schema"
)

// historyLine is a command's history as a sentence for the spec's closed
// CommandEntry, which has no member for it (describe has introduced_in,
// deprecated_in, replacement and removed_in): "Introduced in 1.0.0.
// Deprecated in 2.0.0: use tool new-sub. Removed in 3.0.0."; "" for a
// command with no history declared.
func historyLine(d schema.Doc) string {
	var parts []string
	if d.IntroducedIn != "" {
		parts = append(parts, "Introduced in "+d.IntroducedIn+".")
	}
	if d.DeprecatedIn != "" {
		s := "Deprecated in " + d.DeprecatedIn
		if d.Replacement != "" {
			s += ": use " + d.Replacement
		}
		parts = append(parts, s+".")
	}
	if d.RemovedIn != "" {
		parts = append(parts, "Removed in "+d.RemovedIn+".")
	}
	return strings.Join(parts, " ")
}

// withHistory appends d's history to a CommandEntry's description.
func withHistory(description string, d schema.Doc) string {
	h := historyLine(d)
	switch {
	case h == "":
		return description
	case description == "":
		return h
	}
	return strings.TrimRight(description, ".") + ". " + h
}
