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
	return json.Marshal(map[string]any{"tools": tools})
}
