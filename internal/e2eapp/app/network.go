package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// networkCommands are the commands that show the network, credential and declaration contracts: proxies, network error context, credential expiry, truncation, redaction, subprocess argument schemas, editor and GUI declarations, subcommand stability.
func networkCommands() []*cli.Command { return nil }

// networkOptions are the Duet options the network commands need.
func networkOptions() []urfave.Option { return nil }
