package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// payload is a command's result encoded once: a list keeps its items apart so
// that pagination, projection and the size cap can cut it without re-encoding.
type payload struct {
	list  bool
	items []json.RawMessage
	one   json.RawMessage // object or null, when !list
	total int             // a list's length before a window cut it
	start int             // the index in the whole list of items[0]
}

// span returns the items [start, end) of a list of total items that w selects.
func (w Window) span(total int) (start, end int) {
	start, end = min(w.Offset, total), total
	if w.Limit > 0 {
		end = min(start+w.Limit, total)
	}
	return start, end
}

// cut keeps the items a window selects; with no window, all of them.
func (p payload) cut(w *Window) payload {
	p.total = len(p.items)
	if w != nil {
		start, end := w.span(len(p.items))
		p.items, p.start = p.items[start:end], start
	}
	return p
}

// marshal encodes v without HTML escaping: agents read '<' and '&' literally.
// encoding/json already turns invalid UTF-8 into U+FFFD and escapes control
// bytes, so its output never breaks the envelope; terminal escape sequences
// and carriage returns are then removed from its strings (F-007).
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return cleanJSON(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// encodePayload turns a result into a payload. Slices and arrays are lists (a
// nil slice is an empty list, never null); scalars are wrapped as
// {"value": v} because data is always an object, an array or null. Of a list,
// only the items window selects are encoded (all of them when window is nil):
// a command may return a whole collection and answer with one page of it.
func encodePayload(v any, window *Window) (payload, error) {
	if v == nil {
		return payload{one: json.RawMessage("null")}, nil
	}
	if b, ok := v.([]byte); ok { // input: bytes as a whole are a Binary
		v = Binary{Bytes: b}
	}
	if raw, ok := v.(json.RawMessage); ok {
		p, err := splitRaw(raw)
		return p.cut(window), err
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() && !implementsMarshaler(rv) {
		rv = rv.Elem()
	}
	if (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Type().Elem().Kind() != reflect.Uint8 && !implementsMarshaler(rv) {
		total := rv.Len()
		start, end := 0, total
		if window != nil {
			start, end = window.span(total)
		}
		// One encoder writes every item into one buffer; the items are
		// cut from it afterwards, since the buffer moves as it grows.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		ends := make([]int, end-start)
		for i := range ends {
			if err := enc.Encode(rv.Index(start + i).Interface()); err != nil {
				return payload{}, fmt.Errorf("encode item %d: %w", start+i, err)
			}
			ends[i] = buf.Len() - 1 // before Encode's newline
		}
		p := payload{list: true, items: make([]json.RawMessage, len(ends)), total: total, start: start}
		all, from := buf.Bytes(), 0
		for i, end := range ends {
			p.items[i] = cleanJSON(all[from:end:end])
			from = end + 1
		}
		return p, nil
	}
	raw, err := marshal(v)
	if err != nil {
		return payload{}, fmt.Errorf("encode result: %w", err)
	}
	p, err := splitRaw(raw)
	return p.cut(window), err
}

func implementsMarshaler(rv reflect.Value) bool {
	return rv.Type().Implements(reflect.TypeFor[json.Marshaler]())
}

// splitRaw classifies already-encoded JSON, which the command may have
// written by hand: it is validated and compacted, since the envelope embeds it
// as it is.
func splitRaw(raw json.RawMessage) (payload, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return payload{}, fmt.Errorf("encode result: %w", err)
	}
	trimmed := cleanJSON(buf.Bytes())
	switch {
	case len(trimmed) == 0:
		return payload{one: json.RawMessage("null")}, nil
	case trimmed[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return payload{}, fmt.Errorf("encode result: %w", err)
		}
		if items == nil {
			items = []json.RawMessage{}
		}
		return payload{list: true, items: items}, nil
	case trimmed[0] == '{' || bytes.Equal(trimmed, []byte("null")):
		return payload{one: trimmed}, nil
	default:
		wrapped, err := marshal(map[string]json.RawMessage{"value": trimmed})
		return payload{one: wrapped}, err
	}
}

// json returns the payload as one JSON value.
func (p payload) json() json.RawMessage {
	if !p.list {
		return p.one
	}
	n := 2 + len(p.items)
	for _, it := range p.items {
		n += len(it)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, it := range p.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

// project keeps only the named top-level fields of every object, in the order
// given. Values that are not objects pass through unchanged.
func (p payload) project(fields []string) (payload, error) {
	if len(fields) == 0 {
		return p, nil
	}
	if !p.list {
		one, err := projectOne(p.one, fields)
		return payload{one: one}, err
	}
	out := payload{list: true, items: make([]json.RawMessage, len(p.items))}
	for i, it := range p.items {
		v, err := projectOne(it, fields)
		if err != nil {
			return payload{}, err
		}
		out.items[i] = v
	}
	return out, nil
}

func projectOne(raw json.RawMessage, fields []string) (json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, f := range fields {
		v, ok := m[f]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(f)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
		n++
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// field is one key of an object decoded with its order kept.
type field struct {
	Key   string
	Value any
}

// object is a JSON object whose keys keep the order they were encoded in, so
// the text rendering follows a struct's field order.
type object []field

// decodeOrdered decodes JSON into nil, bool, json.Number, string, []any and
// object.
func decodeOrdered(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		obj := object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, field{kt.(string), v})
		}
		_, err := dec.Token()
		return obj, err
	default:
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
}
