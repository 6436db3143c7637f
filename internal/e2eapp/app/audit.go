package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// auditCommands are the audit commands of e2eapp (to be filled).
func auditCommands() []*cli.Command { return nil }

// auditOptions are the Duet options the audit commands need.
func auditOptions() []urfave.Option { return nil }
