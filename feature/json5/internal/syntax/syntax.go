// Package syntax reads JSON5 (https://spec.json5.org, version 1.0.0) and
// writes it back as strict JSON (RFC 8259), for the structured inputs an agent
// types: the near-JSON a language model writes — trailing commas, comments,
// unquoted keys, single quotes, hexadecimal and signed numbers — is accepted
// rather than sent back for a retry.
//
// [Normalize] turns a JSON5 text into compact strict JSON, or fails with a
// [*SyntaxError] naming where. [Repair] never fails: it returns the strict
// JSON closest to any text, which an error offers the caller as the input it
// meant (`{env prod}` becomes `{"env":"prod"}`).
//
// JSON5 values strict JSON cannot hold — Infinity and NaN — are refused by
// Normalize and become null in Repair. Numbers keep their digits (a
// hexadecimal one is written in decimal); nothing is rounded.
package syntax

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/duet-cli/duet/internal/jsonw"
)

// maxDepth bounds the nesting of objects and arrays, as encoding/json does,
// so that no input can exhaust the stack.
const maxDepth = 10000

// SyntaxError is a text that is not JSON5, or a JSON5 value strict JSON
// cannot hold.
type SyntaxError struct {
	Msg    string // what is wrong, such as "unexpected '}'"
	Offset int    // the byte offset in the text where it went wrong
	Line   int    // 1-based
	Column int    // 1-based, in characters
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Normalize returns src, a JSON5 text, as compact strict JSON: comments
// and insignificant white space dropped, keys and strings double-quoted,
// trailing commas removed, numbers written as JSON numbers.
func Normalize(src []byte) ([]byte, error) {
	p := &parser{src: src, out: make([]byte, 0, len(src))}
	p.skip()
	if p.err == nil {
		p.value(0)
	}
	if p.err == nil {
		p.skip()
		if p.err == nil && p.pos < len(p.src) {
			p.fail(p.pos, "unexpected %s after the value", p.describe(p.pos))
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.out, nil
}

// parser is a recursive-descent reader of JSON5 that writes strict JSON as
// it goes: there is no tree in between.
type parser struct {
	src []byte
	pos int
	out []byte
	err *SyntaxError
}

func (p *parser) fail(at int, format string, args ...any) {
	if p.err != nil {
		return
	}
	line, col := 1, 1
	for i := 0; i < at && i < len(p.src); {
		r, size := utf8.DecodeRune(p.src[i:])
		switch {
		case r == '\n', r == '\u2028', r == '\u2029', r == '\r' && (i+1 >= len(p.src) || p.src[i+1] != '\n'):
			line, col = line+1, 1
		case r != '\r':
			col++
		}
		i += size
	}
	p.err = &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: at, Line: line, Column: col}
}

// describe names what is at i, for an error message.
func (p *parser) describe(i int) string {
	if i >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[i:])
	if r == utf8.RuneError {
		return "invalid UTF-8"
	}
	return fmt.Sprintf("%q", r)
}

// clip shortens what an error quotes from the text to 40 characters.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:39]) + "…"
}

// isSpace reports whether r is JSON5 white space or a line terminator.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u2028', '\u2029', '\ufeff':
		return true
	}
	return r > utf8.RuneSelf && unicode.Is(unicode.Zs, r)
}

func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// skip passes white space and comments.
func (p *parser) skip() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			p.pos += 2
			for p.pos < len(p.src) {
				r, size := utf8.DecodeRune(p.src[p.pos:])
				if isLineTerminator(r) {
					break
				}
				p.pos += size
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := strings.Index(string(p.src[p.pos+2:]), "*/")
			if end < 0 {
				p.fail(p.pos, "unterminated /* comment")
				return
			}
			p.pos += 2 + end + 2
		case c < utf8.RuneSelf:
			if !isSpace(rune(c)) {
				return
			}
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.src[p.pos:])
			if !isSpace(r) {
				return
			}
			p.pos += size
		}
	}
}

func (p *parser) value(depth int) {
	if depth > maxDepth {
		p.fail(p.pos, "nested too deeply")
		return
	}
	if p.pos >= len(p.src) {
		p.fail(p.pos, "unexpected end of input, want a value")
		return
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		p.object(depth)
	case c == '[':
		p.array(depth)
	case c == '"' || c == '\'':
		s, ok := p.str()
		if ok {
			p.out = jsonw.String(p.out, s)
		}
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		p.number()
	default:
		start := p.pos
		name, ok := p.identifier()
		if !ok {
			p.fail(start, "unexpected %s, want a value", p.describe(start))
			return
		}
		switch name {
		case "true", "false", "null":
			p.out = append(p.out, name...)
		case "Infinity", "NaN":
			p.fail(start, "%s is JSON5 but has no JSON form", name)
		default:
			p.fail(start, "unexpected word %q, want a value (a string needs quotes)", clip(name))
		}
	}
}

