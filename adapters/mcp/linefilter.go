package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// maxLine bounds one line of a stdio session: a request larger than this is
// answered with a parse error, not buffered without end.
const maxLine = 16 << 20

// lineFilter passes a stdio session's input on line by line, and answers a
// line that is not JSON — garbage, a truncated request, nesting too deep —
// or one over maxLine with JSON-RPC's parse error (-32700) itself: the SDK
// ends the session on one, and every later request would go unanswered.
type lineFilter struct {
	r    *bufio.Reader
	out  *lockedWriter // the session's output, shared with the SDK
	next []byte        // what is left of the line being read out
	err  error         // what ended the input, once next is read out
}

func newLineFilter(r io.Reader, out *lockedWriter) *lineFilter {
	return &lineFilter{r: bufio.NewReaderSize(r, 64<<10), out: out}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.next) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.line()
		tooLong := errors.Is(err, errLineTooLong)
		if f.err = err; tooLong {
			f.err = nil // the line is dropped; the session goes on
		} else if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if id, code, message := refused(line, tooLong, "line"); code != 0 {
			f.out.Write(append(rpcError(id, code, message), '\n'))
			continue
		}
		f.next = line
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	return n, nil
}

func (f *lineFilter) Close() error { return nil }

var errLineTooLong = errors.New("line too long")

// line reads one line, newline included; a line over maxLine is read to
// its end and dropped, with errLineTooLong.
func (f *lineFilter) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else {
			line = line[:0:0]
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = f.r.ReadSlice('\n')
			}
			if err == nil || err == io.EOF {
				return nil, errLineTooLong
			}
			return nil, err
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// request reports whether line, valid JSON, is a JSON-RPC 2.0 message —
// a request or notification (a method), or a response (a result or an
// error) — and the id it carries, when it has one of the right type.
func request(line []byte) (id json.RawMessage, ok bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil, false // not an object: a number, an array (no batches since MCP 2025-06-18)
	}
	t := bytes.TrimSpace(m.ID) // absent, null, a string or a number
	scalar := len(t) > 0 && (t[0] == '"' || t[0] == '-' || t[0] >= '0' && t[0] <= '9')
	if scalar {
		id = t
	}
	return id, (scalar || len(t) == 0 || string(t) == "null") &&
		m.JSONRPC == "2.0" && (m.Method != nil || m.Result != nil || m.Error != nil)
}

// refused is the JSON-RPC error a message (a stdio line, an HTTP body)
// is answered with instead of being served: a parse error, with a null id
// since none could be read, for one over maxLine (tooLong) or not JSON; an
// invalid request, under its id when it has one, for JSON that is no
// JSON-RPC 2.0 message. code is 0 for a message to serve.
func refused(msg []byte, tooLong bool, what string) (id json.RawMessage, code int, message string) {
	switch {
	case tooLong:
		return nil, parseError, fmt.Sprintf("Parse error: the request is longer than %d MiB", maxLine>>20)
	case !json.Valid(msg):
		return nil, parseError, "Parse error: the " + what + " is not JSON"
	}
	if id, ok := request(msg); !ok {
		return id, invalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
	}
	return nil, 0, ""
}

// The JSON-RPC errors a server answers a message it cannot take with.
const (
	parseError     = -32700
	invalidRequest = -32600
)

// rpcError is a JSON-RPC error response under id (null without one).
func rpcError(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
	return msg
}

// checkedBodies answers a POST whose body is no JSON-RPC message — not
// JSON, truncated, over maxLine, or JSON that is no JSON-RPC 2.0 message —
// with the JSON-RPC error the stdio transport answers it with, as JSON
// (the SDK answers such a body in plain text); the server serves on.
func checkedBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxLine))
		var tooLarge *http.MaxBytesError
		id, code, message := refused(body, errors.As(err, &tooLarge), "body")
		if err != nil && tooLarge == nil { // the read failed otherwise
			id, code, message = nil, parseError, "Parse error: the request could not be read: "+err.Error()
		}
		if code != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(rpcError(id, code, message))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// lockedWriter keeps whole messages apart when the SDK and lineFilter
// write to the same output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *lockedWriter) Close() error { return w.w.Close() }
