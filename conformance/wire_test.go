package conformance

import "testing"

// TestValidExitCode holds exit_codes entries to the spec's schema.
func TestValidExitCode(t *testing.T) {
	tests := []struct {
		entry string
		ok    bool
	}{
		{`{"name":"NOT_FOUND","description":"No such thing.","retryable":false,"side_effects":"none"}`, true},
		{`{"name":"NOT_FOUND","description":"No such thing.","retryable":"no","side_effects":"none"}`, false},
		{`{"description":"No such thing."}`, false},
		{`"not an object"`, false},
	}
	for _, tt := range tests {
		if problem := validExitCode([]byte(tt.entry)); (problem == "") != tt.ok {
			t.Errorf("validExitCode(%s) = %q, want ok %v", tt.entry, problem, tt.ok)
		}
	}
}

// TestParseEnvelope sorts what keeps stdout from being one envelope, which
// decides the requirement a run's fault is blamed on.
func TestParseEnvelope(t *testing.T) {
	const env = `{"ok":true,"data":null,"error":null,"warnings":[],"meta":{"schema_version":"1.0","duration_ms":1}}`
	tests := []struct {
		name, stdout string
		want         fault
	}{
		{"one envelope", env + "\n", noFault},
		{"empty", "  \n", noJSON},
		{"prose", "hello there\n", noJSON},
		{"prose before", "Listing...\n" + env + "\n", besideText},
		{"prose after", env + "\nDone.\n", besideText},
		{"two envelopes", env + "\n" + env + "\n", several},
		{"not an envelope", `{"items":[]}`, invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got, why := parseEnvelope([]byte(tt.stdout)); got != tt.want {
				t.Errorf("fault %d (%s), want %d", got, why, tt.want)
			}
		})
	}
}
