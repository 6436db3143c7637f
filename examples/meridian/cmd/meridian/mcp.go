//go:build !nomcp

package main

import (
	"net/http"

	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/meridian/internal/commands"
)

// serveMCP adds `meridian serve`, which serves the agent's commands as MCP
// tools, each call running this binary with the server's environment (so
// MERIDIAN_SPACE_ID of the server picks the space), and `meridian mcp
// install|uninstall|list`, which registers it with MCP clients. The MCP SDK's package
// initialisation costs every start of the binary; build with -tags nomcp to
// leave the server out, as bench/run.sh does for todo.
func serveMCP() []urfave.Option {
	return []urfave.Option{mcp.Command("serve", mcp.WithUsage("Start MCP server (the agent's commands as tools, over stdin and stdout)"))}
}

// mcpEndpoint is the MCP endpoint `meridian ui` serves beside its page: the
// tools of `meridian serve`, each call running this binary.
func mcpEndpoint(env commands.Env) func() (http.Handler, error) {
	return func() (http.Handler, error) {
		app, err := urfave.Wrap(commands.New(env), append(commands.Options(version), serveMCP()...)...)
		if err != nil {
			return nil, err
		}
		return mcp.Handler(app)
	}
}
