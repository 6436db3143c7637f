package adapters

import "log/slog"

// httpDebug is where --debug traces the command's HTTP requests (package
// nethttp): the invocation's logger, which puts the trace id on every line
// and redacts secrets; nil when not debugging (F-051, O-008).
func (inv *invocation) httpDebug() *slog.Logger {
	if inv.out == nil || !inv.out.Debugging() {
		return nil
	}
	return inv.out.Logger()
}
