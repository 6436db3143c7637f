package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// driftField is a field one side has and the other has not.
type driftField struct {
	Command string  `json:"command"` // the tool's name
	Field   *string `json:"field"`   // input.<name> or output.<name>; null: the whole tool
}

// driftChange is a field whose type differs.
type driftChange struct {
	Command string `json:"command"`
	Field   string `json:"field"`
	CLIType string `json:"cli_type"`
	MCPType string `json:"mcp_type"`
}

// drift is mcp-validate's report: added are in the CLI's tools and not in
// the MCP list (the CLI grew), removed in the MCP list and not in the
// CLI's (the CLI lost them), changed in both with different types, and
// missing_from_mcp the CLI's tools the MCP list lacks entirely.
type drift struct {
	Added          []driftField  `json:"added"`
	Removed        []driftField  `json:"removed"`
	Changed        []driftChange `json:"changed"`
	MissingFromMCP []string      `json:"missing_from_mcp"`
}

func (d drift) none() bool {
	return len(d.Added)+len(d.Removed)+len(d.Changed)+len(d.MissingFromMCP) == 0
}

// driftCheck is the feature that adds mcp-validate to an app that serves
// MCP (REQ-O-035): it compares an MCP tool list — from a file, or from a
// server — with the tools this tool's commands are served as (describe
// --mcp), and exits 1 with the drift when they differ.
type driftCheck struct{}

var _ adapters.Commander = driftCheck{}

func (driftCheck) Name() string { return "mcp-validate" }

func (driftCheck) Commands() []adapters.Command {
	return []adapters.Command{{
		Node: &schema.Command{
			Name: "mcp-validate", Usage: "Compare an MCP tool list with this tool's commands, and report the drift",
			Runnable: true, NoArgs: true,
			Flags: []schema.Flag{
				{Name: flagname.MCPSchemaFile, Type: schema.String, Usage: "a file holding the MCP tools: a tools/list result, or describe --mcp's answer"},
				{Name: flagname.MCPServerURL, Type: schema.String, Usage: "an MCP server's streamable HTTP endpoint to ask for its tools"},
			},
			Meta: schema.Meta{Danger: schema.Safe, NoArgs: true,
				Examples: []schema.Example{{Description: "check a committed tool list in CI", Command: "mcp-validate --mcp-schema-file mcp.json"}},
				// One of the two is needed; the action says so, so that
				// --validate-only of the bare command holds.
				Groups: []schema.Group{{Kind: schema.MutuallyExclusive, Flags: []string{flagname.MCPSchemaFile, flagname.MCPServerURL}}}},
		},
		Run: validate,
	}}
}

// validate answers mcp-validate.
func validate(ctx context.Context, inv *adapters.Invocation) error {
	tool := inv.Root().Name
	var raw []byte
	var source string
	file, fromFile := inv.Flag(flagname.MCPSchemaFile)
	url, fromServer := inv.Flag(flagname.MCPServerURL)
	switch {
	case fromFile:
		source = file
		b, err := os.ReadFile(source)
		if err != nil {
			return envelope.Errorf(exitcode.NotFound, "MCP_SCHEMA_UNREADABLE", "%v", err).
				WithPhase(envelope.Validation).WithField(flagname.MCPSchemaFile).
				WithSuggestion(fmt.Sprintf("write the list with '%s describe --mcp > %s'", tool, source))
		}
		raw = b
	case fromServer:
		source = url
		b, err := fetchTools(ctx, source)
		if err != nil {
			return envelope.Errorf(exitcode.Unavailable, "MCP_SERVER_UNREACHABLE", "asking %s for its tools: %v", source, err).WithPhase(envelope.Execution)
		}
		raw = b
	default:
		return envelope.Invalid([]envelope.FieldError{{Code: errcode.MissingRequiredFlag, Field: flagname.MCPSchemaFile,
			Message: "pass --mcp-schema-file or --mcp-server-url", Suggestion: fmt.Sprintf("'%s describe --mcp > mcp.json' writes the current list", tool)}})
	}
	theirs, err := mcpTools(raw)
	if err != nil {
		return envelope.Validationf("MCP_SCHEMA_INVALID", "%s holds no MCP tool list: %v", source, err).
			WithSuggestion(fmt.Sprintf("pass a tools/list result, or what '%s describe --mcp' prints", tool))
	}
	ours, err := describe.Tools(inv.Root(), inv.Version())
	if err != nil {
		return describe.DeclarationError(err)
	}
	d := compareTools(ours.Tools, theirs)
	out := inv.Output()
	out.RenderText(func(w io.Writer) error { return writeDrift(w, d) })
	out.Result(map[string]any{"drift": d})
	if d.none() {
		return nil
	}
	return envelope.Errorf(exitcode.GeneralError, "SCHEMA_DRIFT", "the MCP tools in %s differ from the commands of %s", source, tool).
		WithPhase(envelope.Execution).
		WithSuggestion(fmt.Sprintf("regenerate the list with '%s describe --mcp'", tool)).WithResult()
}

