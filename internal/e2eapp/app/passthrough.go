package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// passthroughCommands are the passthrough commands of e2eapp (to be filled).
func passthroughCommands() []*cli.Command { return nil }

// passthroughOptions are the Duet options the passthrough commands need.
func passthroughOptions() []urfave.Option { return nil }
