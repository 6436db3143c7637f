package harness

import (
	"bytes"
	"encoding/json"
)

// Parser reads a harness's stdout (its JSON event stream), one line at a time.
type Parser interface {
	Feed(line []byte) (sessionID string) // returns the harness session id when this line is the first to reveal it, "" otherwise
	Result() Result                      // what the stream said so far
}

// Result is what a harness's event stream said about a run. Token counts are
// the harness's own: Claude and OpenCode count input tokens without the ones
// read from the prompt cache, Codex and Gemini count them in (CachedTokens
// is then a part of InputTokens).
type Result struct {
	SessionID    string
	Report       string   // the final assistant message
	CostUSD      *float64 // nil when the stream states none (never guess 0)
	InputTokens  *int64
	OutputTokens *int64
	CachedTokens *int64
	Error        string // non-empty when the stream reported a failure (the harness's own message)
	Completed    bool   // a terminal event (success or failure) was seen
}

// decode unmarshals one stream line into v; a line that is not a JSON object
// (a log line, a half-written line) reports false and is skipped by callers.
func decode(line []byte, v any) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	return json.Unmarshal(line, v) == nil
}

// sessionTracker remembers the first session id a stream reveals.
type sessionTracker struct{ id string }

// see records id and returns it when it is the first one seen.
func (s *sessionTracker) see(id string) string {
	if id == "" || s.id != "" {
		return ""
	}
	s.id = id
	return id
}

func ptr[T any](v T) *T { return &v }

// addTo adds n to *p; a count the stream never stated stays nil. It stores
// a new pointer rather than writing through the old one, so a Result handed
// out earlier does not change under its holder.
func addTo[T int64 | float64](p **T, n *T) {
	if n == nil {
		return
	}
	var sum T
	if *p != nil {
		sum = **p
	}
	*p = ptr(sum + *n)
}
