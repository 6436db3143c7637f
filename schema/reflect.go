package schema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Of returns the schema of the JSON that encoding/json writes for a T, so a
// command can declare its output as the Go type it already returns instead of
// a hand-written document that drifts from it.
//
// It follows encoding/json: exported fields under their json tag names,
// embedded structs flattened, fields without omitempty or omitzero required.
// A pointer is nullable, as encoding/json writes a nil one; a slice or a
// map is not, as Duet writes a nil one [] or {} (the CLI Agent Spec's
// F-074: null means unset, and an empty collection is not), so every
// result Duet writes for a T validates. A nil []byte, a string to
// encoding/json, stays null. A `doc`
// struct tag becomes the field's description. A named type that contains
// itself is put in "$defs" and referred to with "$ref".
//
// The schema is built on the first call to [Reflected.Schema] (by --schema,
// describe, --fields, or a test), not here: a process that only runs a
// command never pays for the reflection.
func Of[T any]() *Reflected {
	t := reflect.TypeFor[T]()
	return &Reflected{typ: t, build: sync.OnceValues(func() (Schema, error) { return generate(t) })}
}

// Reflected is the schema of a Go type, from [Of]. It is safe for
// concurrent use, and builds the schema once.
type Reflected struct {
	typ   reflect.Type
	build func() (Schema, error)
}

// Schema returns the schema of the type, or an error naming a type that
// encoding/json cannot encode (a channel, a function, a complex number, a map
// with unsupported keys) — as json.Marshal would fail on a value of it.
// Every call returns the same Schema value.
func (r *Reflected) Schema() (Schema, error) { return r.build() }

// Type returns the Go type the schema describes.
func (r *Reflected) Type() reflect.Type { return r.typ }

func generate(t reflect.Type) (Schema, error) {
	g := generator{
		active: map[reflect.Type]bool{},
		refs:   map[reflect.Type]string{},
		defs:   map[string]any{},
	}
	s := Schema(g.schema(t))
	if g.err != nil {
		return nil, g.err
	}
	if len(g.defs) > 0 {
		s["$defs"] = g.defs
	}
	return s, nil
}

// Properties returns the sorted names of the properties of the object s
// describes, or of its items when s describes an array, so --fields can be
// checked against the declared output. Local "$ref"s are followed.
func (s Schema) Properties() []string {
	props := s.properties(map[string]any(s), 0)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Property returns the schema of the named property of the object s
// describes (or of its items), as Properties finds them; nil when there is
// none.
func (s Schema) Property(name string) Schema {
	p, _ := s.properties(map[string]any(s), 0)[name].(map[string]any)
	return p
}

// Required returns the names of the properties Properties finds that the
// object lists as required, in its order.
func (s Schema) Required() []string {
	var names []string
	list, _ := s.object(map[string]any(s), 0)["required"].([]any)
	for _, r := range list {
		if name, ok := r.(string); ok {
			names = append(names, name)
		}
	}
	return names
}

// properties finds the "properties" of the object node describes.
func (s Schema) properties(node map[string]any, depth int) map[string]any {
	p, _ := s.object(node, depth)["properties"].(map[string]any)
	return p
}

// object finds the object schema node describes, with its "properties",
// looking through local "$ref"s, array "items" and the branches of a
// nullable "anyOf". depth bounds a reference cycle in a hand-written
// document.
func (s Schema) object(node map[string]any, depth int) map[string]any {
	if node == nil || depth > 32 {
		return nil
	}
	if _, ok := node["properties"].(map[string]any); ok {
		return node
	}
	if ref, ok := node["$ref"].(string); ok {
		if ref == "#" {
			return s.object(map[string]any(s), depth+1)
		}
		if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
			defs, _ := s["$defs"].(map[string]any)
			def, _ := defs[name].(map[string]any)
			return s.object(def, depth+1)
		}
		return nil
	}
	if items, ok := node["items"].(map[string]any); ok {
		return s.object(items, depth+1)
	}
	branches, _ := node["anyOf"].([]any)
	for _, b := range branches {
		if o := s.object(asMap(b), depth+1); o != nil {
			return o
		}
	}
	return nil
}

