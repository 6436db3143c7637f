//go:build nomcp

package main

import "github.com/duet-cli/duet/adapters/urfave"

// serveMCP adds nothing: this build has no MCP server (see mcp.go).
func serveMCP() []urfave.Option { return nil }
