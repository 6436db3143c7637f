package syntax

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/duet-cli/duet/internal/jsonw"
)

// Repair returns the strict JSON closest to src, whatever src is: the
// [Normalize] form of a JSON5 text, and otherwise a best guess at what was
// meant. Bare words are quoted (`{env prod}` gives `{"env":"prod"}`), a
// missing colon or comma is put in, unclosed strings, objects and arrays are
// closed, a key without a value gets null, stray punctuation is dropped, and
// Infinity, NaN and undefined become null. The result is always valid JSON
// ("null" for a text with no value in it); it is offered to a caller to
// check and resend, never used in its place.
func Repair(src []byte) []byte {
	if out, err := Normalize(src); err == nil {
		return out
	}
	r := &repairer{lex: lexer{src: src}}
	r.run()
	if len(r.out) == 0 || !json.Valid(r.out) { // a bug here must not reach a caller
		return []byte("null")
	}
	return r.out
}

// token kinds of the lenient lexer.
const (
	tokEOF = iota
	tokPunct
	tokString
	tokWord // a bare run: an identifier, a literal, a number, or junk
)

type token struct {
	kind  int
	punct byte   // { } [ ] : ,
	text  string // a string's value, or a word
}

// lexer splits any text into punctuation, strings and words, skipping
// white space and comments; it never fails.
type lexer struct {
	src []byte
	pos int
}

func (l *lexer) next() token {
	p := &parser{src: l.src, pos: l.pos}
	if p.skip(); p.err != nil { // an unterminated comment runs to the end
		l.pos = len(l.src)
		return token{kind: tokEOF}
	}
	l.pos = p.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF}
	}
	c := l.src[l.pos]
	switch c {
	case '{', '}', '[', ']', ':', ',':
		l.pos++
		return token{kind: tokPunct, punct: c}
	case '"', '\'':
		return l.str(c)
	}
	start := l.pos
	for l.pos < len(l.src) {
		r, size := utf8.DecodeRune(l.src[l.pos:])
		if isSpace(r) || strings.ContainsRune("{}[]:,\"'", r) ||
			r == '/' && l.pos+1 < len(l.src) && (l.src[l.pos+1] == '/' || l.src[l.pos+1] == '*') {
			break
		}
		l.pos += size
	}
	return token{kind: tokWord, text: strings.ToValidUTF8(string(l.src[start:l.pos]), "\ufffd")}
}

// str reads a string leniently: an escape that is not JSON5 stands for
// the character after the backslash, and an unterminated string ends at
// the end of its line.
func (l *lexer) str(quote byte) token {
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == quote:
			l.pos++
			return token{kind: tokString, text: b.String()}
		case c == '\n' || c == '\r':
			return token{kind: tokString, text: b.String()}
		case c == '\\':
			p := &parser{src: l.src, pos: l.pos}
			if p.escape(&b) {
				l.pos = p.pos
				continue
			}
			l.pos++
			if l.pos < len(l.src) {
				r, size := utf8.DecodeRune(l.src[l.pos:])
				b.WriteRune(r)
				l.pos += size
			}
		default:
			r, size := utf8.DecodeRune(l.src[l.pos:])
			b.WriteRune(r)
			l.pos += size
		}
	}
	return token{kind: tokString, text: b.String()}
}

// The states of an open object or array in a repair.
const (
	wantKey   = iota // after '{' or a comma in an object
	wantColon        // after a key
	wantValue        // after a colon, or '[' or a comma in an array
	wantMore         // after a value: a comma or the closing bracket
)

type frame struct {
	object bool
	state  int
}

type repairer struct {
	lex   lexer
	out   []byte
	stack []frame
	done  bool // the top-level value is complete
}

func (r *repairer) top() *frame { return &r.stack[len(r.stack)-1] }

func (r *repairer) run() {
	for !r.done {
		t := r.lex.next()
		if t.kind == tokEOF {
			break
		}
		r.feed(t)
	}
	r.closeAll()
}

