package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
)

// docsCommands are the docs commands of e2eapp: none, as its AGENTS.md and
// --help are Duet's built-ins (describe --agents-md).
func docsCommands() []*cli.Command { return nil }

// docsOptions declare the variables e2eapp reads itself, not through a
// flag's env source, so that AGENTS.md's Environment Variables section and
// the root --help list them (REQ-O-043).
func docsOptions() []urfave.Option {
	return []urfave.Option{
		adapters.WithEnvVar(ScopesEnv, "string", "the scopes of the active credential, comma-separated; unset, there is no credential"),
		adapters.WithEnvVar(RegistryEnv, "path", "the package registry resolve and fetch read: a JSON file mapping a package's name to its latest version"),
		adapters.WithEnvVar(PasstoolEnv, "path", "the program the passthrough commands delegate to (default: passtool on PATH)"),
		adapters.WithEnvVar(UpdateURLEnv, "string", "where the update check asks for the latest version; unset, nothing is checked"),
	}
}
