package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// progressCommands are the long-running and traversing commands: heartbeats, directory walks, and the built-in changelog and generate-skills commands.
func progressCommands() []*cli.Command { return nil }

// progressOptions are the Duet options the progress commands need.
func progressOptions() []urfave.Option { return nil }
