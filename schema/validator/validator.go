// Package validator compiles declared JSON Schemas with
// santhosh-tekuri/jsonschema/v6 and validates data against them.
//
// It is kept apart from package schema on purpose: the jsonschema module
// compiles every draft's meta-schema in its init, which costs a wrapped
// binary about 3.5 ms at every start (measured with GODEBUG=inittrace=1).
// Apps link it only where they validate — their tests, adaptertest, the
// conformance checker — while Wrap checks declarations with the cheaper
// structural [schema.Schema.Check].
package validator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/duet-cli/duet/schema"
)

// compileURL names the document being compiled. Errors quote it, and it
// resolves the document's own "#/$defs/..." references.
const compileURL = "duet:///output.json"

// Compiled is a [schema.Schema] ready to validate data, compiled once so a
// command's output can be checked on every run without reparsing.
type Compiled struct {
	schema *jsonschema.Schema
}

// Compile builds the schema src declares, checks it against its draft
// (2020-12 unless it says otherwise) and prepares it for [Compiled.Validate].
// A nil src or Schema declares nothing and so accepts any JSON value.
// References to other documents are refused: a declared schema must be
// self-contained, and compiling it must not read files.
func Compile(src schema.Source) (*Compiled, error) {
	var s schema.Schema
	if src != nil {
		var err error
		if s, err = src.Schema(); err != nil {
			return nil, fmt.Errorf("validator: compile: %w", err)
		}
	}
	if s == nil {
		s = schema.Schema{}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("validator: compile: encode: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("validator: compile: decode: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no scheme: load nothing
	if err := c.AddResource(compileURL, doc); err != nil {
		return nil, fmt.Errorf("validator: compile: %w", err)
	}
	sch, err := c.Compile(compileURL)
	if err != nil {
		return nil, fmt.Errorf("validator: invalid JSON Schema: %w", err)
	}
	return &Compiled{schema: sch}, nil
}

// Validate reports whether data, one JSON value, matches the schema. On a
// mismatch the error lists every violation, one per line with the JSON
// pointer of the offending value, so all of them can be fixed at once; it
// wraps the library's *jsonschema.ValidationError for callers that want
// the structured form.
func (c *Compiled) Validate(data json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("validator: validate: not JSON: %w", err)
	}
	err = c.schema.Validate(v)
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		return &mismatch{verr}
	}
	if err != nil {
		return fmt.Errorf("validator: validate: %w", err)
	}
	return nil
}

// mismatch formats a validation failure as its leaf violations. The
// library's own message leads with the schema URL, which names nothing a
// user wrote.
type mismatch struct{ err *jsonschema.ValidationError }

func (m *mismatch) Unwrap() error { return m.err }

func (m *mismatch) Error() string {
	var lines []string
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			lines = append(lines, fmt.Sprintf("\n  at %s: %s", loc, u.Error))
		}
		for _, e := range u.Errors {
			walk(e)
		}
	}
	walk(*m.err.DetailedOutput())
	slices.Sort(lines) // the library's order follows map iteration
	return "schema: value does not match its schema:" + strings.Join(lines, "")
}
