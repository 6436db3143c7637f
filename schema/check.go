package schema

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Check reports what makes s unusable as a JSON Schema, every problem at once:
// a type that names no type, keywords holding the wrong kind of value, a
// pattern that does not compile, a local $ref that points nowhere, or a
// reference to another document (a declared schema must be self-contained).
//
// It is the structural check Wrap runs on every declared output schema at
// start-up. It is deliberately cheaper than a full compile (see package
// validator, used by tests, which compiles with jsonschema/v6).
func (s Schema) Check() error {
	if s == nil {
		return nil
	}
	var errs []error
	checkNode(map[string]any(s), "#", map[string]any(s), &errs)
	return errors.Join(errs...)
}

var typeNames = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true, "object": true, "null": true}

// Keywords whose value is one schema, a map of schemas, or a list of schemas.
var (
	oneSchema   = []string{"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	numbers     = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)

func checkNode(v any, at string, root map[string]any, errs *[]error) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("at %s: %s", at, fmt.Sprintf(format, args...)))
	}
	switch v.(type) {
	case bool:
		return // true and false are schemas
	case map[string]any, Schema:
	default:
		fail("a schema must be an object or a boolean, not %T", v)
		return
	}
	node := asMap(v)
	if t, ok := node["type"]; ok {
		checkType(t, fail)
	}
	if ref, ok := node["$ref"]; ok {
		r, isString := ref.(string)
		switch {
		case !isString:
			fail("$ref must be a string")
		case !strings.HasPrefix(r, "#"):
			fail("$ref %q points outside this document", r)
		case resolve(root, r) == nil:
			fail("$ref %q points nowhere", r)
		}
	}
	if p, ok := node["pattern"]; ok {
		if ps, isString := p.(string); !isString {
			fail("pattern must be a string")
		} else if _, err := regexp.Compile(ps); err != nil {
			fail("pattern %q does not compile: %v", ps, err)
		}
	}
	if r, ok := node["required"]; ok && !stringList(r) {
		fail("required must be a list of strings")
	}
	if e, ok := node["enum"]; ok {
		if _, isList := e.([]any); !isList {
			if _, isStrings := e.([]string); !isStrings {
				fail("enum must be a list")
			}
		}
	}
	for _, k := range numbers {
		if n, ok := node[k]; ok && !isNumber(n) {
			fail("%s must be a number", k)
		}
	}
	for _, k := range oneSchema {
		if sub, ok := node[k]; ok {
			checkNode(sub, at+"/"+k, root, errs)
		}
	}
	for _, k := range schemaMaps {
		sub, ok := node[k]
		if !ok {
			continue
		}
		m, isMap := sub.(map[string]any)
		if !isMap {
			fail("%s must be an object of schemas", k)
			continue
		}
		for name, s := range m {
			checkNode(s, at+"/"+k+"/"+name, root, errs)
		}
	}
	for _, k := range schemaLists {
		sub, ok := node[k]
		if !ok {
			continue
		}
		list, isList := sub.([]any)
		if !isList {
			fail("%s must be a list of schemas", k)
			continue
		}
		for i, s := range list {
			checkNode(s, fmt.Sprintf("%s/%s/%d", at, k, i), root, errs)
		}
	}
}

func checkType(t any, fail func(string, ...any)) {
	switch t := t.(type) {
	case string:
		if !typeNames[t] {
			fail("type %q is not a JSON Schema type", t)
		}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); !ok || !typeNames[s] {
				fail("type %v is not a JSON Schema type", x)
			}
		}
	case []string:
		for _, s := range t {
			if !typeNames[s] {
				fail("type %q is not a JSON Schema type", s)
			}
		}
	default:
		fail("type must be a string or a list of strings, not %T", t)
	}
}

// resolve follows a local JSON pointer such as "#/$defs/Run".
func resolve(root map[string]any, ref string) any {
	var cur any = root
	for _, part := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(ref, "#"), "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}

func stringList(v any) bool {
	switch v := v.(type) {
	case []string:
		return true
	case []any:
		for _, x := range v {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int64, float64, interface{ Float64() (float64, error) }:
		return true
	}
	return false
}
