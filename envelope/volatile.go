package envelope

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Data is stable (the CLI Agent Spec's REQ-F-021): two identical calls, with
// nothing changed in between, answer byte-identical data, and an agent may
// cache it and compare it. The time of the call is volatile, and belongs in
// meta.timestamp. A command whose data holds a field named for the time of
// the call — VolatileNames — with a time in it (an RFC 3339 date-time, or
// seconds or milliseconds since 1970) breaks that, and its answer says so
// with a VOLATILE_DATA warning naming the fields, when Settings.CheckVolatile
// is set. The top level of an object is checked, and of each item of a list.

// VolatileNames are the names of data fields that hold the time of the call
// rather than anything about what the command answers for: a time the
// resource has — created, updated_at, due — is not among them.
var VolatileNames = []string{"timestamp", "now", "current_time", "generated_at", "fetched_at", "retrieved_at", "requested_at", "served_at", "queried_at", "as_of"}

// VolatileData is the code of the warning of data that holds the time of the call.
const VolatileData = "VOLATILE_DATA"

// volatileLocked warns, once, when the data p holds the time of the call.
// o.mu is held.
func (o *Output) volatileLocked(p payload) {
	if !o.s.CheckVolatile || o.volatileChecked {
		return
	}
	o.volatileChecked = true
	var fields []string
	add := func(name string) {
		if !slices.Contains(fields, name) {
			fields = append(fields, name)
		}
	}
	if !p.list {
		for _, name := range volatileFields(p.one) {
			add("data." + name)
		}
	}
	for _, it := range p.items {
		for _, name := range volatileFields(it) {
			add("data[]." + name)
		}
	}
	if len(fields) == 0 {
		return
	}
	verb := "holds"
	if len(fields) > 1 {
		verb = "hold"
	}
	o.warnings = append(o.warnings, warning{code: VolatileData,
		message: strings.Join(fields, ", ") + " " + verb + " the time of the call, so two identical calls answer different data",
		next:    "leave it out when comparing or caching data (meta.timestamp is when the call was answered); report it to the tool's authors, whose data should not hold it",
		context: map[string]any{"fields": fields}})
}

// volatileFields returns the members of the JSON object raw named in
// VolatileNames that hold a time, in that order; none for anything else.
func volatileFields(raw json.RawMessage) []string {
	if len(raw) < 2 || raw[0] != '{' {
		return nil
	}
	named := false
	for _, name := range VolatileNames {
		if bytes.Contains(raw, []byte(`"`+name+`"`)) {
			named = true
			break
		}
	}
	if !named { // most data: decoded for nothing
		return nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil
	}
	var found []string
	for _, name := range VolatileNames {
		if v, ok := members[name]; ok && timeLike(v) {
			found = append(found, name)
		}
	}
	return found
}

// timeLike reports whether v is a time: a string in RFC 3339 (or with a
// space for the T), or a number of seconds or milliseconds since 1970
// between 2001 and 2100.
func timeLike(v json.RawMessage) bool {
	var s string
	if json.Unmarshal(v, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05"} {
			if _, err := time.Parse(layout, s); err == nil {
				return true
			}
		}
		return false
	}
	var n float64
	if json.Unmarshal(v, &n) != nil {
		return false
	}
	const from, to = 1e9, 4.1e9 // 2001 to 2100, in seconds
	return n >= from && n < to || n >= from*1000 && n < to*1000
}
