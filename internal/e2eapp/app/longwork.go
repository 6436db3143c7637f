package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// longworkCommands are the longwork commands of e2eapp (to be filled).
func longworkCommands() []*cli.Command { return nil }

// longworkOptions are the Duet options the longwork commands need.
func longworkOptions() []urfave.Option { return nil }
