package jsonw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// Appender is a value that appends its own JSON encoding. [Value] prefers it to
// encoding/json.
type Appender interface {
	AppendJSON(b []byte) []byte
}

// Value appends v as encoding/json would encode it (map keys sorted, HTML not
// escaped). The JSON-shaped types decoded documents and schemas are made of —
// strings, booleans, numbers, []any, []string and map[string]any — and
// Appenders are encoded directly; anything else goes through encoding/json.
func Value(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return String(b, v), nil
	case bool:
		return Bool(b, v), nil
	case int:
		return Int(b, int64(v)), nil
	case int64:
		return Int(b, v), nil
	case float64:
		return Float(b, v)
	case json.Number:
		if v == "" {
			return append(b, '0'), nil
		}
		return append(b, v...), nil
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		return Strings(b, v), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = Value(b, x); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return Map(b, v)
	case Appender:
		return v.AppendJSON(b), nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String && rv.Type().NumMethod() == 0 {
		return String(b, rv.String()), nil // a named string type, such as a schema type name
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	if bytes.ContainsAny(raw, "<>&") { // undo encoding/json's HTML escaping
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return b, err
		}
		raw = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	return append(b, raw...), nil
}

// Map appends m with its keys in sorted order, as encoding/json does.
func Map[V any](b []byte, m map[string]V) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, k)
		b = append(b, ':')
		var err error
		if b, err = Value(b, m[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// MapFunc appends m with its keys in sorted order, each value appended by fn:
// the typed form of [Map], which boxes no value. fn takes the value first so
// that a method expression such as T.AppendJSON fits.
func MapFunc[V any](b []byte, m map[string]V, fn func(V, []byte) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, k)
		b = append(b, ':')
		b = fn(m[k], b)
	}
	return append(b, '}')
}

// sortedKeys returns m's keys in encoding/json's order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Float appends f in encoding/json's format: the shortest representation,
// with an exponent only for very small or very large magnitudes.
func Float(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // 1e-07 as 1e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
