package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// filter is the schema of an object flag's value in these tests.
var filter = schema.MustParse(`{
	"type": "object",
	"properties": {
		"status": {"type": "string", "enum": ["open", "closed"]},
		"limit":  {"type": "integer", "minimum": 1, "maximum": 100},
		"labels": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "maxItems": 3},
		"owner":  {"$ref": "#/$defs/owner"},
		"ratio":  {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]}
	},
	"required": ["status"],
	"additionalProperties": false,
	"$defs": {"owner": {"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}, "required": ["name"]}}
}`)

// TestMatch: Match accepts what the schema allows and refuses the rest,
// naming where, and agrees on every case with package validator's full
// compiler (jsonschema/v6), which a wrapped binary does not link.
func TestMatch(t *testing.T) {
	full, err := validator.Compile(filter)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value string
		want  string // "" when it matches; else a part of the error
	}{
		{`{"status":"open"}`, ""},
		{`{"status":"closed","limit":100,"labels":["a","bc"],"owner":{"name":"ann"},"ratio":null}`, ""},
		{`{"status":"open","ratio":0.5,"limit":1.0}`, ""},
		{`{"status":3}`, "at /status: 3 is a number, not string"},
		{`{"status":"pending"}`, `at /status: "pending" is not one of the allowed values`},
		{`{}`, `"status" is required`},
		{`[]`, "at /: the value is an array, not object"},
		{`"open"`, `"open" is a string, not object`},
		{`{"status":"open","extra":1}`, `"extra" is not an allowed property`},
		{`{"status":"open","limit":0}`, "at /limit: 0 is less than 1"},
		{`{"status":"open","limit":2.5}`, "at /limit: 2.5 is a number, not integer"},
		{`{"status":"open","labels":["a","B"]}`, `at /labels/1: "B" does not match`},
		{`{"status":"open","labels":["a","b","c","d"]}`, "4 items, more than 3"},
		{`{"status":"open","owner":{}}`, `at /owner: "name" is required`},
		{`{"status":"open","owner":{"name":"a"}}`, "shorter than 2"},
		{`{"status":"open","ratio":0}`, "matches none of the allowed shapes"},
	} {
		err := filter.Match([]byte(tc.value))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Match(%s): %v, want a match", tc.value, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Match(%s): %v, want an error with %q", tc.value, err, tc.want)
		}
		if ferr := full.Validate(json.RawMessage(tc.value)); (ferr == nil) != (err == nil) {
			t.Errorf("Match(%s) = %v, but the full validator says %v", tc.value, err, ferr)
		}
	}
	if err := filter.Match([]byte(`status=open`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("Match(status=open): %v, want not JSON", err)
	}
}

// TestMatchOneOfAndNot: oneOf wants exactly one branch; not refuses what
// its schema matches; enum and const compare numbers by value.
func TestMatchOneOfAndNot(t *testing.T) {
	s := schema.Schema{
		"oneOf": []any{schema.Schema{"type": "integer"}, schema.Schema{"type": "number", "minimum": 0}},
		"not":   schema.Schema{"const": 7},
		"enum":  []any{1, 2.5, -3, 7},
	}
	for value, ok := range map[string]bool{`-3`: true, `2.5`: true, `1`: false, `7`: false, `4`: false} {
		if err := s.Match([]byte(value)); (err == nil) != ok {
			t.Errorf("Match(%s): %v, want match %v", value, err, ok)
		}
	}
}

// TestMatchable: a schema using a keyword Match does not judge is refused,
// each such keyword named; one made of those it judges, or of
// annotations, is not.
func TestMatchable(t *testing.T) {
	if err := filter.Matchable(); err != nil {
		t.Errorf("Matchable(filter): %v", err)
	}
	s := schema.MustParse(`{"type":"object","title":"t","format":"x","properties":{"a":{"type":"array","uniqueItems":true}},"patternProperties":{"^x":{}}}`)
	err := s.Matchable()
	if err == nil || !strings.Contains(err.Error(), "#/patternProperties, #/properties/a/uniqueItems") {
		t.Errorf("Matchable: %v, want #/patternProperties and #/properties/a/uniqueItems named", err)
	}
}
