package envelope

import "github.com/duet-cli/duet/internal/jsonw"

// appendObserved appends the members that say what happened around an
// invocation — its trace, time, directory, configuration, audit log,
// display and retries — and closes meta.
func (m Meta) appendObserved(b []byte) []byte {
	b = optString(b, "trace_id", m.TraceID)
	b = optString(b, "timestamp", m.Timestamp)
	b = optString(b, "cwd", m.Cwd)
	b = optString(b, "project_root", m.ProjectRoot)
	b = optString(b, "effective_config_hash", m.EffectiveConfigHash)
	b = optString(b, "context", m.Context)
	b = optString(b, "audit_log_path", m.AuditLogPath)
	b = optBool(b, "headless", m.Headless)
	if m.Retries != 0 {
		b = append(b, `,"retries":`...)
		b = jsonw.Int(b, int64(m.Retries))
	}
	return b
}
