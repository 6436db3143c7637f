package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Match and Matchable judge a value against a schema in the wrapped binary
// itself, where package validator's full compiler would cost every start
// (see its doc): they hold an object flag's value (FlagMeta.Schema) to its
// schema before the command runs. They know the keywords such a schema is
// made of — types, properties, enums, bounds, patterns, combinations and
// local references — and Matchable refuses, at registration, a schema that
// uses one they do not: a keyword that constrains a value and is ignored
// would let a value through that the schema refuses.

// maxMatchDepth bounds how deep Match follows a value or a recursive $ref.
const maxMatchDepth = 64

// Matchable reports the keywords of s that [Schema.Match] cannot judge, or
// nil when it judges s whole.
func (s Schema) Matchable() error {
	var bad []string
	var walk func(node map[string]any, at string)
	walk = func(node map[string]any, at string) {
		for _, k := range slices.Sorted(maps.Keys(node)) {
			v := node[k]
			switch k {
			case "type", "enum", "const", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
				"minLength", "maxLength", "minItems", "maxItems", "pattern", "$ref",
				// annotations: they say, they do not constrain
				"$schema", "$comment", "title", "description", "default", "examples", "format",
				"readOnly", "writeOnly", "deprecated":
			case "items", "additionalProperties", "not":
				if m := asMap(v); m != nil {
					walk(m, at+"/"+k)
				}
			case "properties", "$defs", "definitions":
				m := asMap(v)
				for _, name := range slices.Sorted(maps.Keys(m)) {
					walk(asMap(m[name]), at+"/"+k+"/"+name)
				}
			case "anyOf", "oneOf", "allOf":
				for i, b := range anyList(v) {
					walk(asMap(b), at+"/"+k+"/"+strconv.Itoa(i))
				}
			default:
				bad = append(bad, at+"/"+k)
			}
		}
	}
	walk(map[string]any(s), "#")
	if len(bad) > 0 {
		return fmt.Errorf("schema: keywords a value is not checked against: %s", strings.Join(bad, ", "))
	}
	return nil
}

// Match reports the first way raw, one JSON value, breaks s: "at /status:
// 3 is a number, not a string". A nil s accepts any value.
func (s Schema) Match(raw []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("schema: not JSON: %w", err)
	}
	if s == nil {
		return nil
	}
	if why := (matcher{root: s}).match(map[string]any(s), v, "", 0); why != "" {
		return fmt.Errorf("schema: %s", why)
	}
	return nil
}

// matcher matches values against the nodes of one document, whose root
// resolves its $refs.
type matcher struct{ root Schema }

