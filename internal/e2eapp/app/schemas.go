package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// schemasCommands are the schemas commands of e2eapp (to be filled).
func schemasCommands() []*cli.Command { return nil }

// schemasOptions are the Duet options the schemas commands need.
func schemasOptions() []urfave.Option { return nil }
