// Package configedit edits one entry of a configuration file that people
// also edit by hand — a JSON object's member, a TOML table — and changes no
// other byte: spacing, key order, the other entries stay as they are. Each
// edit has its inverse (Set, then Remove, gives the file back as it was),
// and a file that does not parse is reported, never rewritten.
package configedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
)

// What remains, once RemoveJSON has taken the entry out again, of a
// document SetJSON made from nothing (such a file is removed, not left
// behind) and of a parent it added (which goes too).
const (
	created       = "{\n}\n"
	createdParent = "{\n  }"
)

// GetJSON returns the value of member name of the object under key parent
// of the JSON object doc, and whether there is one.
func GetJSON(doc []byte, parent, name string) (json.RawMessage, bool, error) {
	inner, _, ok, err := parentObject(doc, parent)
	if !ok || err != nil {
		return nil, false, err
	}
	m, ok := inner.find(name)
	if !ok {
		return nil, false, nil
	}
	return json.RawMessage(doc[m.start:m.end]), true, nil
}

// SetJSON sets member name of the object under key parent of the JSON
// object doc to value, changing no other byte of doc; an empty doc becomes
// an object holding just that. A member equal to value already is left as
// it is, written as it was.
func SetJSON(doc []byte, parent, name string, value any) ([]byte, error) {
	raw, err := json.MarshalIndent(value, "    ", "  ")
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		out, _ := json.MarshalIndent(map[string]map[string]json.RawMessage{parent: {name: raw}}, "", "  ")
		return append(out, '\n'), nil
	}
	inner, _, ok, err := parentObject(doc, parent)
	if err != nil {
		return nil, err
	}
	if !ok {
		top, _ := members(doc, 0) // parentObject has read it whole
		entry := fmt.Sprintf("%s: {\n    %s: %s\n  }", strconv.Quote(parent), strconv.Quote(name), raw)
		return top.insert(doc, entry, "  "), nil
	}
	if m, ok := inner.find(name); ok {
		if sameJSON(doc[m.start:m.end], raw) {
			return doc, nil
		}
		return splice(doc, m.start, m.end, string(raw)), nil
	}
	return inner.insert(doc, strconv.Quote(name)+": "+string(raw), "    "), nil
}

// RemoveJSON removes member name of the object under key parent, and the
// parent too when that leaves it empty, as SetJSON would have added them:
// the separator before a member goes with it. A document SetJSON made from
// nothing comes back empty (nil), for its file to be removed. It reports
// whether there was such a member.
func RemoveJSON(doc []byte, parent, name string) ([]byte, bool, error) {
	inner, p, ok, err := parentObject(doc, parent)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return doc, false, nil
	}
	i, ok := inner.index(name)
	if !ok {
		return doc, false, nil
	}
	out := inner.remove(doc, i)
	if inner.count > 1 || string(out[p.start:p.end-(len(doc)-len(out))]) != createdParent {
		return out, true, nil
	}
	// The parent SetJSON added is empty now: it goes as well.
	top, err := members(out, 0)
	if err != nil {
		return nil, false, err
	}
	j, _ := top.index(parent)
	out = top.remove(out, j)
	if string(out) == created {
		return nil, true, nil
	}
	return out, true, nil
}

// parentObject reads the members of the object under key parent of the
// JSON object doc, and its span; ok is false when doc is empty or has no
// such key.
func parentObject(doc []byte, parent string) (inner object, p span, ok bool, err error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return object{}, span{}, false, nil
	}
	top, err := members(doc, 0)
	if err != nil {
		return object{}, span{}, false, err
	}
	if p, ok = top.find(parent); !ok {
		return object{}, span{}, false, nil
	}
	if doc[p.start] != '{' {
		return object{}, span{}, false, fmt.Errorf("%q is not an object", parent)
	}
	inner, err = members(doc[:p.end], p.start)
	return inner, p, err == nil, err
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// object is the members of one JSON object in a document, in order.
type object struct {
	open    int // the offset just past its opening brace
	members []member
	count   int
}

// member is one member's span: where its key starts and its value ends.
type member struct {
	name              string
	key, start, end   int
	afterPreviousItem int // the end of the previous member's value, or open
}

type span struct{ start, end int }

func (o object) find(key string) (span, bool) {
	i, ok := o.index(key)
	if !ok {
		return span{}, false
	}
	return span{o.members[i].start, o.members[i].end}, true
}

func (o object) index(key string) (int, bool) {
	for i := len(o.members) - 1; i >= 0; i-- { // the last of duplicates wins, as in encoding/json
		if o.members[i].name == key {
			return i, true
		}
	}
	return 0, false
}

// insert adds a member, written as entry, after the object's last, on a
// line of its own at indent.
func (o object) insert(doc []byte, entry, indent string) []byte {
	at, sep := o.open, "\n"+indent
	if o.count > 0 {
		at, sep = o.members[o.count-1].end, ","+sep
	}
	return splice(doc, at, at, sep+entry)
}

// remove takes member i out with the separator insert put before it: from
// the previous member's end, or for the first of several up to the next
// one's key.
func (o object) remove(doc []byte, i int) []byte {
	m := o.members[i]
	switch {
	case i > 0 || o.count == 1:
		return splice(doc, m.afterPreviousItem, m.end, "")
	default:
		return splice(doc, m.key, o.members[1].key, "")
	}
}

// members reads the object that starts at offset from in doc.
func members(doc []byte, from int) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(doc[from:]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return object{}, fmt.Errorf("not a JSON object (%v)", err)
	}
	o := object{open: from + int(dec.InputOffset())}
	prev := o.open
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return object{}, err
		}
		end := from + int(dec.InputOffset())
		o.members = append(o.members, member{name: key, key: keyStart(doc, prev), start: end - len(v), end: end, afterPreviousItem: prev})
		prev = end
	}
	o.count = len(o.members)
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	if _, err := dec.Token(); from == 0 && !errors.Is(err, io.EOF) {
		return object{}, errors.New("more than one JSON value")
	}
	return o, nil
}

// keyStart is where the key of the member after offset at begins: past
// white space and a comma.
func keyStart(doc []byte, at int) int {
	for at < len(doc) && (doc[at] == ' ' || doc[at] == '\t' || doc[at] == '\n' || doc[at] == '\r' || doc[at] == ',') {
		at++
	}
	return at
}

func splice(doc []byte, start, end int, with string) []byte {
	out := make([]byte, 0, len(doc)+len(with))
	return append(append(append(out, doc[:start]...), with...), doc[end:]...)
}
