package envelope

import (
	"io"
	"strings"
)

// writeProse writes prose meant for a person (warnings, the error and its
// next step) on stderr, wrapped at Settings.Width columns. JSON never comes
// here: only the text renderings write prose on stderr.
func (o *Output) writeProse(s string) {
	io.WriteString(o.s.Stderr, wrap(s, o.s.Width))
}

// wrap breaks each line of s that is wider than width terminal columns
// between words, keeping every word whole: a word wider than width (a URL, a
// path) stands unbroken on a line of its own rather than being cut, so it
// can still be copied. A continued line keeps its first line's indentation.
// Escape sequences take no columns. width 0 or less leaves s as it is.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		wrapLine(&b, line, width)
	}
	return b.String()
}

func wrapLine(b *strings.Builder, line string, width int) {
	if displayWidth(stripEscapes(line)) <= width {
		b.WriteString(line)
		return
	}
	body := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(body)]
	col := 0
	for i, word := range strings.Fields(body) {
		w := displayWidth(stripEscapes(word))
		switch {
		case i == 0:
			b.WriteString(indent)
			col = displayWidth(indent)
		case col+1+w > width:
			b.WriteByte('\n')
			b.WriteString(indent)
			col = displayWidth(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += w
	}
}