func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case Schema:
		return m
	}
	return nil
}

// selfDescribing is a type that gives the schema of its own JSON encoding,
// as envelope.Binary does.
type selfDescribing interface{ JSONSchema() map[string]any }

// generator builds the schema of one type. It carries the state that makes
// recursive types terminate: the named types being built, and the "$defs"
// names given to those found to contain themselves.
type generator struct {
	active map[reflect.Type]bool   // named types being built, outermost first
	refs   map[reflect.Type]string // $defs name of each recursive type
	defs   map[string]any          // the "$defs" of the document
	err    error                   // the first type encoding/json cannot encode
}

// unsupported records that encoding/json cannot encode t, and returns a
// placeholder so the walk can finish.
func (g *generator) unsupported(t reflect.Type, why string) map[string]any {
	if g.err == nil {
		g.err = fmt.Errorf("schema: Of: %s", why)
	}
	return map[string]any{}
}

// schema returns the schema of t, or a "$ref" to it when t is recursive.
func (g *generator) schema(t reflect.Type) map[string]any {
	if t.Name() == "" {
		return g.build(t)
	}
	if name, ok := g.refs[t]; ok && !g.active[t] {
		return ref(name) // built and defined already
	}
	if g.active[t] {
		return ref(g.defName(t)) // t contains itself: define it once done
	}
	g.active[t] = true
	s := g.build(t)
	delete(g.active, t)
	if name, ok := g.refs[t]; ok {
		g.defs[name] = s
		return ref(name)
	}
	return s
}

// defName returns the "$defs" name of t, derived from its Go name and made
// unique, since two packages may both have a Node.
func (g *generator) defName(t reflect.Type) string {
	if name, ok := g.refs[t]; ok {
		return name
	}
	base := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, t.Name())
	name := base
	for i := 2; slices.Contains(slices.Collect(maps.Values(g.refs)), name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	g.refs[t] = name
	return name
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/$defs/" + name} }

// build returns the schema of t itself, one level of it at a time.
func (g *generator) build(t reflect.Type) map[string]any {
	switch t {
	case reflect.TypeFor[time.Time]():
		return map[string]any{"type": "string", "format": "date-time"}
	case reflect.TypeFor[time.Duration]():
		return map[string]any{"type": "integer"}
	case reflect.TypeFor[json.RawMessage]():
		return map[string]any{}
	}
	if t.Kind() != reflect.Pointer {
		// A type that encodes itself may write anything; a TextMarshaler
		// writes a string. A pointer receiver only counts when the value
		// is addressable, which depends on how it is marshalled: accept
		// anything rather than guess.
		switch {
		case t.Implements(reflect.TypeFor[selfDescribing]()): // input: such as envelope.Binary
			return reflect.Zero(t).Interface().(selfDescribing).JSONSchema()
		case t.Implements(reflect.TypeFor[json.Marshaler]()):
			return map[string]any{}
		case t.Implements(reflect.TypeFor[encoding.TextMarshaler]()):
			return map[string]any{"type": "string"}
		case reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()),
			reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextMarshaler]()):
			return map[string]any{}
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Pointer:
		return nullable(g.schema(t.Elem()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !encodesItself(t.Elem()) {
			return nullable(map[string]any{"type": "string", "contentEncoding": "base64"})
		}
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		if !validKey(t.Key()) {
			return g.unsupported(t, fmt.Sprintf("%v: encoding/json cannot encode map keys of type %v", t, t.Key()))
		}
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.object(t)
	}
	return g.unsupported(t, fmt.Sprintf("encoding/json cannot encode %v", t))
}

func encodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Marshaler]()) || p.Implements(reflect.TypeFor[encoding.TextMarshaler]())
}

