package toon

import (
	"unicode"
	"unicode/utf8"
)

// needsQuotes reports whether the string value s must be quoted (§7.2) where
// delim is the relevant delimiter (§11.1).
func needsQuotes(s string, delim byte) bool {
	switch s {
	case "", "true", "false", "null":
		return true
	}
	// A leading hyphen would read as a list item or a negative number. A
	// leading "#" makes a v4 comment of a line the value starts, such as a
	// table row or a root string.
	if s[0] == '-' || s[0] == '#' || numericLike(s) {
		return true
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if isSpace(first) || isSpace(last) {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ':', '"', '\\', '[', ']', '{', '}', delim:
			return true
		default:
			if c < 0x20 {
				return true
			}
		}
	}
	return false
}

// isSpace is the "whitespace" of §7.2, which the spec leaves undefined. It
// is read broadly: Unicode White_Space plus U+FEFF, which JavaScript's
// trim() also strips. The v4 reference decoder trims ASCII spaces only, and
// its encoder quotes for those and tabs alone, but a decoder built on a
// host's trim() strips more. Quoting a string that did not need it is
// harmless; an unquoted one that a decoder trims would not round-trip.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || r == '\uFEFF'
}

// numericLike reports whether s matches /^[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i,
// the strings a reader would take for numbers. §7.2's pattern has "-?"
// only, and no decoder reads "+1" as a number, but the reference encoder
// quotes it, and so a string such as "+1" reaches a model as a string.
func numericLike(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if !digits() {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// unquotedKey reports whether k may be written bare: ^[A-Za-z_][A-Za-z0-9_.]*$
// (§7.3).
func unquotedKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '.')) {
			return false
		}
	}
	return true
}

const hex = "0123456789abcdef"

// appendQuoted appends s in double quotes with the escapes of §7.1: \\, \",
// \n, \r, \t, \u00xx (lowercase) for the other C0 controls, and every other
// character as literal UTF-8.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
