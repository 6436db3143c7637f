package envelope

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/duet-cli/duet/internal/jsonw"
)

// cleanJSON removes terminal control sequences — ANSI colour and style,
// cursor movement, OSC titles and hyperlinks — and carriage returns from the
// string values of compact JSON, where encoders write them as \u001b and
// \r (F-007). What a library coloured for a terminal reads as plain text, and
// an agent never decodes an escape byte. JSON without either is returned as
// is after one scan; a string that has them is decoded, cleaned with
// [stripEscapes] and encoded again.
func cleanJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u001b`)) && !bytes.Contains(b, []byte(`\r`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if b[i] != '"' {
			out = append(out, b[i])
			i++
			continue
		}
		end := i + 1 // the closing quote's index
		for end < len(b) && b[end] != '"' {
			if b[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(b) { // not JSON after all: leave it
			return append(out, b[i:]...)
		}
		str := b[i : end+1]
		var s string
		if (bytes.Contains(str, []byte(`\u001b`)) || bytes.Contains(str, []byte(`\r`))) && json.Unmarshal(str, &s) == nil {
			out = jsonw.String(out, strings.ReplaceAll(stripEscapes(s), "\r", ""))
		} else {
			out = append(out, str...)
		}
		i = end + 1
	}
	return out
}
