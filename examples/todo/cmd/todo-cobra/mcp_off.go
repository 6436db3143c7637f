//go:build nomcp

package main

import duetcobra "github.com/duet-cli/duet/adapters/cobra"

// serveMCP adds nothing: this build has no MCP server (see mcp.go).
func serveMCP() []duetcobra.Option { return nil }
