// Package options holds the Duet options every build of todo is wrapped
// with, so that the urfave, cobra and urfave/cli v2 builds answer alike. It
// is apart from package commands, which the unwrapped builds that
// bench/run.sh times against use too: they must not link Duet.
package options

import (
	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/completion"
	"github.com/duet-cli/duet/examples/todo/internal/commands"
	"github.com/duet-cli/duet/feature/level3"
)

// For is the options of todo at version, after its MCP server's (none in a
// -tags nomcp build).
func For(version string, mcp ...adapters.Option) []adapters.Option {
	return append(mcp, adapters.WithVersion(version), adapters.WithSpecStrict(), adapters.WithCleanupCommand(),
		adapters.WithEnvVar(commands.DataHomeEnv, "path", commands.DataHomeEnvUsage), completion.Command("completion"),
		adapters.WithFeatures(level3.Features()...))
}
