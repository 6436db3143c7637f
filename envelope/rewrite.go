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
	if !walked(t).any(r.dir != "") {
		return v, false // most results: judged once per type, not per value
	}
	if t == reflect.TypeFor[Path]() {
		p := v.String()
		if p == "" || filepath.IsAbs(p) {
			return v, false
		}
		return reflect.ValueOf(Path(filepath.Join(r.dir, p))), true
	}
	if encodesItself(t) {
		return v, false // its fields are its own business
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
			p := reflect.New(t.Elem())
			p.Elem().Set(e)
			return p, true
		}
		n := reflect.New(t).Elem()
		n.Set(e)
		return n, true
	case reflect.Struct:
		var out reflect.Value
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
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
			if t.Elem().Kind() == reflect.Uint8 {
				return v, false // []byte is a string to encoding/json, and nil an unset one
			}
			return reflect.MakeSlice(t, 0, 0), true
		}
		var out reflect.Value
		for i := range v.Len() {
			e, changed := r.value(v.Index(i), depth+1)
			if !changed {
				continue
			}
			if !out.IsValid() {
				if t.Kind() == reflect.Slice {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
				} else {
					out = reflect.New(t).Elem()
				}
				reflect.Copy(out, v)
			}
			out.Index(i).Set(e)
		}
		return out, out.IsValid()
	case reflect.Map:
		if v.IsNil() {
			return reflect.MakeMap(t), true
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

// holds is what a value of a type may hold that the rewrite changes.
type holds struct{ path, collection bool }

// any reports whether the rewrite may change a value: a Path only matters
// when rebasing.
func (h holds) any(rebasing bool) bool { return h.collection || rebasing && h.path }

// typeHolds remembers what each type met may hold; it is a fact about the
// type, so it never needs forgetting.
var typeHolds sync.Map // reflect.Type → holds

func walked(t reflect.Type) holds {
	if h, ok := typeHolds.Load(t); ok {
		return h.(holds)
	}
	h := holdsOf(t, map[reflect.Type]bool{})
	typeHolds.Store(t, h)
	return h
}

// holdsOf is walked's walk; seen holds the types being walked, so a
// recursive type is answered by its other fields. Through an interface
// anything can be reached.
func holdsOf(t reflect.Type, seen map[reflect.Type]bool) holds {
	switch {
	case t == reflect.TypeFor[Path]():
		return holds{path: true}
	case t.Kind() == reflect.Interface:
		return holds{path: true, collection: true}
	case seen[t] || encodesItself(t):
		return holds{}
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return holds{}
		}
		h := holdsOf(t.Elem(), seen)
		h.collection = true
		return h
	case reflect.Map:
		h := holdsOf(t.Elem(), seen)
		h.collection = true
		return h
	case reflect.Pointer, reflect.Array:
		return holdsOf(t.Elem(), seen)
	case reflect.Struct:
		var h holds
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				fh := holdsOf(f.Type, seen)
				h.path, h.collection = h.path || fh.path, h.collection || fh.collection
			}
		}
		return h
	}
	return holds{}
}
