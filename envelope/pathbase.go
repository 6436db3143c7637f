package envelope

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"sync"
)

// Rebasing a result's paths on --cwd (the CLI Agent Spec's F-040, O-017).
// A Path encodes against the process's directory, which Duet never changes;
// under --cwd the command's relative Paths mean that directory instead, so
// before encoding the result is copied wherever it holds a relative Path,
// and that Path joined to --cwd. The command's own value is never changed.

// maxRebaseDepth bounds the walk: a cyclic value fails in encoding/json
// anyway, and a sane result is never this deep.
const maxRebaseDepth = 64

// rebasePaths returns v with every relative Path in it joined to dir; v
// itself when it holds none.
func rebasePaths(v any, dir string) any {
	if v == nil || dir == "" {
		return v
	}
	nv, changed := rebase(reflect.ValueOf(v), dir, 0)
	if !changed {
		return v
	}
	return nv.Interface()
}

func rebase(v reflect.Value, dir string, depth int) (reflect.Value, bool) {
	if !v.IsValid() || depth > maxRebaseDepth {
		return v, false
	}
	t := v.Type()
	if !mayHoldPath(t) {
		return v, false // most results: walked once per type, not per value
	}
	if t == reflect.TypeFor[Path]() {
		p := v.String()
		if p == "" || filepath.IsAbs(p) {
			return v, false
		}
		return reflect.ValueOf(Path(filepath.Join(dir, p))), true
	}
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && t.Implements(reflect.TypeFor[json.Marshaler]()) {
		return v, false // encodes itself: its fields are its own business
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, changed := rebase(v.Elem(), dir, depth+1)
		if !changed {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := rebase(v.Elem(), dir, depth+1)
		if !changed {
			return v, false
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
			f, changed := rebase(v.Field(i), dir, depth+1)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(v)
			}
			out.Field(i).Set(f)
		}
		return out, out.IsValid()
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			return v, false
		}
		var out reflect.Value
		for i := range v.Len() {
			e, changed := rebase(v.Index(i), dir, depth+1)
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
			return v, false
		}
		var out reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			e, changed := rebase(iter.Value(), dir, depth+1)
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

// pathTypes remembers of each type met whether a value of it may hold a
// Path; it is a fact about the type, so it never needs forgetting.
var pathTypes sync.Map // reflect.Type → bool

// mayHoldPath reports whether a value of type t can hold a Path that
// rebase would reach: through an interface anything can.
func mayHoldPath(t reflect.Type) bool {
	if v, ok := pathTypes.Load(t); ok {
		return v.(bool)
	}
	may := holdsPath(t, map[reflect.Type]bool{})
	pathTypes.Store(t, may)
	return may
}

// holdsPath is mayHoldPath's walk; seen holds the types being walked, so a
// recursive type is answered by its other fields.
func holdsPath(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == reflect.TypeFor[Path]() || t.Kind() == reflect.Interface {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind() != reflect.Pointer && t.Implements(reflect.TypeFor[json.Marshaler]()) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holdsPath(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsPath(f.Type, seen) {
				return true
			}
		}
	}
	return false
}
