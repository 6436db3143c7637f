package envelope

import (
	"encoding/json"

	"github.com/duet-cli/duet/internal/jsonw"
)

// The envelope's types encode themselves: every process writes one envelope,
// and encoding/json would first build its reflection encoders for them, which
// costs more than the rest of a short command's output path. The encodings are
// tested byte for byte against encoding/json's.

// MarshalJSON encodes the envelope in its documented key order. Nil warnings
// encode as [], never null.
func (e Envelope) MarshalJSON() ([]byte, error) { return e.appendJSON(nil), nil }

func (e Envelope) appendJSON(b []byte) []byte {
	b = append(b, `{"ok":`...)
	b = jsonw.Bool(b, e.OK)
	b = append(b, `,"data":`...)
	if len(e.Data) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, e.Data...) // compact: produced by marshal or splitRaw
	}
	b = append(b, `,"error":`...)
	if e.Error == nil {
		b = append(b, "null"...)
	} else {
		b = e.Error.appendJSON(b)
	}
	b = append(b, `,"warnings":`...)
	b = appendWarnings(b, e.Warnings)
	b = append(b, `,"meta":`...)
	b = e.Meta.appendJSON(b)
	return append(b, '}')
}

// MarshalJSON encodes meta, leaving out the optional members that are unset.
func (m Meta) MarshalJSON() ([]byte, error) { return m.appendJSON(nil), nil }

func (m Meta) appendJSON(b []byte) []byte {
	b = append(b, `{"exit_code":`...)
	b = jsonw.Int(b, int64(m.ExitCode))
	b = append(b, `,"duration_ms":`...)
	b = jsonw.Int(b, m.DurationMS)
	b = append(b, `,"schema_version":`...)
	b = jsonw.String(b, m.SchemaVersion)
	b = append(b, `,"tool_version":`...)
	b = jsonw.String(b, m.ToolVersion)
	b = append(b, `,"command":`...)
	b = jsonw.String(b, m.Command)
	if !m.Stable {
		b = append(b, `,"request_id":`...)
		b = jsonw.String(b, m.RequestID)
	}
	if m.TimeoutMS != nil {
		b = append(b, `,"timeout_ms":`...)
		b = jsonw.Int(b, *m.TimeoutMS)
	}
	if m.BudgetMS != nil {
		b = append(b, `,"budget_ms":`...)
		b = jsonw.Int(b, *m.BudgetMS)
	}
	if m.Pagination != nil {
		b = append(b, `,"pagination":`...)
		b = m.Pagination.appendJSON(b)
	}
	if m.Stream != nil {
		b = append(b, `,"stream":{"items":`...)
		b = jsonw.Int(b, int64(m.Stream.Items))
		b = append(b, '}')
	}
	if m.ItemsEmitted != nil {
		b = append(b, `,"items_emitted":`...)
		b = jsonw.Int(b, int64(*m.ItemsEmitted))
	}
	b = optBool(b, "truncated", m.Truncated)
	b = optString(b, "truncation_hint", m.TruncationHint)
	b = optString(b, "effect", string(m.Effect))
	if len(m.Effects) > 0 {
		b = append(b, `,"effects":`...)
		b = appendCounts(b, m.Effects)
	}
	if len(m.WouldAffect) > 0 {
		b = append(b, `,"would_affect":`...)
		b = append(b, m.WouldAffect...) // compact: produced by marshal
	}
	if m.StatesDryRun && !m.DryRun {
		b = append(b, `,"dry_run":false`...)
	}
	b = optBool(b, "dry_run", m.DryRun)
	b = optBool(b, "confirmed", m.Confirmed)
	b = optBool(b, "validation_only", m.ValidationOnly)
	b = optBool(b, "help", m.Help)
	b = optString(b, "schema_ref", m.SchemaRef)
	b = optBool(b, "not_modified", m.NotModified)
	b = append(b, `,"config_sources":`...)
	b = jsonw.Strings(b, m.ConfigSources) // a nil list is [] too
	if m.Profile != nil {
		b = append(b, `,"profile":{"name":`...)
		b = jsonw.String(b, m.Profile.Name)
		b = append(b, `,"flags":`...)
		b = jsonw.Strings(b, m.Profile.Flags)
		b = append(b, '}')
	}
	b = optString(b, "session_pid_file", m.SessionPIDFile)
	b = m.appendObserved(m.appendWork(b))
	b = optInt(b, "total_count", m.TotalCount)
	b = optInt(b, "returned_count", m.ReturnedCount)
	b = optInt(b, "token_limit", m.TokenLimit)
	b = optInt(b, "token_offset", m.TokenOffset)
	b = optInt(b, "token_count", m.TokenCount)
	b = optString(b, "instance_id", m.InstanceID)
	if p := m.InjectionProtection; p != nil {
		b = append(b, `,"injection_protection":`...)
		b = jsonw.Bool(b, *p)
	}
	if p := m.CacheUsed; p != nil {
		b = append(b, `,"cache_used":`...)
		b = jsonw.Bool(b, *p)
	}
	return append(b, '}')
}

