package envelope

import (
	"encoding"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sync"
)

// A command's result is copied before it is encoded wherever the wire must
// say something other than what encoding/json would make of it; the
// command's own value is never changed.
//
//   - Under --cwd, a relative Path means that directory, not the process's,
//     which Duet never changes: it is joined to --cwd (F-040, O-017).
//   - A nil slice or map is an empty collection, written [] or {}, never
//     null (F-074): to an agent null means "unset", and a Go author's
//     `var tags []string` means "none".
//
// Only values whose type can hold either are walked, and only the parts of
// them that change are copied.

// maxRewriteDepth bounds the walk: a cyclic value fails in encoding/json
// anyway, and a sane result is never this deep.
const maxRewriteDepth = 64

// rewrite returns v as the wire should see it: its relative Paths joined to
// dir (none when dir is ""), its nil slices and maps empty ones. It returns
// v itself when nothing changes.
func rewrite(v any, dir string) any {
	if v == nil {
		return v
	}
	nv, changed := rewriter{dir}.value(reflect.ValueOf(v), 0)
	if !changed {
		return v
	}
	return nv.Interface()
}

type rewriter struct{ dir string }

func (r rewriter) value(v reflect.Value, depth int) (reflect.Value, bool) {
	if !v.IsValid() || depth > maxRewriteDepth {
		return v, false
	}
	t := v.Type()
	p := planOf(t)
	if !p.any(r.dir != "") {
		return v, false // most results: judged once per type, not per value
	}
	if t == reflect.TypeFor[Path]() {
		s := v.String()
		if s == "" || filepath.IsAbs(s) {
			return v, false
		}
		return reflect.ValueOf(Path(filepath.Join(r.dir, s))), true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := r.value(v.Elem(), depth+1)
		if !changed {
			return v, false
		}
		if t.Kind() == reflect.Pointer {
			n := reflect.New(t.Elem())
			n.Elem().Set(e)
			return n, true
		}
		n := reflect.New(t).Elem()
		n.Set(e)
		return n, true
	case reflect.Struct:
		var out reflect.Value
		for _, i := range p.fields {
			f, changed := r.value(v.Field(i), depth+1)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(v) // unexported fields too
			}
			out.Field(i).Set(f)
		}
		return out, out.IsValid()
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			return p.empty, true
		}
		var out reflect.Value
		copied := func() reflect.Value {
			if !out.IsValid() {
				if t.Kind() == reflect.Slice {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
				} else {
					out = reflect.New(t).Elem()
				}
				reflect.Copy(out, v)
			}
			return out
		}
		if t.Elem().Kind() == reflect.Struct {
			// A list of records: the copy's records are changed in place,
			// field by field, rather than each copied again on its own.
			ep := planOf(t.Elem())
			for i := range v.Len() {
				for _, j := range ep.fields {
					if f, changed := r.value(v.Index(i).Field(j), depth+2); changed {
						copied().Index(i).Field(j).Set(f)
					}
				}
			}
			return out, out.IsValid()
		}
		for i := range v.Len() {
			if e, changed := r.value(v.Index(i), depth+1); changed {
				copied().Index(i).Set(e)
			}
		}
		return out, out.IsValid()
	case reflect.Map:
		if v.IsNil() {
			return p.empty, true
		}
		var out reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			e, changed := r.value(iter.Value(), depth+1)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(t, v.Len())
				for it := v.MapRange(); it.Next(); {
					out.SetMapIndex(it.Key(), it.Value())
				}
			}
			out.SetMapIndex(iter.Key(), e)
		}
		return out, out.IsValid()
	}
	return v, false
}

// encodesItself reports whether encoding/json leaves a value of type t to
// the type's own method.
func encodesItself(t reflect.Type) bool {
	if t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
		return false
	}
	return t.Implements(reflect.TypeFor[json.Marshaler]()) || t.Implements(reflect.TypeFor[encoding.TextMarshaler]())
}

// plan is what the rewrite knows of a type, worked out once.
type plan struct {
	path, collection bool // what a value of it may hold that the rewrite changes
	// fields are the struct's exported fields that may hold either: the
	// only ones walked.
	fields []int
	// empty is the type's empty slice or map, written in place of a nil
	// one. Shared: a rewritten value is only ever encoded, never changed.
	empty reflect.Value
}

// any reports whether the rewrite may change a value: a Path only matters
// when rebasing.
func (p *plan) any(rebasing bool) bool { return p.collection || rebasing && p.path }

// plans remembers the plan of each type met; it is a fact about the type,
// so it never needs forgetting.
var plans sync.Map // reflect.Type → *plan

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := &plan{}
	p.path, p.collection = holdsOf(t, map[reflect.Type]bool{})
	switch {
	case !p.path && !p.collection:
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				if path, coll := holdsOf(f.Type, map[reflect.Type]bool{}); path || coll {
					p.fields = append(p.fields, i)
				}
			}
		}
	case t.Kind() == reflect.Slice:
		p.empty = reflect.MakeSlice(t, 0, 0)
	case t.Kind() == reflect.Map:
		p.empty = reflect.MakeMap(t)
	}
	plans.Store(t, p)
	return p
}

// holdsOf reports whether a value of type t may hold a Path or a slice or
// map the rewrite changes; seen holds the types being walked, so a
// recursive type is answered by its other fields. Through an interface
// anything can be reached.
func holdsOf(t reflect.Type, seen map[reflect.Type]bool) (path, collection bool) {
	switch {
	case t == reflect.TypeFor[Path]():
		return true, false
	case t.Kind() == reflect.Interface:
		return true, true
	case seen[t] || encodesItself(t):
		return false, false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return false, false // []byte is a string to encoding/json, and nil an unset one
		}
		path, _ = holdsOf(t.Elem(), seen)
		return path, true
	case reflect.Map:
		path, _ = holdsOf(t.Elem(), seen)
		return path, true
	case reflect.Pointer, reflect.Array:
		return holdsOf(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				p, c := holdsOf(f.Type, seen)
				path, collection = path || p, collection || c
			}
		}
	}
	return path, collection
}
