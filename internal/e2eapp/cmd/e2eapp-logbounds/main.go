// Command e2eapp-logbounds is e2eapp with its log files bounded small — the
// audit log, on, rotated past 2 KiB, two rotated files kept, none older than
// a day — so that the tests in internal/e2eapp/e2e see rotation, retention
// and pruning (REQ-F-042, REQ-O-030) in a few invocations.
package main

import (
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/e2eapp/app"
)

// limits are the bounds the app sets (REQ-O-030: all three are the app's
// to set).
var limits = adapters.AuditLogLimits{MaxBytes: 2 << 10, Keep: 2, MaxAge: 24 * time.Hour}

func main() {
	opts := append(app.Options(), adapters.WithAuditLog(""), adapters.WithAuditLogLimits(limits))
	urfave.Main(app.New(), opts...)
}
