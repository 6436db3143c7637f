package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fetchTools asks the MCP server at url (its streamable HTTP endpoint) for
// every tool it serves, for `tool mcp-validate --mcp-server-url`, and
// returns them as a tools/list result.
func fetchTools(ctx context.Context, url string) ([]byte, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "mcp-validate", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	var tools []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		params.Cursor = res.NextCursor
	}
	if progressive(tools) {
		if tools, err = unfold(ctx, cs); err != nil {
			return nil, err
		}
	}
	return json.Marshal(map[string]any{"tools": tools})
}

// progressive reports whether a server's tools are the three that stand
// for a large app's (WithProgressive).
func progressive(tools []*sdk.Tool) bool {
	names := map[string]bool{}
	for _, t := range tools {
		names[t.Name] = true
	}
	return len(tools) == 3 && names[SearchTool] && names[DescribeTool] && names[CallTool]
}

// unfold lists the tools a progressive server stands for: every tool
// search_tools finds, as describe_tool gives it.
func unfold(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var found struct {
		Tools []struct{ Name string }
		Total int
	}
	for limit := 1; ; limit = found.Total {
		if err := callInto(ctx, cs, SearchTool, map[string]any{"limit": limit}, &found); err != nil {
			return nil, err
		}
		if len(found.Tools) >= found.Total {
			break
		}
	}
	tools := make([]*sdk.Tool, 0, len(found.Tools))
	for _, f := range found.Tools {
		var t sdk.Tool
		if err := callInto(ctx, cs, DescribeTool, map[string]any{"name": f.Name}, &t); err != nil {
			return nil, err
		}
		tools = append(tools, &t)
	}
	return tools, nil
}

// callInto calls a tool of the server and decodes its answer into v.
func callInto(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, v any) error {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError || json.Unmarshal(raw, v) != nil {
		return fmt.Errorf("%s answered no result", tool)
	}
	return nil
}
