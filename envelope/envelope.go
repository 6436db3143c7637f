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
	Warnings []Warning       `json:"warnings"`
	Meta     Meta            `json:"meta"`
}

// Warning is one non-fatal problem of an invocation, as ResponseEnvelope 2.x
// carries it: a stable code, a sentence (what happened, then "Next:" and
// what to do), and the figures behind it when there are any.
type Warning struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Context map[string]any `json:"context,omitempty"`
}

// String is the warning as a person reads it: "WARNING [CODE]: message".
func (w Warning) String() string { return "WARNING [" + w.Code + "]: " + w.Message }

// Meta carries everything volatile about an invocation, so that data stays
// byte-identical between two runs over the same state.
type Meta struct {
	// ExitCode is the process's exit code; ok is true exactly when it is 0.
	// Finish sets it from the error it reports.
	ExitCode      int         `json:"exit_code"`
	DurationMS    int64       `json:"duration_ms"`
	SchemaVersion string      `json:"schema_version"`
	ToolVersion   string      `json:"tool_version"`
	Command       string      `json:"command"`
	RequestID     string      `json:"request_id"`
	TimeoutMS     *int64      `json:"timeout_ms,omitempty"`
	BudgetMS      *int64      `json:"budget_ms,omitempty"` // the call budget in force (REQ-F-080)
	Pagination    *Pagination `json:"pagination,omitempty"`
	Stream        *Stream     `json:"stream,omitempty"`
	// ItemsEmitted is how many item lines a jsonl stream wrote before the
	// error that ends it: its last _seq, 0 before the first (REQ-O-004).
	ItemsEmitted *int `json:"items_emitted,omitempty"`
	// Effects counts a buffered answer's events by effect (Output.Event),
	// and a failed stream's before it failed.
	Effects        map[string]int  `json:"effects,omitempty"`
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

	// child processes (proc)
	SessionPIDFile string `json:"session_pid_file,omitempty"` // lists the programs the command started that may still run
	// long work
	Steps          *StepReport `json:"steps,omitempty"`           // a multi-step command's account of its steps
	IdempotencyHit bool        `json:"idempotency_hit,omitempty"` // the answer is a replay of the first call with this --idempotency-key
	SessionTmpDir  string      `json:"session_tmp_dir,omitempty"` // the invocation's temp directory, removed when it ended
	// seeing what happened (issue 16: observe)
	TraceID             string `json:"trace_id,omitempty"`              // <TOOL>_TRACE_ID (or TOOL_TRACE_ID), as the caller set it
	Timestamp           string `json:"timestamp,omitempty"`             // when the invocation started: RFC 3339, UTC, milliseconds
	Cwd                 string `json:"cwd,omitempty"`                   // the working directory relative paths resolve against (--cwd)
	ProjectRoot         string `json:"project_root,omitempty"`          // the project directory the command resolved, if it resolves one
	EffectiveConfigHash string `json:"effective_config_hash,omitempty"` // changes when a config source's content does
	Context             string `json:"context,omitempty"`               // the named context (--context) in use
	AuditLogPath        string `json:"audit_log_path,omitempty"`        // the append-only log this invocation is recorded in
	Headless            bool   `json:"headless,omitempty"`              // no display to open a browser or a window on
	Retries             int    `json:"retries,omitempty"`               // internal retries the command made (0 is left out)
	// discovery: the size cap's counts (see Output.Finish) and the token
	// budget's (see Budget).
	TotalCount    *int `json:"total_count,omitempty"`    // items there were, when the size cap cut a list
	ReturnedCount *int `json:"returned_count,omitempty"` // items data holds, when the size cap cut a list
	TokenLimit    *int `json:"token_limit,omitempty"`
	TokenOffset   *int `json:"token_offset,omitempty"`
	TokenCount    *int `json:"token_count,omitempty"`
	// Stable leaves request_id out (--stable-output): two runs over the
	// same state then write the same bytes.
	Stable bool `json:"-"`
	// Auth, trust and safety (issue 16).
	InstanceID          string `json:"instance_id,omitempty"`          // the --instance-id namespace the invocation's state is in
	InjectionProtection *bool  `json:"injection_protection,omitempty"` // false when --no-injection-protection left external data untagged
	// StatesDryRun makes dry_run appear even when false: the answer of a
	// safe-default command always says whether it ran live (--live).
	StatesDryRun bool `json:"-"`
	// safety, config, filesystem (issue 16).
	CacheUsed *bool `json:"cache_used,omitempty"` // of a command that declares a cache: whether cached data was read
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
