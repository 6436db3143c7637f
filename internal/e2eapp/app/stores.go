package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// storesCommands are the stores commands of e2eapp (to be filled).
func storesCommands() []*cli.Command { return nil }

// storesOptions are the Duet options the stores commands need.
func storesOptions() []urfave.Option { return nil }
