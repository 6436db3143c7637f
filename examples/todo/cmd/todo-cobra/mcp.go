//go:build !nomcp

package main

import (
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/mcp"
)

// serveMCP adds `todo mcp`, which serves the commands as MCP tools. The MCP
// SDK links net/http, oauth2 and encoding/gob, whose package initialisation
// every start of the binary pays for (bench/run.sh measures it); build with
// -tags nomcp to leave the server out.
func serveMCP() []duetcobra.Option { return []duetcobra.Option{mcp.Command("mcp")} }
