package adapters

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFitAuditEntry: an entry past 16 KiB loses the answer's data first,
// then its largest args values, one at a time, to [TRUNCATED], and is
// marked truncated; one that fits is left whole.
func TestFitAuditEntry(t *testing.T) {
	small := AuditEntry{Command: "set", Args: map[string]any{"key": "k"}, Warnings: []string{}, Data: json.RawMessage(`{"a":1}`)}
	if line, err := fitAuditEntry(&small); err != nil || small.Truncated || small.Data == nil || len(line) > maxAuditEntry {
		t.Errorf("a small entry was cut: %s, %v", line, err)
	}
	big := AuditEntry{Command: "set", Warnings: []string{}, Data: json.RawMessage(`"` + strings.Repeat("d", 4000) + `"`), Args: map[string]any{
		"key":   "k",
		"value": strings.Repeat("v", 50<<10),
		"note":  strings.Repeat("n", 12<<10),
		"list":  []any{strings.Repeat("l", 3000)},
	}}
	line, err := fitAuditEntry(&big)
	if err != nil || len(line)+1 > maxAuditEntry || !big.Truncated || big.Data != nil {
		t.Fatalf("fitted to %d bytes, truncated %v, data %d bytes: %v", len(line), big.Truncated, len(big.Data), err)
	}
	if big.Args["value"] != truncatedArg || big.Args["key"] != "k" || big.Args["note"] == truncatedArg {
		t.Errorf("args %v: want value cut alone (note and list fit once it is)", big.Args)
	}
}

// TestParseSince: --since takes a positive whole number of s, m, h or d,
// or an RFC 3339 time with its offset; nothing else.
func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 17, 14, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Time{
		"30s":                       now.Add(-30 * time.Second),
		"15m":                       now.Add(-15 * time.Minute),
		"1h":                        now.Add(-time.Hour),
		"7d":                        now.Add(-7 * 24 * time.Hour),
		"2026-03-17T13:00:00Z":      now.Add(-time.Hour),
		"2026-03-17T15:00:00+02:00": now.Add(-time.Hour),
	} {
		if got, err := parseSince(v, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"", "1w", "0h", "-1h", "1h30m", "1.5h", "h", "+1h", "2026-03-17", "2026-03-17T13:00:00"} {
		if got, err := parseSince(v, now); err == nil {
			t.Errorf("parseSince(%q) = %v, want an error", v, got)
		}
	}
}

// TestAuditPos: entries order by start time, then request id, and an
// anchor reads back as the position it was made from.
func TestAuditPos(t *testing.T) {
	a := auditPosOf(AuditEntry{Timestamp: "2026-03-17T14:00:00.000Z", RequestID: "b"})
	b := auditPosOf(AuditEntry{Timestamp: "2026-03-17T14:00:00.000Z", RequestID: "c"})
	c := auditPosOf(AuditEntry{Timestamp: "2026-03-17T14:00:00.001Z", RequestID: "a"})
	if a.compare(b) >= 0 || b.compare(c) >= 0 || c.compare(a) <= 0 || a.compare(a) != 0 {
		t.Errorf("order of %v, %v, %v", a, b, c)
	}
	if got, ok := parseAuditPos(c.String()); !ok || got.compare(c) != 0 {
		t.Errorf("parseAuditPos(%q) = %v, %v", c.String(), got, ok)
	}
	for _, bad := range []string{"", "2026-03-17T14:00:00Z", "yesterday r-1", "2026-03-17T14:00:00Z "} {
		if _, ok := parseAuditPos(bad); ok {
			t.Errorf("parseAuditPos(%q) took it", bad)
		}
	}
}

// TestAuditDataMasksWhatShapesMasks: data is looked at closely whenever
// secret.Shapes would mask something in it — a random word too, which has
// no secret's name or prefix beside it — and logged as it is otherwise.
func TestAuditDataMasksWhatShapesMasks(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"plain", `{"id":"x","note":"plain words"}`, `{"id":"x","note":"plain words"}`},
		{"random word", `{"id":"x","note":"Zx9qK2mVb7TfLp4sNw8RhYc3JdGa6EuQ"}`, `{"id":"x","note":"[REDACTED]"}`},
		{"token of a known shape", `{"id":"x","note":"ghp_0123456789abcdefABCDEF0123456789abcd"}`, `{"id":"x","note":"[REDACTED]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(auditData(json.RawMessage(tc.data), nil)); got != tc.want {
				t.Errorf("auditData(%s) = %s, want %s", tc.data, got, tc.want)
			}
		})
	}
}
