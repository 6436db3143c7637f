// Package level3 bundles the features beyond Duet's core that the CLI Agent
// Spec's Level 3 asks for, so that an app opts into all of them at once:
//
//	urfave.Main(app, adapters.WithFeatures(level3.Features()...))
//
// A one-line wrap without it links, and runs, only the core.
package level3

import (
	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/feature/changelog"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/feature/json5"
	"github.com/duet-cli/duet/feature/skills"
	"github.com/duet-cli/duet/feature/toon"
)

// Features returns the bundle, in the order the lifecycle runs them.
func Features() []adapters.Feature {
	return []adapters.Feature{idempotency.New(), json5.New(), toon.New(), changelog.New(), skills.New()}
}