func (p *parser) object(depth int) {
	p.pos++ // {
	p.out = append(p.out, '{')
	for first := true; p.more(first, '}', "an object"); first = false {
		key, ok := p.key()
		if !ok {
			return
		}
		p.out = append(jsonw.String(p.out, key), ':')
		p.skip()
		if p.err != nil {
			return
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			p.fail(p.pos, "unexpected %s after the key %q, want ':'", p.describe(p.pos), clip(key))
			return
		}
		p.pos++
		p.skip()
		if p.err != nil {
			return
		}
		p.value(depth + 1)
		if p.err != nil {
			return
		}
	}
}

// key reads an object member's name: a string or an identifier name.
func (p *parser) key() (string, bool) {
	if p.pos >= len(p.src) {
		p.fail(p.pos, "unexpected end of input, want a key or '}'")
		return "", false
	}
	if c := p.src[p.pos]; c == '"' || c == '\'' {
		return p.str()
	}
	start := p.pos
	name, ok := p.identifier()
	if !ok {
		p.fail(start, "unexpected %s, want a key or '}'", p.describe(start))
	}
	return name, ok
}

func (p *parser) array(depth int) {
	p.pos++ // [
	p.out = append(p.out, '[')
	for first := true; p.more(first, ']', "an array"); first = false {
		p.value(depth + 1)
		if p.err != nil {
			return
		}
	}
}

// more reads up to the next member of an object or array, whose closing
// character is end: the comma before it (one trailing comma allowed) and
// the space around. It reports whether a member follows; false when the
// container is closed or the input is wrong (p.err).
func (p *parser) more(first bool, end byte, what string) bool {
	p.skip()
	if p.err != nil {
		return false
	}
	if p.pos < len(p.src) && p.src[p.pos] == end {
		p.pos++
		p.out = append(p.out, end)
		return false
	}
	if first {
		return true
	}
	if p.pos >= len(p.src) || p.src[p.pos] != ',' {
		p.fail(p.pos, "unexpected %s in %s, want ',' or '%c'", p.describe(p.pos), what, end)
		return false
	}
	p.pos++
	p.skip()
	if p.err != nil {
		return false
	}
	if p.pos < len(p.src) && p.src[p.pos] == end { // one trailing comma
		p.pos++
		p.out = append(p.out, end)
		return false
	}
	p.out = append(p.out, ',')
	return true
}

// str reads a single- or double-quoted string and returns its value.
func (p *parser) str() (string, bool) {
	quote := p.src[p.pos]
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			p.fail(start, "unterminated string")
			return "", false
		}
		c := p.src[p.pos]
		switch {
		case c == quote:
			p.pos++
			return b.String(), true
		case c == '\n' || c == '\r':
			p.fail(p.pos, "a line break in a string must be escaped")
			return "", false
		case c == '\\':
			if !p.escape(&b) {
				return "", false
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.src[p.pos:])
			b.WriteRune(r) // invalid UTF-8 becomes U+FFFD, as encoding/json does
			p.pos += size
		}
	}
}

// escape reads one escape sequence of a string, at a backslash.
func (p *parser) escape(b *strings.Builder) bool {
	at := p.pos
	p.pos++ // backslash
	if p.pos >= len(p.src) {
		p.fail(at, "unterminated string")
		return false
	}
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case '0':
		if p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.fail(at, "octal escapes are not JSON5")
			return false
		}
		b.WriteByte(0)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		p.fail(at, "\\%c is not a JSON5 escape", c)
		return false
	case 'x':
		v, ok := p.hex(2)
		if !ok {
			p.fail(at, "\\x must be followed by two hexadecimal digits")
			return false
		}
		b.WriteRune(rune(v))
	case 'u':
		r, ok := p.unicodeEscape(at)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case '\n': // line continuations: nothing of them is in the string
	case '\r':
		if p.pos < len(p.src) && p.src[p.pos] == '\n' {
			p.pos++
		}
	default:
		p.pos-- // any other character stands for itself
		r, size := utf8.DecodeRune(p.src[p.pos:])
		p.pos += size
		if r != '\u2028' && r != '\u2029' {
			b.WriteRune(r)
		}
	}
	return true
}

// unicodeEscape reads the four hexadecimal digits after \u, and a second
// \uXXXX when the first is the high half of a surrogate pair. A lone
// surrogate becomes U+FFFD: a Go string, like JSON's text, holds only
// Unicode scalar values.
func (p *parser) unicodeEscape(at int) (rune, bool) {
	v, ok := p.hex(4)
	if !ok {
		p.fail(at, "\\u must be followed by four hexadecimal digits")
		return 0, false
	}
	r := rune(v)
	if !utf16.IsSurrogate(r) {
		return r, true
	}
	if r < 0xdc00 && p.pos+1 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		if lo, ok := p.hex(4); ok {
			if pair := utf16.DecodeRune(r, rune(lo)); pair != utf8.RuneError {
				return pair, true
			}
		}
		p.pos = save
	}
	return utf8.RuneError, true
}

