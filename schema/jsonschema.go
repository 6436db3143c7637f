package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is a JSON Schema document. As a map it encodes with sorted keys, so
// the same declaration always prints the same bytes.
type Schema map[string]any

// Source is a declared JSON Schema: a [Schema] written by hand is its own
// source, and [Of] gives one that builds the schema of a Go type the first
// time it is asked for.
type Source interface {
	Schema() (Schema, error)
}

// Schema returns s itself, so a hand-written document is a [Source].
func (s Schema) Schema() (Schema, error) { return s, nil }

// Parse reads a JSON Schema document written by hand.
func Parse(doc string) (Schema, error) {
	var s Schema
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("schema: parse: %w", err)
	}
	return s, nil
}

// MustParse is [Parse] for declarations known at compile time; it panics on a
// malformed document.
func MustParse(doc string) Schema {
	s, err := Parse(doc)
	if err != nil {
		panic(err)
	}
	return s
}
