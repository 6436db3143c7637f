package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// stateCommands are the state commands of e2eapp (to be filled).
func stateCommands() []*cli.Command { return nil }

// stateOptions are the Duet options the state commands need.
func stateOptions() []urfave.Option { return nil }
