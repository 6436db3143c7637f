package toon

import (
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// value is a parsed JSON value. Objects keep their members in text order,
// which a Go map would lose.
type value struct {
	kind kind
	s    string   // kindString: the decoded string; kindLiteral: the TOON text to write
	arr  []value  // kindArray
	obj  []member // kindObject
}

type kind uint8

const (
	// kindLiteral is null, true, false or a number: written as s, never
	// quoted. Numbers are canonicalised when parsed.
	kindLiteral kind = iota
	kindString
	kindArray
	kindObject
)

type member struct {
	key string
	val value
}

// maxDepth is encoding/json's nesting limit, so that exactly the documents
// json.Valid accepts are converted, and the recursion stays bounded.
const maxDepth = 10000

// indexAbove is the member count from which an object's duplicate-key check
// uses a map instead of a linear scan, which would be quadratic.
const indexAbove = 16

// parser is a JSON (RFC 8259) scanner that builds a value tree. It is
// hand-written rather than built on encoding/json's Decoder.Token, which
// decodes every scalar through reflection.
type parser struct {
	src   []byte
	pos   int
	depth int
	// Elements and members of the containers being parsed, innermost
	// last: each container copies its own out once, at its final size,
	// instead of growing a slice of its own.
	values  []value
	members []member
}

func parse(src []byte) (value, error) {
	p := parser{src: src}
	v, err := p.value()
	if err != nil {
		return value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return value{}, p.unexpected("after top-level value")
	}
	return v, nil
}

// unexpected reports the byte at p.pos, or the end of the input, as not
// allowed in context.
func (p *parser) unexpected(context string) error {
	if p.pos >= len(p.src) {
		return fmt.Errorf("toon: invalid JSON: %w %s", io.ErrUnexpectedEOF, context)
	}
	return fmt.Errorf("toon: invalid JSON: invalid character %q at offset %d %s", p.src[p.pos], p.pos, context)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the byte at p.pos, or -1 at the end of the input.
func (p *parser) peek() int {
	if p.pos < len(p.src) {
		return int(p.src[p.pos])
	}
	return -1
}

func (p *parser) value() (value, error) {
	p.skipSpace()
	switch c := p.peek(); {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		return value{kind: kindString, s: s}, err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return value{}, p.unexpected("looking for beginning of value")
}

// enter counts one more level of nesting at an opening bracket.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return fmt.Errorf("toon: invalid JSON: nesting deeper than %d at offset %d", maxDepth, p.pos)
	}
	p.pos++
	return nil
}

func (p *parser) array() (value, error) {
	if err := p.enter(); err != nil {
		return value{}, err
	}
	defer func() { p.depth-- }()
	v := value{kind: kindArray}
	p.skipSpace()
	if p.peek() == ']' {
		p.pos++
		return v, nil
	}
	start := len(p.values)
	for {
		item, err := p.value()
		if err != nil {
			return value{}, err
		}
		p.values = append(p.values, item)
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.arr = append([]value(nil), p.values[start:]...)
			clear(p.values[start:]) // let the copied-out values go
			p.values = p.values[:start]
			return v, nil
		default:
			return value{}, p.unexpected("after array element")
		}
	}
}

