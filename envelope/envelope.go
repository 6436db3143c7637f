// Package envelope is Duet's wire format and the handle a command writes its
// result to.
//
// In agent mode every invocation writes exactly one [Envelope] to stdout:
//
//	{"ok":true,"data":…,"error":null,"warnings":[],"meta":{…}}
//
// A command never writes that object itself. It records its result on the
// [Output] found with [From], returns an error or nil, and the lifecycle in
// package adapters writes one envelope after the command returns — or, for a
// person at a terminal, renders the same result as text.
package envelope

import (
	"encoding/json"
	"strings"
)

// SchemaVersion is the version of the envelope's shape, reported in every meta.
const SchemaVersion = "1.0"

// Envelope is the one JSON object written to stdout in agent mode. Its five keys
// are always present and no others appear at the top level.
type Envelope struct {
	OK       bool            `json:"ok"`
	Data     json.RawMessage `json:"data"`
	Error    *Error          `json:"error"`
	Warnings []string        `json:"warnings"`
	Meta     Meta            `json:"meta"`
}

// Meta carries everything volatile about an invocation, so that data stays
// byte-identical between two runs over the same state.
type Meta struct {
	DurationMS     int64           `json:"duration_ms"`
	SchemaVersion  string          `json:"schema_version"`
	ToolVersion    string          `json:"tool_version"`
	Command        string          `json:"command"`
	RequestID      string          `json:"request_id"`
	TimeoutMS      *int64          `json:"timeout_ms,omitempty"`
	Pagination     *Pagination     `json:"pagination,omitempty"`
	Stream         *Stream         `json:"stream,omitempty"`
	Truncated      bool            `json:"truncated,omitempty"`
	TruncationHint string          `json:"truncation_hint,omitempty"`
	Effect         Effect          `json:"effect,omitempty"`
	WouldAffect    json.RawMessage `json:"would_affect,omitempty"` // a dry run's account of what a live run would change
	DryRun         bool            `json:"dry_run,omitempty"`
	Confirmed      bool            `json:"confirmed,omitempty"` // a command that needs confirmation was given it (--yes)
	ValidationOnly bool            `json:"validation_only,omitempty"`
	Help           bool            `json:"help,omitempty"`
	SchemaRef      string          `json:"schema_ref,omitempty"`
	NotModified    bool            `json:"not_modified,omitempty"`
	ConfigSources  []string        `json:"config_sources"` // absolute paths of the files that supplied values; [] when none
	Profile        *ProfileUse     `json:"profile,omitempty"`

	// Auth, trust and safety (issue 16).
	InstanceID          string `json:"instance_id,omitempty"`          // the --instance-id namespace the invocation's state is in
	InjectionProtection *bool  `json:"injection_protection,omitempty"` // false when --no-injection-protection left external data untagged
	// StatesDryRun makes dry_run appear even when false: the answer of a
	// safe-default command always says whether it ran live (--live).
	StatesDryRun bool `json:"-"`
}

// ProfileUse names the saved profile an invocation applied, and the flags it
// supplied (those the command line and the environment left to it).
type ProfileUse struct {
	Name  string   `json:"name"`
	Flags []string `json:"flags"`
}

// Pagination describes the page a list command returned.
type Pagination struct {
	Total      *int    `json:"total"`
	Returned   int     `json:"returned"`
	Truncated  bool    `json:"truncated"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// Stream summarises a jsonl stream in its closing line.
type Stream struct {
	Items int `json:"items"`
}

// Effect says what a mutating command did to the state it manages.
type Effect string

// The effects a mutating command reports.
const (
	Created Effect = "created"
	Updated Effect = "updated"
	Deleted Effect = "deleted"
	Noop    Effect = "noop"
)

// Would is the effect a dry run reports for e: "would_" and the verb, as in
// would_create, would_update, would_delete and would_noop. An agent tells a
// preview from a live run by the prefix alone.
func (e Effect) Would() Effect {
	if e == "" || strings.HasPrefix(string(e), "would_") {
		return e
	}
	verb := strings.TrimSuffix(string(e), "d") // created → create, deleted → delete
	return "would_" + Effect(verb)
}
