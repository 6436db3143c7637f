// Package toon converts JSON documents to TOON, Token-Oriented Object
// Notation: a line-oriented, indentation-based rendering of the JSON data
// model that declares array lengths, writes arrays of uniform records as a
// table under one field list, and quotes strings only when they would
// otherwise be misread. The output follows the TOON specification v3.3
// (https://github.com/toon-format/spec, checked against the conformance
// fixtures of @toon-format/spec 3.3.2) with the encoder's default options
// except for indentation and delimiter: key folding is never done.
//
// The input is JSON text, not a Go value, because the envelope renderer
// already holds JSON and because the text carries what a Go value loses:
// the key order of objects, which TOON preserves, and the exact digits of
// numbers, which are rewritten in canonical form without going through
// float64 (so big integers and long decimals survive unchanged).
package toon

import (
	"fmt"
	"strconv"
)

// Options selects the encoder's layout. The zero value is the
// specification's default: two spaces per level and the comma delimiter.
type Options struct {
	Indent    int  // spaces per level; 0 means 2
	Delimiter byte // ',', '\t' or '|'; 0 means ','
}

// AppendJSON appends the TOON form of the JSON document src to dst.
//
// Key order is the order of the JSON text (TOON preserves it); of duplicate
// keys the last value wins at the place of the first, as in JavaScript's
// JSON.parse, because a TOON decoder in strict mode rejects duplicates.
// Numbers are rewritten from their digits, so none is lost: where
// 1e-6 ≤ |n| < 1e21 in the canonical decimal form of §2 (no exponent, no
// trailing zeros, -0 as 0), elsewhere in exponent form (1e+21, 1.5e-7),
// which §2 allows there and which keeps a short JSON number such as 1e999999
// from becoming a huge line. Invalid UTF-8 and unpaired surrogate escapes in
// strings become U+FFFD, as with encoding/json. The output has no trailing
// newline.
//
// Since every level is indented, the output grows with the square of the
// nesting depth: 10000 nested arrays, 20 kB of JSON, make 100 MB of TOON.
//
// Invalid JSON, nesting deeper than 10000 levels (encoding/json's limit) and
// invalid options are errors; dst is then returned unchanged.
func AppendJSON(dst, src []byte, opts Options) ([]byte, error) {
	e := encoder{buf: dst, indent: opts.Indent, delim: opts.Delimiter}
	if e.indent == 0 {
		e.indent = 2
	}
	if e.indent < 0 {
		return dst, fmt.Errorf("toon: negative indent %d", opts.Indent)
	}
	switch e.delim {
	case 0:
		e.delim = ','
	case ',', '\t', '|':
	default:
		return dst, fmt.Errorf("toon: delimiter %q is not ',', '\\t' or '|'", opts.Delimiter)
	}
	root, err := parse(src)
	if err != nil {
		return dst, err
	}
	e.root(root)
	return e.buf, nil
}

// encoder writes one document. Every array header uses the document
// delimiter, so the active delimiter of §11 is always e.delim and one
// quoting rule serves field values, inline values, rows and list items.
type encoder struct {
	buf    []byte
	indent int
	delim  byte
	lines  bool // whether a line has been started: LF separates lines, none ends the document (§12)
}

// root writes the document's top-level value per §5: an object's fields at
// depth 0 (nothing at all for {}), an array under a key-less header, or a
// lone primitive.
func (e *encoder) root(v value) {
	switch v.kind {
	case kindObject:
		e.fields(v.obj, 0)
	case kindArray:
		e.line(0)
		e.array("", false, v.arr, 0, false)
	default:
		e.line(0)
		e.primitive(v)
	}
}

// line starts a new line indented to depth.
func (e *encoder) line(depth int) {
	if e.lines {
		e.buf = append(e.buf, '\n')
	}
	e.lines = true
	for n := depth * e.indent; n > 0; {
		k := min(n, len(spaces))
		e.buf = append(e.buf, spaces[:k]...)
		n -= k
	}
}

const spaces = "                                "

// fields writes each member on its own line at depth (§8).
func (e *encoder) fields(members []member, depth int) {
	for _, m := range members {
		e.line(depth)
		e.field(m, depth)
	}
}

// field writes one member from the current position of a line that is
// logically at depth; what it nests goes to depth+1. A list item's first
// field shares the hyphen line but is still at depth (§10).
func (e *encoder) field(m member, depth int) {
	switch m.val.kind {
	case kindObject:
		e.key(m.key)
		e.buf = append(e.buf, ':')
		e.fields(m.val.obj, depth+1)
	case kindArray:
		e.array(m.key, true, m.val.arr, depth, false)
	default:
		e.key(m.key)
		e.buf = append(e.buf, ':', ' ')
		e.primitive(m.val)
	}
}

