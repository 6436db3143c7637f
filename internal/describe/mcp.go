package describe

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/internal/jsonw"
	"github.com/duet-cli/duet/schema"
)

// ToolList is the MCP tools an app serves, as `describe --mcp` prints them
// and adapters/mcp serves them. Etag is the agent manifest's etag: a client
// that holds both can tell when either has drifted.
type ToolList struct {
	Etag  string `json:"etag"`
	Tools []Tool `json:"tools"`
	// discovery: the tool's version, which the list was made from (the
	// spec's integration artifact version, as --version prints it).
	CLIVersion string `json:"cli_version"`
}

// Tool is one command served as an MCP tool, in the shape of the MCP
// specification's Tool.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  schema.Schema   `json:"inputSchema"`
	OutputSchema schema.Schema   `json:"outputSchema,omitempty"`
	Annotations  ToolAnnotations `json:"annotations"`

	cmd   *schema.Command
	shape shape
}

// ToolAnnotations are the MCP hints a tool's danger level gives. A command
// whose danger is unknown gives none: a client then assumes the worst (MCP's
// default for destructiveHint is true).
type ToolAnnotations struct {
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  bool  `json:"idempotentHint"`
	ReadOnlyHint    bool  `json:"readOnlyHint"`
}

// Command returns the command the tool runs.
func (t *Tool) Command() *schema.Command { return t.cmd }

// shape is how a command's data is carried in a tool's structured content,
// which MCP requires to be an object.
type shape int

const (
	shapeAuto   shape = iota // no declared output: decided by the data
	shapeObject              // the data itself
	shapeList                // {"items": data}
	shapeValue               // {"value": data}
)

// Properties the structured content adds to the data.
const (
	toolItems      = "items"
	toolValue      = "value"
	toolWarning    = "warning"
	toolNextCursor = "next_cursor"
)

// Tools returns the MCP tools of root's tree (see [schema.Command.IsTool]),
// by name. A tool is named after its command's dot path with "_" for ".":
// run.spawn is run_spawn. It fails when a declared output schema cannot be
// built, or when two commands would give one tool name.
func Tools(root *schema.Command, version string) (ToolList, error) {
	m, err := New(root, version, true)
	if err != nil {
		return ToolList{}, err
	}
	list := ToolList{Etag: m.Etag, Tools: []Tool{}, CLIVersion: version}
	var errs []string
	byName := map[string]string{}
	root.Walk(func(c *schema.Command) {
		if !c.IsTool() {
			return
		}
		t, err := tool(c)
		if err != nil {
			errs = append(errs, err.Error())
			return
		}
		if other, dup := byName[t.Name]; dup {
			errs = append(errs, fmt.Sprintf("commands %q and %q are both tool %q", other, c.DotPath(), t.Name))
			return
		}
		byName[t.Name] = c.DotPath()
		list.Tools = append(list.Tools, t)
	})
	if len(errs) > 0 {
		slices.Sort(errs)
		return ToolList{}, fmt.Errorf("describe: tools: %s", strings.Join(errs, "; "))
	}
	slices.SortFunc(list.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return list, nil
}

// ToolName is the name of c's tool.
func ToolName(c *schema.Command) string { return strings.ReplaceAll(c.DotPath(), ".", "_") }

func tool(c *schema.Command) (Tool, error) {
	declared, err := c.OutputSchema()
	if err != nil {
		return Tool{}, err
	}
	t := Tool{
		Name:        ToolName(c),
		Description: c.Usage,
		InputSchema: c.ToolInputSchema(),
		cmd:         c,
	}
	if c.Description != "" {
		t.Description = strings.TrimSpace(c.Usage + "\n\n" + c.Description)
	}
	switch yes, no := true, false; c.Danger() {
	case schema.Safe:
		t.Annotations = ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no}
	case schema.Mutating:
		t.Annotations = ToolAnnotations{DestructiveHint: &no}
	case schema.Destructive:
		t.Annotations = ToolAnnotations{DestructiveHint: &yes}
	}
	t.shape, t.OutputSchema = outputOf(declared, c.Meta.List)
	return t, nil
}

