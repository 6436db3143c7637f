package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// externalCommands are the external commands of e2eapp (to be filled).
func externalCommands() []*cli.Command { return nil }

// externalOptions are the Duet options the external commands need.
func externalOptions() []urfave.Option { return nil }