func (p *parser) object() (value, error) {
	if err := p.enter(); err != nil {
		return value{}, err
	}
	defer func() { p.depth-- }()
	v := value{kind: kindObject}
	var index map[string]int // member positions, once there are too many to scan
	p.skipSpace()
	if p.peek() == '}' {
		p.pos++
		return v, nil
	}
	start := len(p.members)
	for {
		p.skipSpace()
		if p.peek() != '"' {
			return value{}, p.unexpected("looking for beginning of object key")
		}
		key, err := p.string()
		if err != nil {
			return value{}, err
		}
		p.skipSpace()
		if p.peek() != ':' {
			return value{}, p.unexpected("after object key")
		}
		p.pos++
		val, err := p.value()
		if err != nil {
			return value{}, err
		}
		obj := p.members[start:]
		if i := find(obj, index, key); i >= 0 {
			obj[i].val = val // last value wins, at the first one's place
		} else {
			p.members = append(p.members, member{key, val})
			obj = p.members[start:]
			switch {
			case index != nil:
				index[key] = len(obj) - 1
			case len(obj) > indexAbove:
				index = make(map[string]int, 2*len(obj))
				for i, m := range obj {
					index[m.key] = i
				}
			}
		}
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.obj = append([]member(nil), p.members[start:]...)
			clear(p.members[start:])
			p.members = p.members[:start]
			return v, nil
		default:
			return value{}, p.unexpected("after object key:value pair")
		}
	}
}

// find returns the position of key among members, or -1.
func find(members []member, index map[string]int, key string) int {
	if index != nil {
		if i, ok := index[key]; ok {
			return i
		}
		return -1
	}
	for i, m := range members {
		if m.key == key {
			return i
		}
	}
	return -1
}

func (p *parser) literal(word string) (value, error) {
	for i := 0; i < len(word); i++ {
		if p.peek() != int(word[i]) {
			return value{}, p.unexpected("in literal " + word)
		}
		p.pos++
	}
	return value{kind: kindLiteral, s: word}, nil
}

// number scans the JSON number grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and returns its canonical
// form.
func (p *parser) number() (value, error) {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	switch c := p.peek(); {
	case c == '0':
		p.pos++
	case '1' <= c && c <= '9':
		p.digits()
	default:
		return value{}, p.unexpected("in numeric literal")
	}
	if p.peek() == '.' {
		p.pos++
		if !p.digits() {
			return value{}, p.unexpected("after decimal point in numeric literal")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if !p.digits() {
			return value{}, p.unexpected("in exponent of numeric literal")
		}
	}
	return value{kind: kindLiteral, s: canonicalNumber(string(p.src[start:p.pos]))}, nil
}

// digits skips [0-9]* and reports whether there was at least one.
func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// string scans a JSON string at p.pos and returns it decoded. Strings
// without escapes or non-ASCII bytes, the common case, are sliced directly.
func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '"':
			p.pos++
			return string(p.src[start : p.pos-1]), nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowString(start)
		case c < 0x20:
			return "", p.unexpected("in string literal")
		}
		p.pos++
	}
	return "", p.unexpected("in string literal")
}

// slowString continues string from p.pos, decoding escapes and replacing
// invalid UTF-8 and unpaired surrogates with U+FFFD as encoding/json does.
func (p *parser) slowString(start int) (string, error) {
	buf := append([]byte(nil), p.src[start:p.pos]...)
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c == '\\':
			p.pos++
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
		case c < 0x20:
			return "", p.unexpected("in string literal")
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.src[p.pos:])
			buf = utf8.AppendRune(buf, r) // RuneError for an invalid byte
			p.pos += size
		}
	}
	return "", p.unexpected("in string literal")
}

// escape decodes the escape sequence after a backslash.
func (p *parser) escape() (rune, error) {
	c := p.peek()
	p.pos++
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4()
		if err != nil || !utf16.IsSurrogate(r) {
			return r, err
		}
		// A surrogate counts only as the first half of a pair written as
		// two escapes; otherwise it becomes U+FFFD and whatever follows is
		// read on its own.
		if p.pos+6 <= len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
			save := p.pos
			p.pos += 2
			if r2, err := p.hex4(); err == nil {
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					return pair, nil
				}
			}
			p.pos = save
		}
		return utf8.RuneError, nil
	}
	p.pos--
	return 0, p.unexpected("in string escape code")
}

// hex4 decodes the four hex digits of a \u escape.
func (p *parser) hex4() (rune, error) {
	var r rune
	for range 4 {
		c := p.peek()
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, p.unexpected("in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
		p.pos++
	}
	return r, nil
}
