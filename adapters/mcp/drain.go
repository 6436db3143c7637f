package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// drain lets a stdio session answer every request it read before the client
// closed its input. The SDK ends a session at the end of its input and drops
// the calls still running, so `printf '...' | app serve` would lose them;
// drain holds the end of input back until each request read has been
// answered (or cancelled by the client), or ctx is done.
type drain struct {
	ctx     context.Context
	mu      sync.Mutex
	open    map[string]bool // ids of requests read and not yet answered
	changed chan struct{}   // closed and replaced whenever open shrinks
	in, out lines
}

func newDrain(ctx context.Context) *drain {
	return &drain{ctx: ctx, open: map[string]bool{}, changed: make(chan struct{})}
}

// Reader wraps the session's input.
func (d *drain) Reader(r io.Reader) io.ReadCloser { return &drainReader{d, r} }

// Writer wraps the session's output.
func (d *drain) Writer(w io.Writer) io.WriteCloser { return &drainWriter{d, w} }

type drainReader struct {
	d *drain
	r io.Reader
}

func (r *drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.d.in.feed(p[:n], r.d.read)
	if err == io.EOF {
		r.d.wait()
	}
	return n, err
}

func (r *drainReader) Close() error { return nil }

type drainWriter struct {
	d *drain
	w io.Writer
}

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.d.out.feed(p[:n], w.d.written)
	return n, err
}

func (w *drainWriter) Close() error { return nil }

// message is what drain reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

func (d *drain) read(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch {
	case m.Method == "notifications/cancelled":
		d.done(string(m.Params.RequestID)) // a cancelled request gets no answer
	case m.Method != "" && len(m.ID) > 0:
		d.mu.Lock()
		d.open[string(m.ID)] = true
		d.mu.Unlock()
	}
}

func (d *drain) written(line []byte) {
	var m message
	if json.Unmarshal(line, &m) == nil && m.Method == "" && len(m.ID) > 0 {
		d.done(string(m.ID))
	}
}

func (d *drain) done(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.open[id] {
		delete(d.open, id)
		close(d.changed)
		d.changed = make(chan struct{})
	}
}

// wait blocks until no request is open, or ctx is done.
func (d *drain) wait() {
	for {
		d.mu.Lock()
		idle, changed := len(d.open) == 0, d.changed
		d.mu.Unlock()
		if idle {
			return
		}
		select {
		case <-changed:
		case <-d.ctx.Done():
			return
		}
	}
}

// lines splits a stream into lines, across reads or writes.
type lines struct {
	mu      sync.Mutex
	partial []byte
}

func (l *lines) feed(p []byte, each func([]byte)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return
		}
		each(l.partial[:i])
		l.partial = l.partial[i+1:]
	}
}