// array writes an array from the current position of a line at depth; its
// rows or items go to depth+1. keyed says the array is an object field;
// inList says it is itself an item of an expanded list, where §9.2 and §9.4
// want "[0]:" for empty arrays and rule out the tabular form.
func (e *encoder) array(key string, keyed bool, arr []value, depth int, inList bool) {
	if len(arr) == 0 && !inList {
		// §9.1: `key: []` in field position, `[]` at the root.
		if keyed {
			e.key(key)
			e.buf = append(e.buf, ':', ' ')
		}
		e.buf = append(e.buf, '[', ']')
		return
	}
	if allPrimitive(arr) { // §9.1 inline
		e.header(key, keyed, len(arr), nil)
		for i, v := range arr {
			if i == 0 {
				e.buf = append(e.buf, ' ')
			} else {
				e.buf = append(e.buf, e.delim)
			}
			e.primitive(v)
		}
		return
	}
	if fields := tabularFields(arr); fields != nil && !inList { // §9.3
		e.header(key, keyed, len(arr), fields)
		for _, row := range arr {
			e.line(depth + 1)
			for i, f := range fields {
				if i > 0 {
					e.buf = append(e.buf, e.delim)
				}
				v, _ := lookup(row.obj, f.key, i)
				e.primitive(v)
			}
		}
		return
	}
	e.header(key, keyed, len(arr), nil) // §9.4 expanded list
	for _, v := range arr {
		e.listItem(v, depth+1)
	}
}

// listItem writes v as a "- " item on a new line at depth (§9.4, §10).
func (e *encoder) listItem(v value, depth int) {
	e.line(depth)
	e.buf = append(e.buf, '-')
	switch v.kind {
	case kindObject:
		if len(v.obj) == 0 {
			return // §10: an empty object is a bare hyphen
		}
		// §10: the first field shares the hyphen line; the rest, and what
		// the first field nests, are indented as fields one level deeper.
		e.buf = append(e.buf, ' ')
		e.field(v.obj[0], depth+1)
		e.fields(v.obj[1:], depth+1)
	case kindArray:
		e.buf = append(e.buf, ' ')
		e.array("", false, v.arr, depth, true)
	default:
		e.buf = append(e.buf, ' ')
		e.primitive(v)
	}
}

// header writes `key[N<delim?>]{fields}:` (§6); the key and the field list
// are optional.
func (e *encoder) header(key string, keyed bool, n int, fields []member) {
	if keyed {
		e.key(key)
	}
	e.buf = append(e.buf, '[')
	e.buf = strconv.AppendInt(e.buf, int64(n), 10)
	if e.delim != ',' { // comma is the delimiter a header leaves unmarked
		e.buf = append(e.buf, e.delim)
	}
	e.buf = append(e.buf, ']')
	if fields != nil {
		e.buf = append(e.buf, '{')
		for i, f := range fields {
			if i > 0 {
				e.buf = append(e.buf, e.delim)
			}
			e.key(f.key)
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ':')
}

func (e *encoder) key(k string) {
	if unquotedKey(k) {
		e.buf = append(e.buf, k...)
	} else {
		e.buf = appendQuoted(e.buf, k)
	}
}

func (e *encoder) primitive(v value) {
	if v.kind == kindString && needsQuotes(v.s, e.delim) {
		e.buf = appendQuoted(e.buf, v.s)
	} else {
		e.buf = append(e.buf, v.s...)
	}
}

func allPrimitive(arr []value) bool {
	for _, v := range arr {
		if v.kind == kindArray || v.kind == kindObject {
			return false
		}
	}
	return true
}

// tabularFields returns the field list of arr's tabular form (§9.3): the
// first object's keys, in its order, when every element is a non-empty
// object with the same key set and only primitive values. It returns nil
// when the array does not qualify.
func tabularFields(arr []value) []member {
	first := arr[0]
	if first.kind != kindObject || len(first.obj) == 0 {
		return nil
	}
	for _, row := range arr {
		// Keys are unique (parse keeps one of duplicates), so equal
		// lengths and every first-object key present mean equal sets.
		if row.kind != kindObject || len(row.obj) != len(first.obj) {
			return nil
		}
		for i, f := range first.obj {
			v, ok := lookup(row.obj, f.key, i)
			if !ok || v.kind == kindArray || v.kind == kindObject {
				return nil
			}
		}
	}
	return first.obj
}

// lookup finds key in obj, trying index hint first: rows of a table usually
// list their keys in the same order as the first one.
func lookup(obj []member, key string, hint int) (value, bool) {
	if hint < len(obj) && obj[hint].key == key {
		return obj[hint].val, true
	}
	for _, m := range obj {
		if m.key == key {
			return m.val, true
		}
	}
	return value{}, false
}
