package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// docsCommands are the docs commands of e2eapp (to be filled).
func docsCommands() []*cli.Command { return nil }

// docsOptions are the Duet options the docs commands need.
func docsOptions() []urfave.Option { return nil }
