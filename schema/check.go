package schema

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
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
	// Keys are visited in map order; report in a stable one.
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// typeName reports whether s names a JSON Schema type.
func typeName(s string) bool {
	switch s {
	case "string", "integer", "number", "boolean", "array", "object", "null":
		return true
	}
	return false
}

// keyword says how Check reads the value of a JSON Schema keyword.
type keyword int

const (
	other      keyword = iota // read by checkNode itself, or not checked
	oneSchema                 // a schema
	schemaMap                 // an object of schemas
	schemaList                // a list of schemas
	number                    // a number
)

// keywordOf says how to read the value of keyword k. (A switch, not a map: a
// package-level map is built at every start of every wrapped binary.)
func keywordOf(k string) keyword {
	switch k {
	case "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
		"unevaluatedItems", "unevaluatedProperties", "additionalItems":
		return oneSchema
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
		return schemaMap
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return schemaList
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
		"maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		return number
	}
	return other
}

// checkNode checks one schema and the schemas inside it, visiting the keys
// the node has rather than every keyword there is.
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
	for k, val := range asMap(v) {
		switch k {
		case "type":
			checkType(val, fail)
			continue
		case "$ref":
			r, isString := val.(string)
			switch {
			case !isString:
				fail("$ref must be a string")
			case !strings.HasPrefix(r, "#"):
				fail("$ref %q points outside this document", r)
			case resolve(root, r) == nil:
				fail("$ref %q points nowhere", r)
			}
			continue
		case "pattern":
			if ps, isString := val.(string); !isString {
				fail("pattern must be a string")
			} else if _, err := regexp.Compile(ps); err != nil {
				fail("pattern %q does not compile: %v", ps, err)
			}
			continue
		case "required":
			if !stringList(val) {
				fail("required must be a list of strings")
			}
			continue
		case "enum":
			if _, isList := val.([]any); !isList {
				if _, isStrings := val.([]string); !isStrings {
					fail("enum must be a list")
				}
			}
			continue
		}
		switch keywordOf(k) {
		case number:
			if !isNumber(val) {
				fail("%s must be a number", k)
			}
		case oneSchema:
			checkNode(val, at+"/"+k, root, errs)
		case schemaMap:
			m, isMap := val.(map[string]any)
			if !isMap {
				fail("%s must be an object of schemas", k)
				continue
			}
			for name, s := range m {
				checkNode(s, at+"/"+k+"/"+name, root, errs)
			}
		case schemaList:
			list, isList := val.([]any)
			if !isList {
				fail("%s must be a list of schemas", k)
				continue
			}
			for i, s := range list {
				checkNode(s, fmt.Sprintf("%s/%s/%d", at, k, i), root, errs)
			}
		}
	}
}

func checkType(t any, fail func(string, ...any)) {
	switch t := t.(type) {
	case string:
		if !typeName(t) {
			fail("type %q is not a JSON Schema type", t)
		}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); !ok || !typeName(s) {
				fail("type %v is not a JSON Schema type", x)
			}
		}
	case []string:
		for _, s := range t {
			if !typeName(s) {
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