// outputOf returns the shape of a tool's structured content and its schema,
// made from the command's declared output: an object is served as it is,
// with an optional warning; a list as {"items": [...]} with next_cursor when
// there is a next page; anything else as {"value": ...}.
func outputOf(declared schema.Schema, list bool) (shape, schema.Schema) {
	if declared == nil {
		if list {
			return shapeList, nil
		}
		return shapeAuto, nil
	}
	root := maps.Clone(declared)
	defs := root["$defs"]
	delete(root, "$defs")
	if ref, ok := root["$ref"].(string); ok && len(root) == 1 {
		// A named type: its definition stands at the root.
		if def, ok := lookupDef(defs, ref); ok {
			root = maps.Clone(def)
		}
	}
	types := typesOf(root)
	var out schema.Schema
	var sh shape
	switch {
	case slices.Contains(types, "array") || list:
		sh = shapeList
		out = schema.Schema{
			"type": "object",
			"properties": map[string]any{
				toolItems:      map[string]any(root),
				toolNextCursor: map[string]any{"type": "string", "description": "pass as cursor for the next page"},
				toolWarning:    warningSchema(),
			},
			"required":             []string{toolItems},
			"additionalProperties": false,
		}
	case isObject(root, types):
		sh = shapeObject
		out = root
		out["type"] = "object" // a null answer is served as {}
		props := map[string]any{}
		if p, ok := root["properties"].(map[string]any); ok {
			props = maps.Clone(p)
		}
		props[toolWarning] = warningSchema()
		out["properties"] = props
	default:
		sh = shapeValue
		out = schema.Schema{
			"type":                 "object",
			"properties":           map[string]any{toolValue: map[string]any(root), toolWarning: warningSchema()},
			"additionalProperties": false,
		}
	}
	if defs != nil {
		out["$defs"] = defs
	}
	return sh, out
}

func warningSchema() map[string]any {
	return map[string]any{"type": "string", "description": "what the command warned about, with the next step; absent when nothing"}
}

func lookupDef(defs any, ref string) (map[string]any, bool) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, false
	}
	d, ok := asObject(defs)[name].(map[string]any)
	return d, ok
}

func asObject(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case schema.Schema:
		return m
	}
	return nil
}

// typesOf lists the JSON types a schema's "type" keyword allows.
func typesOf(s schema.Schema) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return t
	}
	return nil
}

// isObject reports whether a schema describes an object, perhaps null.
func isObject(s schema.Schema, types []string) bool {
	if len(types) == 0 {
		_, props := s["properties"]
		return props
	}
	for _, t := range types {
		if t != "object" && t != "null" {
			return false
		}
	}
	return slices.Contains(types, "object")
}

// Content returns the tool's structured content for a command's answer:
// data, the envelope's warnings joined into one string (empty for none), and
// the cursor of the next page (empty for none). An object's members are kept
// byte for byte.
func (t *Tool) Content(data json.RawMessage, warning, nextCursor string) json.RawMessage {
	trimmed := strings.TrimSpace(string(data))
	sh := t.shape
	if sh == shapeAuto {
		switch {
		case strings.HasPrefix(trimmed, "{"):
			sh = shapeObject
		case strings.HasPrefix(trimmed, "["):
			sh = shapeList
		default:
			sh = shapeValue
		}
	}
	var b []byte
	switch {
	case sh == shapeObject && strings.HasPrefix(trimmed, "{"):
		b = append(b, strings.TrimSuffix(trimmed, "}")...)
	case sh == shapeObject: // null
		b = append(b, '{')
	case sh == shapeList:
		b = append(b, `{"items":`...)
		if trimmed == "" || trimmed == "null" {
			trimmed = "[]"
		}
		b = append(b, trimmed...)
	default:
		b = append(b, `{"value":`...)
		b = append(b, cmp.Or(trimmed, "null")...)
	}
	if sh == shapeList && nextCursor != "" {
		b = member(b, toolNextCursor, nextCursor)
	}
	if warning != "" {
		b = member(b, toolWarning, warning)
	}
	return append(b, '}')
}

// member appends `,"name":"value"` to an object being written, without the
// comma after its opening brace.
func member(b []byte, name, value string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = jsonw.String(b, name)
	b = append(b, ':')
	return jsonw.String(b, value)
}