// validKey reports whether encoding/json accepts t as a map key: it writes
// strings, integers and TextMarshalers as object keys.
func validKey(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return t.Implements(reflect.TypeFor[encoding.TextMarshaler]())
}

// nullable widens s to also accept null, as encoding/json writes a nil
// pointer, slice or map.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
		return s
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
		return s
	}
	if len(s) == 0 {
		return s // accepts anything, null included
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// object returns the schema of a struct: closed, because encoding/json
// writes no field the type does not declare.
func (g *generator) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, f := range fields(t) {
		s := g.schema(f.typ)
		if f.quoted {
			s = map[string]any{"type": "string"}
			if f.typ.Kind() == reflect.Pointer {
				s = nullable(s)
			}
		}
		if f.doc != "" {
			s["description"] = f.doc
		}
		props[f.name] = s
		if f.required {
			required = append(required, f.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// field is one JSON object member of a struct type.
type field struct {
	name     string
	typ      reflect.Type
	index    []int // path through embedded structs: sorts fields and measures depth
	tagged   bool  // named by a json tag: wins a name conflict at equal depth
	required bool  // always written: no omitempty/omitzero, not under an embedded pointer
	quoted   bool  // the ",string" option: a scalar written as a JSON string
	doc      string
}

// fields returns the members encoding/json writes for struct type t, in
// its order, resolving names promoted from embedded structs its way.
func fields(t reflect.Type) []field {
	var all []field
	collect(t, nil, true, map[reflect.Type]bool{}, &all)
	if flatAndUnique(all) {
		return all // the common case: already in declaration order, nothing to resolve
	}

	byName := map[string][]field{}
	for _, f := range all {
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, fs := range byName {
		if f, ok := dominant(fs); ok {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

// flatAndUnique reports whether no member was promoted from an embedded
// struct and no two members share a name.
func flatAndUnique(fs []field) bool {
	for i, f := range fs {
		if len(f.index) > 1 {
			return false
		}
		for _, g := range fs[:i] {
			if g.name == f.name {
				return false
			}
		}
	}
	return true
}

// collect appends the candidate members of struct t found at index, walking
// into untagged embedded structs. onPath stops an embedding cycle
// (type T struct{ *T }); a deeper copy would lose to the shallower anyway.
func collect(t reflect.Type, index []int, always bool, onPath map[reflect.Type]bool, out *[]field) {
	if onPath[t] {
		return
	}
	onPath[t] = true
	defer delete(onPath, t)

	for i := range t.NumField() {
		sf := t.Field(i)
		ft := sf.Type
		if ft.Name() == "" && ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous {
			// encoding/json reads the exported fields of an embedded
			// unexported struct, and ignores other unexported embeddings.
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(slices.Clone(index), i)
		if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
			// A nil embedded pointer writes none of its fields.
			collect(ft, idx, always && sf.Type.Kind() != reflect.Pointer, onPath, out)
			continue
		}
		f := field{name: name, typ: sf.Type, index: idx, tagged: name != "", doc: sf.Tag.Get("doc")}
		if f.name == "" {
			f.name = sf.Name
		}
		omit := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				omit = true
			case "string":
				switch ft.Kind() {
				case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
					reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
					reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
					f.quoted = true
				}
			}
		}
		f.required = always && !omit
		*out = append(*out, f)
	}
}

// dominant picks the member encoding/json writes among those sharing a
// name: the shallowest, then the only tagged one; otherwise none.
func dominant(fs []field) (field, bool) {
	depth := len(fs[0].index)
	for _, f := range fs {
		depth = min(depth, len(f.index))
	}
	var top []field
	for _, f := range fs {
		if len(f.index) == depth {
			top = append(top, f)
		}
	}
	if len(top) == 1 {
		return top[0], true
	}
	var tagged []field
	for _, f := range top {
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return field{}, false
}
