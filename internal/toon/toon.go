// Package toon converts JSON documents to TOON, Token-Oriented Object
// Notation: a line-oriented, indentation-based rendering of the JSON data
// model that declares array lengths, writes uniform records as a table under
// one field list, and quotes strings only when they would otherwise be
// misread.
//
// The output is TOON v4 as the reference implementation writes it: byte for
// byte what encode() of @toon-format/toon 4.4.0 returns with the same indent
// and delimiter, which the tests check (reference_test.go), and which the
// same package's decoder reads back. v4 adds two forms to v3's: the keyed
// table, for an object whose values are uniform records
// (`servers[2:]{host,port}:` over rows `alpha: a.example,80`), and the
// nested field group, which folds a uniform nested object into a table's
// field list (`items[2]{id,meta{a,b}}:` over rows `t1,1,2`). It also
// reads a line starting with "#" as a comment, so strings starting with "#"
// are quoted. The conformance fixtures of @toon-format/spec are checked too;
// the registry's newest is 3.3.2, and the fixtures whose output v4 changes
// are listed in spec_test.go with their v4 form. For the same reason the
// section numbers (§) in this package are those of spec v3.3, whose rules
// v4 keeps and extends.
//
// Where the output differs from the reference encoder's it is on purpose:
// numbers keep every digit (see AppendJSON), and a string is quoted when it
// starts or ends with any Unicode White_Space, not only an ASCII space.
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
// depth 0 (nothing at all for {}) or its keyed table under a key-less
// header, an array under a key-less header, or a lone primitive.
func (e *encoder) root(v value) {
	switch v.kind {
	case kindObject:
		if cols := keyedColumns(v.obj); cols != nil {
			e.line(0)
			e.keyedTable("", false, v.obj, cols, 0)
			return
		}
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
// field shares the hyphen line but is still at depth (§10), so every form
// of a field, the keyed table included, is written the same way there.
func (e *encoder) field(m member, depth int) {
	switch m.val.kind {
	case kindObject:
		if cols := keyedColumns(m.val.obj); cols != nil {
			e.keyedTable(m.key, true, m.val.obj, cols, depth)
			return
		}
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

// keyedTable writes an object of uniform records in v4's keyed tabular
// form, `key[N:]{fields}:` and one `entry: cells` row per member at
// depth+1: the table of §9.3 with each row's key in front of its cells.
func (e *encoder) keyedTable(key string, named bool, entries []member, cols []column, depth int) {
	e.header(header{key: key, named: named, n: len(entries), cols: cols, keyed: true})
	for _, m := range entries {
		e.line(depth + 1)
		e.key(m.key)
		e.buf = append(e.buf, ':', ' ')
		e.cells(m.val.obj, cols, false)
	}
}

// array writes an array from the current position of a line at depth; its
// rows or items go to depth+1. named says the array is an object field;
// inList says it is itself an item of an expanded list, where §9.2 and §9.4
// want "[0]:" for empty arrays and rule out the tabular form.
func (e *encoder) array(key string, named bool, arr []value, depth int, inList bool) {
	if len(arr) == 0 && !inList {
		// §9.1: `key: []` in field position, `[]` at the root.
		if named {
			e.key(key)
			e.buf = append(e.buf, ':', ' ')
		}
		e.buf = append(e.buf, '[', ']')
		return
	}
	if allPrimitive(arr) { // §9.1 inline
		e.header(header{key: key, named: named, n: len(arr)})
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
	if !inList {
		if cols := tabularColumns(arr); cols != nil { // §9.3, with v4's nested field groups
			e.header(header{key: key, named: named, n: len(arr), cols: cols})
			for _, row := range arr {
				e.line(depth + 1)
				e.cells(row.obj, cols, false)
			}
			return
		}
	}
	e.header(header{key: key, named: named, n: len(arr)}) // §9.4 expanded list
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

// header is an array header of §6: `key[N<delim?>]{fields}:`, where the
// key (named) and the field list (cols) are optional. A keyed table's has
// v4's colon after the length: `key[N:]{fields}:`.
type header struct {
	key   string
	named bool
	n     int
	cols  []column
	keyed bool
}

func (e *encoder) header(h header) {
	if h.named {
		e.key(h.key)
	}
	e.buf = append(e.buf, '[')
	e.buf = strconv.AppendInt(e.buf, int64(h.n), 10)
	if h.keyed {
		e.buf = append(e.buf, ':')
	}
	if e.delim != ',' { // comma is the delimiter a header leaves unmarked
		e.buf = append(e.buf, e.delim)
	}
	e.buf = append(e.buf, ']')
	if h.cols != nil {
		e.fieldList(h.cols)
	}
	e.buf = append(e.buf, ':')
}

// fieldList writes `{a,b{x,y},c}`: a nested field group is its field's key
// followed by its own field list.
func (e *encoder) fieldList(cols []column) {
	e.buf = append(e.buf, '{')
	for i, c := range cols {
		if i > 0 {
			e.buf = append(e.buf, e.delim)
		}
		e.key(c.key)
		if c.group != nil {
			e.fieldList(c.group)
		}
	}
	e.buf = append(e.buf, '}')
}

// cells writes the cells of one table row: the values of obj under cols,
// depth first through nested field groups, so that a row is flat however
// deep its groups. sep says a cell precedes them on the row.
func (e *encoder) cells(obj []member, cols []column, sep bool) {
	for i, c := range cols {
		v, _ := lookup(obj, c.key, i)
		// Every group has a cell, so any column after the first has one
		// before it.
		sep = sep || i > 0
		if c.group != nil {
			e.cells(v.obj, c.group, sep)
			continue
		}
		if sep {
			e.buf = append(e.buf, e.delim)
		}
		e.primitive(v)
	}
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

func isPrimitive(v value) bool { return v.kind != kindArray && v.kind != kindObject }

func allPrimitive(arr []value) bool {
	for _, v := range arr {
		if !isPrimitive(v) {
			return false
		}
	}
	return true
}

// column is one field of a table header: a cell of each row, or, when
// group is set, a v4 nested field group, whose columns hold the cells of a
// uniform nested object.
type column struct {
	key   string
	group []column
}

// tabularColumns returns the field list of rows' tabular form (§9.3): the
// first row's keys, in its order, when every row is a non-empty object with
// the same key set and, under each key, either only primitives or only
// non-empty objects that are themselves tabular, which become a nested
// field group (v4). It returns nil when rows do not qualify.
//
// The reference encoder's rule, which this follows, tries no partial
// table: one array value anywhere, or a key missing from one row, and the
// records go to list form.
func tabularColumns(rows []value) []column {
	first := rows[0]
	if first.kind != kindObject || len(first.obj) == 0 {
		return nil
	}
	for _, row := range rows {
		// Keys are unique (parse keeps one of duplicates), so equal
		// lengths and every first-row key present mean equal sets.
		if row.kind != kindObject || len(row.obj) != len(first.obj) {
			return nil
		}
	}
	cols := make([]column, len(first.obj))
	for i, f := range first.obj {
		prims, objs := true, true
		for _, row := range rows {
			v, ok := lookup(row.obj, f.key, i)
			if !ok {
				return nil
			}
			prims = prims && isPrimitive(v)
			objs = objs && v.kind == kindObject && len(v.obj) > 0
		}
		cols[i].key = f.key
		switch {
		case prims:
		case objs:
			nested := make([]value, len(rows))
			for j, row := range rows {
				nested[j], _ = lookup(row.obj, f.key, i)
			}
			if cols[i].group = tabularColumns(nested); cols[i].group == nil {
				return nil
			}
		default:
			return nil
		}
	}
	return cols
}

// keyedColumns returns the field list of obj's keyed tabular form (v4): at
// least two members, each a non-empty object, that together are tabular.
// It returns nil when obj does not qualify. Two is the reference encoder's
// threshold: an object of one record stays a nested object there, and so
// here, since the aim is its output.
func keyedColumns(obj []member) []column {
	if len(obj) < 2 {
		return nil
	}
	for _, m := range obj {
		if m.val.kind != kindObject || len(m.val.obj) == 0 {
			return nil
		}
	}
	rows := make([]value, len(obj))
	for i, m := range obj {
		rows[i] = m.val
	}
	return tabularColumns(rows)
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
