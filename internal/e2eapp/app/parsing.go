package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// parsingCommands are the parsing commands of e2eapp (to be filled).
func parsingCommands() []*cli.Command { return nil }

// parsingOptions are the Duet options the parsing commands need.
func parsingOptions() []urfave.Option { return nil }
