//go:build unix

package mcp_test

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/adapters/mcp"
)

// BenchmarkCall times one tools/call round trip over in-memory transports:
// with the command run in process, and in a child process (the default).
func BenchmarkCall(b *testing.B) {
	for name, runner := range map[string]func(testing.TB) mcp.Runner{
		"in-process": func(tb testing.TB) mcp.Runner { return mcp.InProcess(newApp) },
		"exec":       func(tb testing.TB) mcp.Runner { return execRunner(tb) },
	} {
		b.Run(name, func(b *testing.B) {
			cs := connect(b, runner(b))
			params := &sdk.CallToolParams{Name: "show", Arguments: map[string]any{"id": "n1"}}
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