// match returns why v breaks node, a JSON pointer to v leading, or "".
func (m matcher) match(node map[string]any, v any, at string, depth int) string {
	if node == nil {
		return ""
	}
	if depth > maxMatchDepth {
		return fmt.Sprintf("at %s: nested too deep to check", pointer(at))
	}
	fail := func(format string, a ...any) string {
		return fmt.Sprintf("at %s: ", pointer(at)) + fmt.Sprintf(format, a...)
	}
	if ref, ok := node["$ref"].(string); ok {
		target := asMap(m.resolve(ref))
		if target == nil {
			return fail("$ref %s points nowhere", ref)
		}
		if why := m.match(target, v, at, depth+1); why != "" {
			return why
		}
	}
	if types := typesOf(node["type"]); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		return fail("%s is %s, not %s", brief(v), kindOf(v), strings.Join(types, " or "))
	}
	if enum, ok := node["enum"]; ok && !slices.ContainsFunc(anyList(enum), func(e any) bool { return equal(e, v) }) {
		return fail("%s is not one of the allowed values", brief(v))
	}
	if c, ok := node["const"]; ok && !equal(c, v) {
		return fail("%s is not %s", brief(v), brief(c))
	}
	switch x := v.(type) {
	case map[string]any:
		props := asMap(node["properties"])
		for _, name := range requiredNames(node["required"]) {
			if _, ok := x[name]; !ok {
				return fail("%q is required", name)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p, ok := props[k]; ok {
				if why := m.match(asMap(p), x[k], at+"/"+k, depth+1); why != "" {
					return why
				}
				continue
			}
			switch extra := node["additionalProperties"].(type) {
			case bool:
				if !extra {
					return fail("%q is not an allowed property", k)
				}
			case nil:
			default:
				if why := m.match(asMap(extra), x[k], at+"/"+k, depth+1); why != "" {
					return why
				}
			}
		}
	case []any:
		if n, ok := bound(node["minItems"]); ok && float64(len(x)) < n {
			return fail("%d items, fewer than %v", len(x), n)
		}
		if n, ok := bound(node["maxItems"]); ok && float64(len(x)) > n {
			return fail("%d items, more than %v", len(x), n)
		}
		for i, item := range x {
			if why := m.match(asMap(node["items"]), item, at+"/"+strconv.Itoa(i), depth+1); why != "" {
				return why
			}
		}
	case string:
		n := float64(len([]rune(x)))
		if l, ok := bound(node["minLength"]); ok && n < l {
			return fail("%s is shorter than %v characters", brief(v), l)
		}
		if l, ok := bound(node["maxLength"]); ok && n > l {
			return fail("%s is longer than %v characters", brief(v), l)
		}
		if p, ok := node["pattern"].(string); ok {
			re, err := regexp.Compile(p)
			if err != nil || !re.MatchString(x) {
				return fail("%s does not match %s", brief(v), p)
			}
		}
	case json.Number:
		f, _ := x.Float64()
		for _, b := range [...]struct {
			key   string
			fails func(f, b float64) bool
			what  string
		}{
			{"minimum", func(f, b float64) bool { return f < b }, "less than"},
			{"maximum", func(f, b float64) bool { return f > b }, "more than"},
			{"exclusiveMinimum", func(f, b float64) bool { return f <= b }, "not more than"},
			{"exclusiveMaximum", func(f, b float64) bool { return f >= b }, "not less than"},
		} {
			if n, ok := bound(node[b.key]); ok && b.fails(f, n) {
				return fail("%s is %s %v", x, b.what, n)
			}
		}
	}
	for _, b := range anyList(node["allOf"]) {
		if why := m.match(asMap(b), v, at, depth+1); why != "" {
			return why
		}
	}
	if branches := anyList(node["anyOf"]); len(branches) > 0 && m.matching(branches, v, at, depth) == 0 {
		return fail("%s matches none of the allowed shapes (anyOf)", brief(v))
	}
	if branches := anyList(node["oneOf"]); len(branches) > 0 {
		if n := m.matching(branches, v, at, depth); n != 1 {
			return fail("%s matches %d of the shapes of a oneOf, not exactly one", brief(v), n)
		}
	}
	if not := asMap(node["not"]); not != nil && m.match(not, v, at, depth+1) == "" {
		return fail("%s matches a shape it must not (not)", brief(v))
	}
	return ""
}

// matching counts the branches v matches.
func (m matcher) matching(branches []any, v any, at string, depth int) int {
	n := 0
	for _, b := range branches {
		if m.match(asMap(b), v, at, depth+1) == "" {
			n++
		}
	}
	return n
}

// resolve follows a local reference, "#" or "#/$defs/name"; nil when it
// points nowhere or elsewhere.
func (m matcher) resolve(ref string) any {
	if ref == "#" {
		return map[string]any(m.root)
	}
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var node any = map[string]any(m.root)
	for _, part := range strings.Split(rest, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		node = asMap(node)[part]
	}
	return node
}

// isType reports whether v, decoded with UseNumber, is of JSON type t.
func isType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	case json.Number:
		if t == "number" {
			return true
		}
		f, err := x.Float64()
		return t == "integer" && err == nil && f == math.Trunc(f)
	}
	return false
}

// kindOf names v's JSON type, as an error says it.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}

// brief is v as an error quotes it: a scalar whole, an object or array not.
func brief(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		return "the value"
	}
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}

// equal compares two JSON values, one possibly built in Go: numbers by
// value, whatever their Go type.
func equal(a, b any) bool {
	if x, ok := numeric(a); ok {
		y, ok := numeric(b)
		return ok && x == y
	}
	if _, ok := numeric(b); ok {
		return false
	}
	ma, mb := asMap(a), asMap(b)
	if ma != nil || mb != nil {
		if ma == nil || mb == nil || len(ma) != len(mb) {
			return false
		}
		for k, va := range ma {
			vb, ok := mb[k]
			if !ok || !equal(va, vb) {
				return false
			}
		}
		return true
	}
	la, lb := anyList(a), anyList(b)
	if la != nil || lb != nil {
		return slices.EqualFunc(la, lb, equal)
	}
	return reflect.DeepEqual(a, b)
}

// numeric is v as a float64, when it is a number of any Go type.
func numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// bound reads a numeric keyword.
func bound(v any) (float64, bool) { return numeric(v) }

// pointer is at as a JSON pointer: "/" for the value itself.
func pointer(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

// requiredNames reads "required", built in Go ([]string) or parsed ([]any).
func requiredNames(v any) []string {
	var out []string
	for _, x := range anyList(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
