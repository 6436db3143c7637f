package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// sessionCommands are the commands that show what Duet does with the processes and files of one invocation: children it tracks and stops, its temporary directory, atomic writes, locale, update notices, instances.
func sessionCommands() []*cli.Command { return nil }

// sessionOptions are the Duet options the session commands need.
func sessionOptions() []urfave.Option { return nil }