func (p *parser) hex(n int) (uint32, bool) {
	if p.pos+n > len(p.src) {
		return 0, false
	}
	var v uint32
	for _, c := range p.src[p.pos : p.pos+n] {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	p.pos += n
	return v, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// number reads a JSON5 number and writes it as a JSON number.
func (p *parser) number() {
	start := p.pos
	out, end, err := number(p.src, p.pos)
	if err != "" {
		p.fail(start, "%s", err)
		return
	}
	p.pos = end
	// ES5: no identifier or digit may follow a number directly (3in, 0x1g).
	if p.pos < len(p.src) {
		if r, _ := utf8.DecodeRune(p.src[p.pos:]); isIdentStart(r) || r >= '0' && r <= '9' || r == '\\' {
			p.fail(p.pos, "unexpected %s after a number", p.describe(p.pos))
			return
		}
	}
	p.out = append(p.out, out...)
}

// number reads the JSON5 number at src[i:] and returns it as JSON number
// text, where it ends, or what is wrong with it.
func number(src []byte, i int) (out []byte, end int, problem string) {
	neg := false
	if c := src[i]; c == '+' || c == '-' {
		neg = c == '-'
		i++
	}
	rest := src[i:]
	switch {
	case hasWord(rest, "Infinity"), hasWord(rest, "NaN"):
		word := "Infinity"
		if rest[0] == 'N' {
			word = "NaN"
		}
		return nil, i, word + " is JSON5 but has no JSON form"
	case len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X'):
		j := 2
		for j < len(rest) {
			if _, ok := hexDigit(rest[j]); !ok {
				break
			}
			j++
		}
		if j == 2 {
			return nil, i, "0x must be followed by hexadecimal digits"
		}
		n := hexToDecimal(rest[2:j])
		if neg && string(n) != "0" {
			n = append([]byte{'-'}, n...)
		}
		return n, i + j, ""
	}
	j := 0
	digits := func() int {
		k := j
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		return j - k
	}
	intDigits := digits()
	if intDigits > 1 && rest[0] == '0' {
		return nil, i, "a number must not start with 0 (octal is not JSON5)"
	}
	intPart := rest[:j]
	var frac []byte
	if j < len(rest) && rest[j] == '.' {
		j++
		from := j
		digits()
		frac = rest[from:j]
	}
	if intDigits == 0 && len(frac) == 0 {
		return nil, i, "want digits in a number"
	}
	var exp []byte
	if j < len(rest) && (rest[j] == 'e' || rest[j] == 'E') {
		from := j
		j++
		if j < len(rest) && (rest[j] == '+' || rest[j] == '-') {
			j++
		}
		if digits() == 0 {
			return nil, i, "an exponent needs digits"
		}
		exp = rest[from:j]
	}
	if neg {
		out = append(out, '-')
	}
	if intDigits == 0 {
		out = append(out, '0')
	} else {
		out = append(out, intPart...)
	}
	if len(frac) > 0 {
		out = append(append(out, '.'), frac...)
	}
	out = append(out, exp...)
	return out, i + j, ""
}

func hasWord(b []byte, w string) bool {
	return len(b) >= len(w) && string(b[:len(w)]) == w
}

// identifier reads an ECMAScript 5.1 IdentifierName, \u escapes included.
func (p *parser) identifier() (string, bool) {
	var b strings.Builder
	for first := true; p.pos < len(p.src); first = false {
		r, size := utf8.DecodeRune(p.src[p.pos:])
		if r == '\\' {
			at := p.pos
			if p.pos+1 >= len(p.src) || p.src[p.pos+1] != 'u' {
				p.fail(at, "want \\u in an identifier")
				return "", false
			}
			p.pos += 2
			v, ok := p.hex(4)
			if !ok {
				p.fail(at, "\\u must be followed by four hexadecimal digits")
				return "", false
			}
			r = rune(v)
			if !(first && isIdentStart(r) || !first && isIdentPart(r)) || r == '\\' {
				p.fail(at, "\\u%04x cannot be part of a name", v)
				return "", false
			}
			b.WriteRune(r)
			continue
		}
		if first && !isIdentStart(r) || !first && !isIdentPart(r) {
			break
		}
		b.WriteRune(r)
		p.pos += size
	}
	return b.String(), b.Len() > 0
}

func isIdentStart(r rune) bool {
	return r == '$' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
		r > utf8.RuneSelf && r != utf8.RuneError && unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || r >= '0' && r <= '9' || r == '\u200c' || r == '\u200d' ||
		r > utf8.RuneSelf && r != utf8.RuneError && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)
}

// hexToDecimal writes hexadecimal digits as a decimal number of any size,
// by long multiplication on decimal digits (math/big would be linked into
// every wrapped app for this alone).
func hexToDecimal(hex []byte) []byte {
	dec := []byte{0} // least significant digit first
	for _, c := range hex {
		d, _ := hexDigit(c)
		carry := int(d)
		for i := range dec {
			v := int(dec[i])*16 + carry
			dec[i], carry = byte(v%10), v/10
		}
		for ; carry > 0; carry /= 10 {
			dec = append(dec, byte(carry%10))
		}
	}
	out := make([]byte, len(dec))
	for i, d := range dec {
		out[len(dec)-1-i] = '0' + d
	}
	for len(out) > 1 && out[0] == '0' {
		out = out[1:]
	}
	return out
}
