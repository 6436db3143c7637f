package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/schema"
)

// The tools a server publishes in place of a large app's own (see
// [WithProgressive]).
const (
	SearchTool   = "search_tools"
	DescribeTool = "describe_tool"
	CallTool     = "call_tool"
)

// defaultProgressive is how many tools a server publishes one by one before
// it publishes the three that find, describe and call them: a client reads
// the whole tools/list into its model's context on every connection.
const defaultProgressive = 40

// WithProgressive sets how many tools an app may have before the server
// publishes them progressively: three tools — search_tools (a tool's name
// and one line, by words of what it does), describe_tool (its whole
// definition) and call_tool (run it by name) — instead of every tool with
// its schemas. An agent then pays for the definitions of the tools it uses,
// not of all of them. The default is 40; a negative n never publishes
// progressively.
func WithProgressive(n int) Option { return func(c *config) { c.progressive = n } }

// progressively reports whether a server of n tools publishes progressively.
func (c *config) progressively(n int) bool { return c.progressive >= 0 && n > c.progressive }

// addProgressive adds the three tools that stand for tools.
func addProgressive(s *sdk.Server, cfg *config, tool string, tools []describe.Tool) {
	byName := make(map[string]*describe.Tool, len(tools))
	readOnly, destructive := true, false
	var groups []string
	for i := range tools {
		t := &tools[i]
		byName[t.Name] = t
		readOnly = readOnly && t.Annotations.ReadOnlyHint
		destructive = destructive || t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint
		if g, _, _ := strings.Cut(t.Command().DotPath(), "."); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	slices.Sort(groups)
	s.AddTool(&sdk.Tool{
		Name: SearchTool,
		Description: fmt.Sprintf("Find %s's %d tools (by command: %s) by words of what you want done: answers each match's name and one line. "+
			"Then %s gives a tool's arguments, and %s runs it.", tool, len(tools), strings.Join(groups, ", "), DescribeTool, CallTool),
		InputSchema: schema.Schema{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"query": map[string]any{"type": "string", "description": "words of what the tool does or is called; empty lists them all"},
			"limit": map[string]any{"type": "integer", "minimum": 1, "default": 10, "description": "at most this many tools"},
		}},
		OutputSchema: schema.Schema{"type": "object", "required": []string{"tools", "total"}, "properties": map[string]any{
			"tools": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"name", "description"}, "properties": map[string]any{
				"name": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"},
			}}},
			"total": map[string]any{"type": "integer", "description": "how many tools matched"},
		}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct {
			Query string `json:"query"`
			Limit int    `json:"limit"`
		}
		if err := unmarshalArgs(req, &in); err != nil {
			return failure(err, int(err.Exit)), nil
		}
		found := search(tools, in.Query)
		out := struct {
			Tools []toolLine `json:"tools"`
			Total int        `json:"total"`
		}{found[:min(len(found), cmp.Or(in.Limit, 10))], len(found)}
		return structured(out), nil
	})
	s.AddTool(&sdk.Tool{
		Name:        DescribeTool,
		Description: "The whole definition of one tool " + SearchTool + " found: its description, inputSchema (the arguments " + CallTool + " takes), outputSchema and hints.",
		InputSchema: schema.Schema{"type": "object", "additionalProperties": false, "required": []string{"name"}, "properties": map[string]any{
			"name": map[string]any{"type": "string", "description": "the tool's name"},
		}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct {
			Name string `json:"name"`
		}
		if err := unmarshalArgs(req, &in); err != nil {
			return failure(err, int(err.Exit)), nil
		}
		t, err := lookup(byName, tools, in.Name)
		if err != nil {
			return failure(err, int(err.Exit)), nil
		}
		return structured(t), nil
	})
	s.AddTool(&sdk.Tool{
		Name:        CallTool,
		Description: "Run one tool by name with its arguments, as " + DescribeTool + "'s inputSchema says: it answers as the tool itself would.",
		InputSchema: schema.Schema{"type": "object", "additionalProperties": false, "required": []string{"name"}, "properties": map[string]any{
			"name":      map[string]any{"type": "string", "description": "the tool's name"},
			"arguments": map[string]any{"type": "object", "description": "the tool's arguments"},
		}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := unmarshalArgs(req, &in); err != nil {
			return failure(err, int(err.Exit)), nil
		}
		t, err := lookup(byName, tools, in.Name)
		if err != nil {
			return failure(err, int(err.Exit)), nil
		}
		call := &sdk.CallToolRequest{Session: req.Session, Params: &sdk.CallToolParamsRaw{Meta: req.Params.Meta, Name: t.Name, Arguments: in.Arguments}}
		return handler(cfg, t)(ctx, call)
	})
}

// toolLine is a tool as search_tools lists it.
type toolLine struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// search ranks the tools by the words of query they have: a word naming a
// part of the tool's name counts most, one in its name next, one in its
// description least. An empty query lists every tool, by name.
func search(tools []describe.Tool, query string) []toolLine {
	words := wordsOf(query)
	type hit struct {
		toolLine
		score int
	}
	var hits []hit
	for _, t := range tools {
		name, desc := strings.ToLower(t.Name), strings.ToLower(t.Description)
		parts := wordsOf(name)
		score := 0
		for _, w := range words {
			switch {
			case slices.Contains(parts, w):
				score += 3
			case strings.Contains(name, w):
				score += 2
			case strings.Contains(desc, w):
				score++
			}
		}
		if score > 0 || len(words) == 0 {
			line, _, _ := strings.Cut(t.Description, "\n")
			hits = append(hits, hit{toolLine{t.Name, line}, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(b.score-a.score, strings.Compare(a.Name, b.Name)) })
	out := make([]toolLine, len(hits))
	for i, h := range hits {
		out[i] = h.toolLine
	}
	return out
}

// wordsOf splits s into lower-case words of letters and digits.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// lookup finds a tool by name; a name it lacks is refused with the closest
// names it has.
func lookup(byName map[string]*describe.Tool, tools []describe.Tool, name string) (*describe.Tool, *envelope.Error) {
	if t, ok := byName[name]; ok {
		return t, nil
	}
	e := envelope.Errorf(exitcode.NotFound, "TOOL_NOT_FOUND", "there is no tool %q", name).
		WithSuggestion("find it with " + SearchTool)
	near := search(tools, name)
	for _, l := range near[:min(3, len(near))] {
		e.ValidValues = append(e.ValidValues, l.Name)
	}
	return nil, e
}

// unmarshalArgs decodes a call's arguments; an empty call is an empty object.
func unmarshalArgs(req *sdk.CallToolRequest, v any) *envelope.Error {
	raw := req.Params.Arguments
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return envelope.Validationf(errcode.InvalidArguments, "the arguments do not match the tool's inputSchema: %v", err).
			WithSuggestion("send the arguments as one object, as the tool's inputSchema describes")
	}
	return nil
}

// structured is a result whose structured content is v.
func structured(v any) *sdk.CallToolResult {
	raw, _ := json.Marshal(v)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw)}
}
