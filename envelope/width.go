package envelope

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// displayWidth is the number of terminal columns s takes: two for East Asian
// wide and fullwidth runes, none for combining marks, format characters and
// variation selectors, one otherwise. It is a per-rune approximation of what
// terminals do (emoji sequences joined by ZWJ may differ), kept in-house
// because the table libraries' width tables cost every process start-up time.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1 // ASCII and Latin: the common case, without table lookups
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), unicode.Is(unicode.Variation_Selector, r):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// stripEscapes removes terminal escape sequences: CSI (ESC [ … final byte),
// OSC, DCS, SOS, PM and APC strings (ended by BEL or ESC \), and two-byte ESC
// sequences. Their 8-bit C1 forms are left to the caller's control-character
// replacement. A sequence cut short by the end of s is dropped whole.
func stripEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		i = skipEscape(s, i)
	}
	return b.String()
}

// skipEscape returns the index just past the escape sequence starting at s[i].
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch c := s[i]; c {
	case '[': // CSI: parameter and intermediate bytes, then one final byte
		for i++; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return i
	case ']', 'P', 'X', '^', '_': // string sequences
		for i++; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			}
		}
		return i
	default: // ESC plus intermediates plus one final byte (e.g. ESC ( B, ESC c)
		for ; i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f; i++ {
		}
		if i < len(s) {
			i++
		}
		return i
	}
}