// appendWarnings appends the warnings; nil is the empty list.
func appendWarnings(b []byte, list []Warning) []byte {
	b = append(b, '[')
	for i, w := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"code":`...)
		b = jsonw.String(b, w.Code)
		b = append(b, `,"message":`...)
		b = jsonw.String(b, w.Message)
		if len(w.Context) > 0 {
			b = append(b, `,"context":`...)
			raw, err := marshal(w.Context)
			if err != nil {
				raw = []byte("{}")
			}
			b = append(b, raw...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// optInt appends a member that omitempty leaves out when nil.
func optInt(b []byte, name string, v *int) []byte {
	if v == nil {
		return b
	}
	return jsonw.Int(jsonw.Key(b, name), int64(*v))
}

// MarshalJSON encodes a page description; its members are always present.
func (p Pagination) MarshalJSON() ([]byte, error) { return p.appendJSON(nil), nil }

func (p Pagination) appendJSON(b []byte) []byte {
	b = append(b, `{"total":`...)
	if p.Total == nil {
		b = append(b, "null"...)
	} else {
		b = jsonw.Int(b, int64(*p.Total))
	}
	b = append(b, `,"returned":`...)
	b = jsonw.Int(b, int64(p.Returned))
	b = append(b, `,"truncated":`...)
	b = jsonw.Bool(b, p.Truncated)
	b = append(b, `,"has_more":`...)
	b = jsonw.Bool(b, p.HasMore)
	b = append(b, `,"next_cursor":`...)
	if p.NextCursor == nil {
		b = append(b, "null"...)
	} else {
		b = jsonw.String(b, *p.NextCursor)
	}
	return append(b, '}')
}

// MarshalJSON encodes the error object of an envelope.
func (e *Error) MarshalJSON() ([]byte, error) { return e.appendJSON(nil), nil }

func (e *Error) appendJSON(b []byte) []byte {
	b = append(b, `{"code":`...)
	b = jsonw.String(b, e.Code)
	b = append(b, `,"message":`...)
	b = jsonw.String(b, e.Message)
	b = optString(b, "detail", e.Detail)
	b = append(b, `,"retryable":`...)
	b = jsonw.Bool(b, e.Retryable)
	if e.RetryAfterMS != 0 {
		b = append(b, `,"retry_after_ms":`...)
		b = jsonw.Int(b, e.RetryAfterMS)
	}
	b = optString(b, "retry_strategy", string(e.RetryStrategy))
	b = optString(b, "fix_required", e.FixRequired)
	b = optString(b, "fix_command", e.FixCommand)
	b = optString(b, "phase", string(e.Phase))
	b = optString(b, "suggestion", e.Suggestion)
	if r := e.Redirect; r != nil {
		b = append(b, `,"redirect":{"command":`...)
		b = jsonw.String(b, r.Command)
		b = append(b, `,"permanent":`...)
		b = jsonw.Bool(b, r.Permanent)
		b = optString(b, "reason", r.Reason)
		b = append(b, '}')
	}
	b = optString(b, "field", e.Field)
	if len(e.ValidValues) > 0 {
		b = append(b, `,"valid_values":`...)
		b = jsonw.Strings(b, e.ValidValues)
	}
	if len(e.Errors) > 0 {
		b = append(b, `,"errors":[`...)
		for i, fe := range e.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = fe.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = e.appendTrust(b)
	b = optString(b, "conflict_id", e.ConflictID)
	b = e.appendInput(b)
	b = appendAlternatives(b, e.Alternatives)
	return append(b, '}')
}

// MarshalJSON encodes one of several validation failures.
func (f FieldError) MarshalJSON() ([]byte, error) { return f.appendJSON(nil), nil }

func (f FieldError) appendJSON(b []byte) []byte {
	b = append(b, `{"code":`...)
	b = jsonw.String(b, f.Code)
	b = append(b, `,"message":`...)
	b = jsonw.String(b, f.Message)
	b = optString(b, "field", f.Field)
	if len(f.ValidValues) > 0 {
		b = append(b, `,"valid_values":`...)
		b = jsonw.Strings(b, f.ValidValues)
	}
	b = optString(b, "suggestion", f.Suggestion)
	b = optString(b, "corrected_input", f.CorrectedInput)
	return append(b, '}')
}

// optString appends a member that omitempty would leave out when empty.
func optString(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	return jsonw.String(jsonw.Key(b, name), v)
}

func optBool(b []byte, name string, v bool) []byte {
	if !v {
		return b
	}
	return append(jsonw.Key(b, name), "true"...)
}

var (
	_ json.Marshaler = Envelope{}
	_ json.Marshaler = (*Error)(nil)
)
