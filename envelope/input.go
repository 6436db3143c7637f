package envelope

import "github.com/duet-cli/duet/internal/jsonw"

// WithHint names the flag or form to use instead of the refused one, as in
// "write the payload to a file and use --input-file <path>".
func (e *Error) WithHint(hint string) *Error {
	e.Hint = hint
	return e
}

// WithContext adds a figure behind the error, such as received_bytes, under
// key in error.context.
func (e *Error) WithContext(key string, v any) *Error {
	if e.Context == nil {
		e.Context = map[string]any{}
	}
	e.Context[key] = v
	return e
}

// appendInput appends the members of the input area (see Error) and closes
// the object. A context value JSON cannot hold is left out, as a default
// is in the schema documents.
func (e *Error) appendInput(b []byte) []byte {
	b = optString(b, "corrected_input", e.CorrectedInput)
	if len(e.Context) > 0 {
		mark := len(b)
		var err error
		if b, err = jsonw.Map(jsonw.Key(b, "context"), e.Context); err != nil {
			b = b[:mark]
		}
	}
	b = optString(b, "path", e.Path)
	b = optString(b, "loop_target", e.LoopTarget)
	if e.CompletedCount != nil {
		b = jsonw.Int(jsonw.Key(b, "completed_count"), int64(*e.CompletedCount))
	}
	if e.MaxDepth != 0 {
		b = jsonw.Int(jsonw.Key(b, "max_depth"), int64(e.MaxDepth))
	}
	return b
}
