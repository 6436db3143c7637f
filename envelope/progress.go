package envelope

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// progress reports long work on stderr: one line redrawn in place at a
// terminal, one JSON event per distinct update for an agent, nothing under
// --quiet.
type progress struct {
	out  *Output
	last string // the last event written, to collapse duplicates
	live bool   // a redrawable line is on the terminal
}

// ProgressEvent is what an agent reads on stderr for each distinct update.
type ProgressEvent struct {
	Type    string `json:"type"` // always "progress"
	Message string `json:"message"`
	Done    int    `json:"done,omitempty"`
	Total   int    `json:"total,omitempty"`
}

// Progress reports how far long work has come. done and total may be 0 when
// unknown. Consecutive identical updates are written once.
func (o *Output) Progress(message string, done, total int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.work.status = o.redact(message) // for heartbeats, even under --quiet
	if o.s.Quiet || o.s.Hush && !o.s.Progress {
		return
	}
	ev := ProgressEvent{Type: "progress", Message: o.redact(message), Done: done, Total: total}
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

func humanProgress(ev ProgressEvent) string {
	msg := sanitizeCell(ev.Message)
	switch {
	case ev.Total > 0:
		return fmt.Sprintf("%s (%d/%d)", msg, ev.Done, ev.Total)
	case ev.Done > 0:
		return fmt.Sprintf("%s (%d)", msg, ev.Done)
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