// feed handles one token. A token that does not fit where it is either
// fits after what is missing is put in (a colon, a comma, a null) or is
// dropped.
func (r *repairer) feed(t token) {
	if len(r.stack) == 0 {
		if len(r.out) == 0 {
			if t.kind == tokPunct && t.punct != '{' && t.punct != '[' {
				return // nothing opened yet: stray punctuation
			}
			r.value(r.phrase(t))
		}
		return
	}
	f := r.top()
	switch f.state {
	case wantKey:
		switch {
		case t.kind == tokPunct && t.punct == '}':
			r.close()
		case t.kind == tokString || t.kind == tokWord:
			r.out = append(jsonw.String(r.out, t.text), ':')
			f.state = wantColon
		case t.kind == tokPunct && (t.punct == '{' || t.punct == '['):
			// A value with no key: give it an empty one.
			r.out = append(jsonw.String(r.out, ""), ':')
			f.state = wantValue
			r.feed(t)
		case t.kind == tokPunct && t.punct == ']':
			r.close()
		}
	case wantColon:
		if t.kind == tokPunct && t.punct == ':' {
			f.state = wantValue
			return
		}
		f.state = wantValue // the colon is missing: `{env prod}`
		r.feed(t)
	case wantValue:
		switch {
		case t.kind == tokPunct && (t.punct == '}' || t.punct == ']'):
			r.close() // an object's missing value becomes null there
		case t.kind == tokPunct && t.punct == ',':
			if f.object {
				r.out = append(r.out, "null"...)
				f.state = wantMore
				r.feed(t)
			}
		case t.kind == tokPunct && t.punct == ':':
			// a doubled colon: drop it
		default:
			f.state = wantMore
			if f.object {
				t = r.phrase(t)
			}
			r.value(t)
		}
	case wantMore:
		switch {
		case t.kind == tokPunct && t.punct == ',':
			r.out = append(r.out, ',')
			if f.object {
				f.state = wantKey
			} else {
				f.state = wantValue
			}
		case t.kind == tokPunct && (t.punct == '}' || t.punct == ']'):
			r.close()
		case t.kind == tokPunct && t.punct == ':':
			// a stray colon after a value: drop it
		default: // the comma is missing: `[1 2]`, `{a: 1 b: 2}`
			r.out = append(r.out, ',')
			if f.object {
				f.state = wantKey
			} else {
				f.state = wantValue
			}
			r.feed(t)
		}
	}
}

// phrase joins to a bare word the bare words that follow it, up to one that
// is a key (a colon follows it): `{title: write the docs, due: friday}` means
// the title "write the docs".
func (r *repairer) phrase(t token) token {
	if t.kind != tokWord || string(word(t.text)) != string(jsonw.String(nil, t.text)) {
		return t // not a bare word: a literal or a number
	}
	for {
		save := r.lex.pos
		next := r.lex.next()
		if next.kind != tokWord {
			r.lex.pos = save
			return t
		}
		after := r.lex.pos
		if colon := r.lex.next(); colon.kind == tokPunct && colon.punct == ':' {
			r.lex.pos = save
			return t
		}
		r.lex.pos = after
		t.text += " " + next.text
	}
}

// value writes one value: a string, a word as the value it names, or the
// opening of an object or array.
func (r *repairer) value(t token) {
	switch t.kind {
	case tokString:
		r.out = jsonw.String(r.out, t.text)
	case tokWord:
		r.out = append(r.out, word(t.text)...)
	case tokPunct:
		switch t.punct {
		case '{':
			r.out = append(r.out, '{')
			r.stack = append(r.stack, frame{object: true, state: wantKey})
			return
		case '[':
			r.out = append(r.out, '[')
			r.stack = append(r.stack, frame{state: wantValue})
			return
		}
	}
	if len(r.stack) == 0 {
		r.done = true
	}
}

// word is the JSON a bare word stands for: a literal, a number, or a string.
func word(w string) []byte {
	switch w {
	case "true", "false", "null":
		return []byte(w)
	case "Infinity", "+Infinity", "-Infinity", "NaN", "+NaN", "-NaN", "undefined":
		return []byte("null")
	case "True", "TRUE":
		return []byte("true")
	case "False", "FALSE":
		return []byte("false")
	case "None", "nil", "NULL", "Null":
		return []byte("null")
	}
	if c := w[0]; c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' {
		if out, end, problem := number([]byte(w), 0); problem == "" && end == len(w) {
			return out
		}
	}
	return jsonw.String(nil, w)
}

// close ends the innermost object or array, taking back a trailing comma.
func (r *repairer) close() {
	f := r.top()
	if n := len(r.out); n > 0 && r.out[n-1] == ',' {
		r.out = r.out[:n-1]
	}
	if f.object {
		if f.state == wantColon || f.state == wantValue {
			r.out = append(r.out, "null"...)
		}
		r.out = append(r.out, '}')
	} else {
		r.out = append(r.out, ']')
	}
	r.stack = r.stack[:len(r.stack)-1]
	if len(r.stack) == 0 {
		r.done = true
		return
	}
	r.top().state = wantMore
}

func (r *repairer) closeAll() {
	for len(r.stack) > 0 {
		r.close()
	}
	if len(r.out) == 0 {
		r.out = append(r.out, "null"...)
	}
}
