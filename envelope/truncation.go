package envelope

import (
	"fmt"
)

// Truncation is a value a command answers with cut short: by a backend, a
// column's size, or a limit of its own. A value cut without saying so is
// taken for the whole value; one reported here is flagged to an agent.
type Truncation struct {
	Field         string // where in the envelope, such as "data.body"
	OriginalBytes int    // the value's size before it was cut; 0 when unknown
	ReturnedBytes int    // its size as answered
}

// Truncated reports that a value in the result is cut short. The envelope
// then has meta.truncated and a FIELD_TRUNCATED warning naming the field
// and its sizes; a person sees the warning on stderr.
func (o *Output) Truncated(t Truncation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.truncations = append(o.truncations, t)
	}
}

// truncatedLocked turns the reported truncations into meta and warnings.
func (o *Output) truncatedLocked(meta *Meta) {
	for _, t := range o.truncations {
		meta.Truncated = true
		o.warnings = append(o.warnings, warning{code: "FIELD_TRUNCATED", message: truncationMessage(t, "is cut short"),
			next:    "do not take it for the whole value; fetch it whole another way if you need it",
			context: truncationContext(t)})
	}
}

// truncationMessage words a truncation so that an agent can read its
// numbers: "data.body is cut short (field=data.body returned_bytes=255
// original_bytes=8192)".
func truncationMessage(t Truncation, what string) string {
	s := fmt.Sprintf("%s %s (field=%s returned_bytes=%d", t.Field, what, t.Field, t.ReturnedBytes)
	if t.OriginalBytes > 0 {
		s += fmt.Sprintf(" original_bytes=%d", t.OriginalBytes)
	}
	return s + ")"
}

// capWarningLocked records that the size cap cut data from original bytes
// to returned.
func (o *Output) capWarningLocked(original, returned int) {
	t := Truncation{Field: "data", OriginalBytes: original, ReturnedBytes: returned}
	o.warnings = append(o.warnings, warning{code: "FIELD_TRUNCATED", message: truncationMessage(t, "cut to the size cap"), context: truncationContext(t)})
}

// truncationContext is a truncation's facts as the warning's context
// (REQ-F-064): field and returned_bytes, and original_bytes when known.
func truncationContext(t Truncation) map[string]any {
	c := map[string]any{"field": t.Field, "returned_bytes": t.ReturnedBytes}
	if t.OriginalBytes > 0 {
		c["original_bytes"] = t.OriginalBytes
	}
	return c
}

// capCountsLocked sets the counts of a list the size cap cut to n of total
// items from start, and, when the command pages, the command line that
// fetches the rest.
func (o *Output) capCountsLocked(m *Meta, total, start, n int, pages bool) {
	m.TotalCount, m.ReturnedCount = &total, &n
	if pages && o.s.NextPage != nil && start+n < total {
		m.TruncationHint = o.s.NextPage(max(n, 1), EncodeCursor(start+n, o.query()))
	}
}
