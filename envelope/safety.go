package envelope

// WarningCodes returns the codes of the warnings the answer carries, in
// order, for the audit log (the CLI Agent Spec's O-023 records the use of
// --no-injection-protection there with its warning). After [Output.Finish]
// it includes the warnings Finish added.
func (o *Output) WarningCodes() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var codes []string
	for _, w := range o.warnings {
		codes = append(codes, w.code)
	}
	return codes
}

// EffectCounts returns the answer's events by effect ([Output.Event]), in
// their would_ form in a dry run, for the audit log (AuditLogEntry 1.1's
// effects): a stream's summary counts, or those of the events emitted
// before it failed. Nil when there were none.
func (o *Output) EffectCounts() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lines.counts(o.s.DryRun)
}
