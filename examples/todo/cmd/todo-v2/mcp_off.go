//go:build nomcp

package main

import "github.com/duet-cli/duet/adapters"

// serveMCP adds nothing: this build has no MCP server (see mcp.go).
func serveMCP() []adapters.Option { return nil }
