package envelope

import "github.com/duet-cli/duet/internal/jsonw"

// Alternative is a flag that does, without a person, what a command would
// otherwise need one for: the text an editor would have asked for, say.
type Alternative struct {
	Flag        string `json:"flag"` // as typed: "--message"
	Description string `json:"description,omitempty"`
}

func appendAlternatives(b []byte, alts []Alternative) []byte {
	if len(alts) == 0 {
		return b
	}
	b = append(b, `,"alternatives":[`...)
	for i, a := range alts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"flag":`...)
		b = jsonw.String(b, a.Flag)
		b = optString(b, "description", a.Description)
		b = append(b, '}')
	}
	return append(b, ']')
}
