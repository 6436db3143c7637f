//go:build !nomcp

package main

import (
	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
)

// serveMCP adds `todo mcp`, which serves the commands as MCP tools. The MCP
// SDK links net/http, oauth2 and encoding/gob, whose package initialisation
// every start of the binary pays for (bench/run.sh measures it); build with
// -tags nomcp to leave the server out.
func serveMCP() []adapters.Option { return []adapters.Option{mcp.Command("mcp")} }
