package envelope

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// progress reports long work on stderr: one line redrawn in place at a
// terminal, one JSON event per distinct update for an agent, nothing under
// --quiet.
type progress struct {
	out  *Output
	last string // the last event written, to collapse duplicates
	live bool   // a redrawable line is on the terminal
	// Liveness, kept whatever is written: when the first and the latest
	// distinct report came, and the longest stretch between two. A report
	// that repeats the one before is no sign of progress (REQ-C-034).
	latest        ProgressEvent
	first, at     time.Time
	longestSilent time.Duration
}

// ProgressEvent is what an agent reads on stderr for each distinct update.
type ProgressEvent struct {
	Type    string `json:"type"` // always "progress"
	Message string `json:"message"`
	Done    int    `json:"done,omitempty"`
	Total   int    `json:"total,omitempty"`
	Unit    string `json:"unit,omitempty"` // what done and total count, when not plain items
}

// Progress reports how far long work has come. done and total may be 0 when
// unknown. Consecutive identical updates are written once.
func (o *Output) Progress(message string, done, total int) {
	o.ProgressIn("", message, done, total)
}

// ProgressIn is Progress counted in unit — "bytes", "rows" — which the
// progress of an INCOMPLETE answer carries as progress.unit (REQ-C-034,
// REQ-F-082), so that an agent reads 120000000 of 980000000 as bytes.
// A unit of "" is Progress's plain count.
func (o *Output) ProgressIn(unit, message string, done, total int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.work.status = o.redact(message) // for heartbeats, even under --quiet
	o.progress.report(ProgressEvent{Type: "progress", Message: message, Done: done, Total: total, Unit: unit}, time.Now())
	if o.s.Quiet || o.s.Hush && !o.s.Progress {
		return
	}
	ev := ProgressEvent{Type: "progress", Message: o.redact(message), Done: done, Total: total, Unit: unit}
	p := &o.progress
	if o.s.Mode.ErrTerminal {
		// A person at a terminal: redraw one line in place.
		fmt.Fprintf(o.s.Stderr, "\r\x1b[2K%s", humanProgress(ev))
		p.live = true
		return
	}
	var line string
	if o.s.Mode.Agent {
		raw, _ := json.Marshal(ev)
		line = string(raw)
	} else {
		line = humanProgress(ev)
	}
	if line == p.last {
		return
	}
	p.last = line
	io.WriteString(o.s.Stderr, line+"\n")
}

// report records a report's time when it differs from the one before.
func (p *progress) report(ev ProgressEvent, now time.Time) {
	if !p.at.IsZero() && ev == p.latest {
		return
	}
	if p.at.IsZero() {
		p.first = now
	} else {
		p.longestSilent = max(p.longestSilent, now.Sub(p.at))
	}
	p.latest, p.at = ev, now
}

// LastProgress is when the command last reported progress that differs
// from its report before; zero when it has reported none.
func (o *Output) LastProgress() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.progress.at
}

// LongestSilence is the longest stretch of the command's work, from start
// to now, without a new progress report: before the first, between two, or
// since the latest.
func (o *Output) LongestSilence(start, now time.Time) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := &o.progress
	if p.at.IsZero() {
		return now.Sub(start)
	}
	return max(p.longestSilent, p.first.Sub(start), now.Sub(p.at))
}

func humanProgress(ev ProgressEvent) string {
	msg, unit := sanitizeCell(ev.Message), ""
	if ev.Unit != "" {
		unit = " " + sanitizeCell(ev.Unit)
	}
	switch {
	case ev.Total > 0:
		return fmt.Sprintf("%s (%d/%d%s)", msg, ev.Done, ev.Total, unit)
	case ev.Done > 0:
		return fmt.Sprintf("%s (%d%s)", msg, ev.Done, unit)
	}
	return msg
}

// clearLocked erases a redrawn progress line before anything else is written.
func (p *progress) clearLocked() {
	if p.live {
		io.WriteString(p.out.s.Stderr, "\r\x1b[2K")
		p.live = false
	}
}

// renderLine writes one streamed item for a person on a single line.
func renderLine(w io.Writer, v any, st Style) error {
	o, ok := v.(object)
	if !ok {
		_, err := io.WriteString(w, cell(v)+"\n")
		return err
	}
	parts := make([]string, len(o))
	for i, f := range o {
		parts[i] = st.paint(sgrFaint, f.Key+"=") + strings.ReplaceAll(cell(f.Value), "\n", " ")
	}
	_, err := io.WriteString(w, strings.Join(parts, "  ")+"\n")
	return err
}
