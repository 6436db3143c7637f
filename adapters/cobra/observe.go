package cobra

import "github.com/duet-cli/duet/adapters"

// The options of seeing what happened (see package adapters).
var (
	WithClock    = adapters.WithClock
	WithWorkDir  = adapters.WithWorkDir
	WithAuditLog = adapters.WithAuditLog
	WithConfig   = adapters.WithConfig
	WithOpener   = adapters.WithOpener
)
