package urfave

import (
	"strings"

	"github.com/duet-cli/duet/adapters"
)

// Re-exported options of the discovery built-ins (see package adapters).
var (
	WithChangelog     = adapters.WithChangelog
	WithCheck         = adapters.WithCheck
	WithDependency    = adapters.WithDependency
	WithStateFile     = adapters.WithStateFile
	WithSideEffect    = adapters.WithSideEffect
	WithInstall       = adapters.WithInstall
	WithHistory       = adapters.WithHistory
	WithMCPToolSource = adapters.WithMCPToolSource
	WithEnvVar        = adapters.WithEnvVar
)

// addEnvHelp ends the root's description with the variables the app
// declares with WithEnvVar, so that its help names every one AGENTS.md lists.
func (a *App) addEnvHelp() {
	if s := adapters.EnvHelp(a.opts...); s != "" {
		a.root.Description = strings.TrimLeft(a.root.Description+"\n\n"+s, "\n")
	}
}
