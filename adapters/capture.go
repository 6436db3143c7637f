package adapters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jsonw"
)

// capture collects what a command writes to stdout itself while an agent is
// answered, so that the one envelope is all an agent reads there: the output
// of a command nobody ported becomes the envelope's data; anything a ported
// command prints beside its result goes to stderr.
//
// In a process of its own (Main) the capture holds file descriptor 1 itself,
// which catches fmt.Println, os.Stdout, the framework's writers and the
// children the command starts alike; the answer goes to a copy of the
// original. A run given its streams (WithStdio) captures what the framework
// writes to them.
type capture struct {
	in  io.Writer // where the framework writes, for a run given its streams; nil in a process
	out io.Writer // where the answer goes

	mu      sync.Mutex
	buf     bytes.Buffer
	limit   int   // bytes kept
	total   int64 // bytes written
	ended   bool
	end     func() // stops collecting: later writes go nowhere
	restore func() // puts the process's stdout back, once the answer is written
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		c.total += int64(len(p))
		if room := c.limit - c.buf.Len(); room > 0 {
			c.buf.Write(p[:min(len(p), room)])
		}
	}
	return len(p), nil
}

// stop ends the capture and returns what was written, and how much in all.
func (c *capture) stop() ([]byte, int64) {
	if c.end != nil {
		c.end()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	return c.buf.Bytes(), c.total
}

// startCapture starts capturing the command's stdout for an agent.
func (inv *invocation) startCapture() *capture {
	limit := maxBytes(inv.cfg.getenv(envelope.EnvName(inv.root.Name, "MAX_OUTPUT_BYTES")))
	if inv.ownStreams() {
		if c, err := captureProcess(limit); err == nil {
			return c
		}
		// No descriptor to spare: capture what the framework writes.
	}
	c := &capture{out: inv.cfg.stdout, limit: limit}
	c.in = c
	return c
}

// endCapture stops the capture and answers with what it caught. A command
// that gave envelope.Output no data (an effect alone is none) answers with
// what it printed: the document, when it printed one JSON object or array,
// else the text as data.stdout. What a command printed beside its answer is dealt with by
// strayOutput (a THIRD_PARTY_STDOUT warning); what it printed before it
// failed goes to stderr: nothing is lost, and stdout holds only the
// envelope.
func (inv *invocation) endCapture(failed bool) {
	c := inv.capture
	if c == nil || c.ended {
		return
	}
	printed, total := c.stop()
	if total == 0 {
		return
	}
	if failed && !inv.printedIsResult || inv.out.Answered() {
		inv.strayOutput(printed, total, failed)
		return
	}
	doc := bytes.TrimSpace(printed)
	if int64(len(printed)) == total && len(doc) > 0 && (doc[0] == '{' || doc[0] == '[') && json.Valid(doc) {
		inv.out.Result(json.RawMessage(doc))
		return
	}
	kept := fitting(printed, c.limit-512) // room for the envelope around it
	inv.out.Result(map[string]string{"stdout": string(kept)})
	if int64(len(kept)) < total {
		inv.meta.Truncated = true
		inv.meta.TruncationHint = fmt.Sprintf("the command printed %d bytes; data.stdout holds the first %d", total, len(kept))
	}
}

// fitting returns the longest prefix of b, cut at a character boundary,
// whose JSON string takes at most limit bytes.
func fitting(b []byte, limit int) []byte {
	if len(jsonw.String(nil, string(b))) <= limit {
		return b
	}
	lo, hi := 0, len(b) // the longest fitting prefix is in [lo, hi)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if len(jsonw.String(nil, string(b[:mid]))) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	for lo > 0 && !utf8.RuneStart(b[lo]) {
		lo--
	}
	return b[:lo]
}

// restoreCapture gives the process its stdout back once the answer is
// written.
func (inv *invocation) restoreCapture() {
	if c := inv.capture; c != nil && c.restore != nil {
		c.restore()
	}
}
