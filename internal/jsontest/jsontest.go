// Package jsontest holds JSON assertions shared by the module's tests.
package jsontest

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// Keys returns the top-level keys of a JSON object in the order they were
// written, which a decoded map cannot tell.
func Keys(t testing.TB, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// One returns the single JSON value b holds, failing the test when b is not
// JSON or holds more than one value: the check behind "stdout is exactly one
// envelope".
func One(t testing.TB, b []byte) json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not one JSON value: %v\n%s", err, b)
	}
	if tok, err := dec.Token(); err != io.EOF {
		t.Fatalf("more than one JSON value (next: %v, %v):\n%s", tok, err, b)
	}
	return v
}

// Encode returns v as encoding/json writes it with HTML escaping off, the
// reference the module's hand-written encoders are held to.
func Encode(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
