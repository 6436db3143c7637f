package urfave

import "github.com/duet-cli/duet/adapters"

// The options of safety, configuration and the filesystem (see package adapters).
var (
	WithAuditLogLimits = adapters.WithAuditLogLimits
)

// AuditLogLimits bound the audit log's disk use (see package adapters).
type AuditLogLimits = adapters.AuditLogLimits