// mcpTool is what mcp-validate reads of a tool.
type mcpTool struct {
	Name         string         `json:"name"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
}

// mcpTools reads a tool list from a tools/list result, a JSON-RPC response
// holding one, describe --mcp's data or envelope, or a bare array.
func mcpTools(raw []byte) ([]mcpTool, error) {
	var list []mcpTool
	if json.Unmarshal(raw, &list) == nil && list != nil {
		return list, nil
	}
	var doc struct {
		Tools  []mcpTool `json:"tools"`
		Result *struct {
			Tools []mcpTool `json:"tools"`
		} `json:"result"`
		Data *struct {
			Tools []mcpTool `json:"tools"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	switch {
	case doc.Tools != nil:
		return doc.Tools, nil
	case doc.Result != nil && doc.Result.Tools != nil:
		return doc.Result.Tools, nil
	case doc.Data != nil && doc.Data.Tools != nil:
		return doc.Data.Tools, nil
	}
	return nil, fmt.Errorf("no tools member")
}

// compareTools compares the CLI's tools with an MCP list, property by
// property of their input and output schemas.
func compareTools(ours []describe.Tool, theirs []mcpTool) drift {
	d := drift{Added: []driftField{}, Removed: []driftField{}, Changed: []driftChange{}, MissingFromMCP: []string{}}
	byName := map[string]mcpTool{}
	for _, t := range theirs {
		byName[t.Name] = t
	}
	seen := map[string]bool{}
	for _, t := range ours {
		seen[t.Name] = true
		m, ok := byName[t.Name]
		if !ok {
			d.MissingFromMCP = append(d.MissingFromMCP, t.Name)
			continue
		}
		for _, side := range [...]struct {
			prefix      string
			cli, theirs map[string]any
		}{{"input", t.InputSchema, m.InputSchema}, {"output", t.OutputSchema, m.OutputSchema}} {
			cli, mcp := propertyTypes(side.cli), propertyTypes(side.theirs)
			for _, name := range slices.Sorted(maps.Keys(cli)) {
				field := side.prefix + "." + name
				other, ok := mcp[name]
				switch {
				case !ok:
					d.Added = append(d.Added, driftField{Command: t.Name, Field: &field})
				case other != cli[name]:
					d.Changed = append(d.Changed, driftChange{Command: t.Name, Field: field, CLIType: cli[name], MCPType: other})
				}
			}
			for _, name := range slices.Sorted(maps.Keys(mcp)) {
				if _, ok := cli[name]; !ok {
					field := side.prefix + "." + name
					d.Removed = append(d.Removed, driftField{Command: t.Name, Field: &field})
				}
			}
		}
	}
	for _, t := range theirs {
		if !seen[t.Name] {
			d.Removed = append(d.Removed, driftField{Command: t.Name})
		}
	}
	slices.SortStableFunc(d.Removed, func(a, b driftField) int { return strings.Compare(a.Command, b.Command) })
	return d
}

// propertyTypes maps a schema's properties to their types: "string",
// "integer|null", or "any" for a property that names none.
func propertyTypes(s map[string]any) map[string]string {
	props := map[string]string{}
	var raw map[string]any
	switch p := s["properties"].(type) {
	case map[string]any:
		raw = p
	default:
		// Duet's own schemas hold properties as a sorted list that encodes
		// as an object: read them as JSON does.
		if p == nil {
			return props
		}
		b, err := json.Marshal(p)
		if err != nil || json.Unmarshal(b, &raw) != nil {
			return props
		}
	}
	for name, v := range raw {
		props[name] = typeOf(v)
	}
	return props
}

func typeOf(v any) string {
	p, ok := v.(map[string]any)
	if !ok {
		return "any"
	}
	switch t := p["type"].(type) {
	case string:
		return t
	case []any:
		var names []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		slices.Sort(names)
		return strings.Join(names, "|")
	}
	return "any"
}

func writeDrift(w io.Writer, d drift) error {
	if d.none() {
		_, err := fmt.Fprintln(w, "No drift: the MCP tools match the commands.")
		return err
	}
	for _, name := range d.MissingFromMCP {
		fmt.Fprintf(w, "missing from MCP  %s\n", name)
	}
	for _, f := range d.Added {
		fmt.Fprintf(w, "added             %s %s\n", f.Command, ptrValue(f.Field))
	}
	for _, f := range d.Removed {
		fmt.Fprintf(w, "removed           %s %s\n", f.Command, ptrValue(f.Field))
	}
	for _, c := range d.Changed {
		fmt.Fprintf(w, "changed           %s %s: %s in the CLI, %s in MCP\n", c.Command, c.Field, c.CLIType, c.MCPType)
	}
	return nil
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
