package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// logsCommands are the logs commands of e2eapp (to be filled).
func logsCommands() []*cli.Command { return nil }

// logsOptions are the Duet options the logs commands need.
func logsOptions() []urfave.Option { return nil }
