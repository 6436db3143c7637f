//go:build nomcp

package main

import (
	"net/http"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/meridian/internal/commands"
)

// serveMCP adds nothing: this build has no MCP server (see mcp.go).
func serveMCP() []urfave.Option { return nil }

// mcpEndpoint is none: `meridian ui` serves no MCP in this build.
func mcpEndpoint(commands.Env) func() (http.Handler, error) { return nil }
