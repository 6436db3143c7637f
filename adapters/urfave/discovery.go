package urfave

import "github.com/duet-cli/duet/adapters"

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
)
