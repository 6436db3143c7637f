package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// The error codes of a records consumer (REQ-O-004): each ends the read,
// exit 1, not retryable — the records before it were handed over.
const (
	CodeUpstreamFailed     = "UPSTREAM_FAILED"     // the producer's stream ended on its error envelope
	CodeUpstreamIncomplete = "UPSTREAM_INCOMPLETE" // stdin ended without the stream's terminal line
	CodeRecordInvalid      = "RECORD_INVALID"      // a line is not a record of the declared schema
)

// WithRecords returns a copy of s whose Records checks each record against
// record, the JSON Schema of one (schema.Meta.Records).
func (s *Source) WithRecords(record schema.Schema) *Source {
	c := *s
	c.record = record
	return &c
}

// Records returns the records of a stream another command wrote — the
// items of its jsonl output — one at a time as they arrive, each checked
// against the declared record schema and without the stream's "_seq". It
// reads the stream as its producer wrote it: blank and heartbeat lines are
// skipped, the "_summary" line ends it, and an error envelope ends it with
// UPSTREAM_FAILED (the producer failed: its code and exit code are in
// context.upstream and context.upstream_exit_code). On stdin, a stream
// that ends without either terminal line was cut short:
// UPSTREAM_INCOMPLETE. A file (--input-file) may end without one. A line
// that is not an object, or not a record of the schema, is RECORD_INVALID
// with its line number and field. Each record is the caller's to keep.
func (s *Source) Records() iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		n, records := 0, 0
		for line, err := range s.Lines() {
			n++
			if err != nil {
				yield(nil, err)
				return
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var obj map[string]json.RawMessage
			if json.Unmarshal(line, &obj) != nil {
				yield(nil, s.invalid(n, "", "is not a JSON object"))
				return
			}
			switch {
			case isTrue(obj["heartbeat"]):
				continue
			case isTrue(obj["_summary"]):
				return
			case string(obj["ok"]) == "false" && obj["error"] != nil:
				yield(nil, s.upstreamFailed(n, obj))
				return
			}
			delete(obj, "_seq") // the stream's numbering, never record data
			if field, why := check(obj, s.record); why != "" {
				yield(nil, s.invalid(n, field, why))
				return
			}
			records++
			if !yield(reencode(line, obj), nil) {
				return
			}
		}
		if s.stream != nil {
			yield(nil, envelope.Errorf(exitcode.GeneralError, CodeUpstreamIncomplete,
				"%s ended after %d lines without the stream's last line (a _summary line or an error envelope): the producer was cut short", s.name, n).
				WithContext("line", n).
				WithContext("records", records).
				WithHint("run the producing command again; its stream was not whole"))
		}
	}
}

// isTrue reports whether raw is the JSON true.
func isTrue(raw json.RawMessage) bool { return string(raw) == "true" }

// reencode returns obj as JSON, or line itself when nothing was removed
// from it: the producer's key order is kept where it can be.
func reencode(line []byte, obj map[string]json.RawMessage) json.RawMessage {
	if !bytes.Contains(line, []byte(`"_seq"`)) {
		return bytes.Clone(line)
	}
	raw, _ := json.Marshal(obj)
	return raw
}

func (s *Source) invalid(n int, field, why string) error {
	e := envelope.Errorf(exitcode.GeneralError, CodeRecordInvalid, "line %d of %s %s", n, s.name, why).
		WithContext("line", n).
		WithHint("feed this command the jsonl output of a command whose items match its record schema (stdin.record_schema in the manifest)")
	if field != "" {
		e = e.WithContext("field", field)
	}
	return e
}

// upstreamFailed is the error of a stream that ended on the producer's
// error envelope. Only the producer's code, retryable and exit code are
// carried over: its message is another tool's text.
func (s *Source) upstreamFailed(n int, env map[string]json.RawMessage) error {
	var fail struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	}
	json.Unmarshal(env["error"], &fail)
	var meta struct {
		ExitCode *int `json:"exit_code"`
	}
	json.Unmarshal(env["meta"], &meta)
	e := envelope.Errorf(exitcode.GeneralError, CodeUpstreamFailed, "the command that produced %s failed (%s) at line %d", s.name, fail.Code, n).
		WithContext("line", n).
		WithContext("upstream", map[string]any{"code": fail.Code, "retryable": fail.Retryable}).
		WithExternalContext("upstream"). // another tool's answer: tagged, its strings masked
		WithHint("fix the producing command's failure, then run the pipeline again")
	if meta.ExitCode != nil {
		e = e.WithContext("upstream_exit_code", *meta.ExitCode)
	}
	return e
}

// check holds a record to its schema: an object with every required
// property, and each declared property of its declared JSON type. It
// returns the field at fault and why, or "".
func check(obj map[string]json.RawMessage, record schema.Schema) (field, why string) {
	if record == nil {
		return "", ""
	}
	for _, f := range names(record["required"]) {
		if _, ok := obj[f]; !ok {
			return f, fmt.Sprintf("has no %q, which every record must have", f)
		}
	}
	props, _ := record["properties"].(map[string]any)
	for _, f := range slices.Sorted(maps.Keys(obj)) {
		p, declared := props[f].(map[string]any)
		if !declared {
			if record["additionalProperties"] == false {
				return f, fmt.Sprintf("has %q, which the record schema does not declare", f)
			}
			continue
		}
		if t, ok := p["type"].(string); ok && !ofType(obj[f], t) {
			return f, fmt.Sprintf("has %q that is not of type %s", f, t)
		}
	}
	return "", ""
}

// names is a JSON Schema's list of property names, as Go declares it
// ([]string) or as JSON decodes it ([]any).
func names(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// ofType reports whether raw, a JSON value, is of the JSON Schema type t.
func ofType(raw json.RawMessage, t string) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch t {
	case "string":
		return raw[0] == '"'
	case "boolean":
		return string(raw) == "true" || string(raw) == "false"
	case "null":
		return string(raw) == "null"
	case "object":
		return raw[0] == '{'
	case "array":
		return raw[0] == '['
	case "number", "integer":
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			return false
		}
		return t == "number" || f == float64(int64(f))
	}
	return true // a type this check does not know is not refused
}
