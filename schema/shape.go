package schema

import (
	"slices"
	"strconv"
	"strings"
)

// Shape returns the shape of the data s describes as one short type
// expression, in the manner of TypeScript: `{id:string,tags?:string[]|null}[]`.
// A property without `?` is required; `any` is a value of any type. It is
// what the compact manifest says of a command's output: a JSON Schema says
// the same in several times the tokens, and `<command> --output-schema`
// still gives it whole. Descriptions and formats are left out.
func (s Schema) Shape() string {
	if s == nil {
		return "any"
	}
	sh := shaper{root: s, expanding: map[string]bool{}}
	var b strings.Builder
	sh.write(&b, map[string]any(s), 0)
	return b.String()
}

// shaper writes one schema's shape. expanding holds the $defs being written,
// so a recursive type is named where it recurs rather than written forever.
type shaper struct {
	root      Schema
	expanding map[string]bool
}

// maxDepth bounds the nesting a hand-written document may have.
const maxDepth = 32

func (sh shaper) write(b *strings.Builder, node map[string]any, depth int) {
	if node == nil || depth > maxDepth {
		b.WriteString("any")
		return
	}
	if ref, ok := node["$ref"].(string); ok {
		sh.ref(b, ref, depth)
		return
	}
	if enum := anyList(node["enum"]); len(enum) > 0 {
		for i, v := range enum {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(literal(v))
		}
		return
	}
	if c, ok := node["const"]; ok {
		b.WriteString(literal(c))
		return
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches, ok := node[key].([]any); ok && len(branches) > 0 {
			for i, br := range branches {
				if i > 0 {
					b.WriteByte('|')
				}
				sh.write(b, asMap(br), depth+1)
			}
			return
		}
	}
	types := typesOf(node["type"])
	if len(types) == 0 {
		// No type: an object or array by its keywords, else anything.
		switch {
		case node["properties"] != nil || node["additionalProperties"] != nil:
			types = []string{"object"}
		case node["items"] != nil:
			types = []string{"array"}
		default:
			b.WriteString("any")
			return
		}
	}
	for i, t := range types {
		if i > 0 {
			b.WriteByte('|')
		}
		switch t {
		case "object":
			sh.object(b, node, depth)
		case "array":
			items := asMap(node["items"])
			_, union := items["anyOf"]
			multi := len(typesOf(items["type"])) > 1 || union || len(anyList(items["enum"])) > 1
			if multi {
				b.WriteByte('(')
			}
			sh.write(b, items, depth+1)
			if multi {
				b.WriteByte(')')
			}
			b.WriteString("[]")
		default:
			b.WriteString(t)
		}
	}
}

func (sh shaper) object(b *strings.Builder, node map[string]any, depth int) {
	props := asMap(node["properties"])
	extra := asMap(node["additionalProperties"])
	if len(props) == 0 {
		if extra == nil {
			b.WriteString("object")
			return
		}
		b.WriteString("{[key:string]:")
		sh.write(b, extra, depth+1)
		b.WriteByte('}')
		return
	}
	required := map[string]bool{}
	switch r := node["required"].(type) {
	case []any:
		for _, n := range r {
			if s, ok := n.(string); ok {
				required[s] = true
			}
		}
	case []string:
		for _, s := range r {
			required[s] = true
		}
	}
	// Required properties first: they are what every answer has.
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int {
		if required[x] != required[y] {
			if required[x] {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
		if !required[name] {
			b.WriteByte('?')
		}
		b.WriteByte(':')
		sh.write(b, asMap(props[name]), depth+1)
	}
	b.WriteByte('}')
}

// ref writes a local reference: the definition itself, or its name where it
// is already being written (a recursive type).
func (sh shaper) ref(b *strings.Builder, ref string, depth int) {
	if ref == "#" {
		b.WriteString("Self")
		return
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		b.WriteString("any")
		return
	}
	if sh.expanding[name] {
		b.WriteString(name)
		return
	}
	defs := asMap(sh.root["$defs"])
	def := asMap(defs[name])
	if def == nil {
		b.WriteString("any")
		return
	}
	sh.expanding[name] = true
	sh.write(b, def, depth+1)
	delete(sh.expanding, name)
}

// typesOf reads a schema's "type": one name or a list of them.
func typesOf(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case Type:
		return []string{string(t)}
	case []string:
		return t
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// anyList reads a list of values built in Go ([]string) or parsed from
// JSON ([]any).
func anyList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}

// literal writes an enum or const value as a type: a JSON literal.
func literal(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	}
	return "any"
}
