package envelope

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The hand-written encodings must match what encoding/json writes for the same
// struct tags. Each value is encoded with its MarshalJSON and, through a copy
// of its type without methods, by encoding/json (HTML escaping off). Nested
// types keep their methods in the copy, so each type's own members are what a
// case compares; every type has its cases.
func TestWireMatchesEncodingJSON(t *testing.T) {
	type (
		plainEnvelope   Envelope
		plainMeta       Meta
		plainPagination Pagination
		plainError      Error
		plainFieldError FieldError
	)
	total, timeout, cursor := 42, int64(5000), "duet1:20"
	fieldErrors := []FieldError{
		{Code: "UNKNOWN_FLAG", Message: "unknown flag --x"},
		{Code: "INVALID_ENUM", Message: "m", Field: "--p", ValidValues: []string{"a", "b"}, Suggestion: "use a", CorrectedInput: `{"a":1}`},
	}
	completed := 142
	fullError := &Error{Code: "TODO_NOT_FOUND", Message: "no \x1b[31mto-do\x1b[0m \xff", Detail: "d", Retryable: true,
		RetryAfterMS: 100, RetryStrategy: RetryExponential, FixRequired: "f", FixCommand: "todo list", Phase: Validation,
		Suggestion: "s", Redirect: &Redirect{Command: "new", Permanent: true, Reason: "moved"}, Field: "id",
		ValidValues: []string{"t1"}, Errors: fieldErrors, ConflictID: "t1",
		Hint: "use --input-file <path>", CorrectedInput: `{"env":"prod"}`, Context: map[string]any{"received_bytes": 65537, "limit_bytes": 65536, "why": "<x>", "signal": "SIGINT"},
		Path: "/p/a/link", LoopTarget: "/p/a", CompletedCount: &completed, MaxDepth: 50,
		Alternatives: []Alternative{{Flag: "--message", Description: "the <text>"}, {Flag: "--from-file"}},
		ExpiresAt:    "2026-01-02T03:04:05Z", RefreshCommand: "todo auth refresh", RequiredPermission: "repo:write",
		RequiredScopes: []string{"repo:read", "repo:write"}, ActiveScopes: []string{"repo:read"}, MissingScopes: []string{"repo:write"},
		AuthMethods:    []AuthMethod{{Type: "env_var", Name: "TODO_TOKEN", Hint: "Set TODO_TOKEN <to> your token"}},
		NetworkContext: &NetworkContext{URL: "https://api.example.com/v1?a=1&b=2", StatusCode: 502, ProxyUsed: "http://proxy:3128", ProxySource: "HTTPS_PROXY", SSLVerify: true, Suggestion: "curl -v"}}
	fullMeta := Meta{ExitCode: 3, DurationMS: 12, SchemaVersion: "1.0", ToolVersion: "0.1.0", Command: "a <b> & \"c\"",
		RequestID: "x\u2028y", TimeoutMS: &timeout, Pagination: &Pagination{Returned: 1}, Stream: &Stream{Items: 3},
		Truncated: true, TruncationHint: "hint\n", Effect: Created, WouldAffect: json.RawMessage(`{"items":["t1"]}`), DryRun: true, Confirmed: true, ValidationOnly: true, Help: true,
		SchemaRef: "#/x", NotModified: true, ConfigSources: []string{"/a", "/b"},
		Profile:        &ProfileUse{Name: "prod", Flags: []string{"region"}},
		SessionPIDFile: "/tmp/tool/sessions/r1.pids",
		Steps:          &StepReport{Partial: true, CompletedSteps: []string{"backup"}, FailedStep: ptr("apply"), SkippedSteps: []string{"verify"}, ResumeFrom: "apply", RollbackStatus: RollbackFailed, RollbackError: "undo <backup>"},
		IdempotencyHit: true, SessionTmpDir: "/tmp/todo-1000/session-1",
		TraceID: "trace-<1>", Timestamp: "2024-06-01T12:00:00.000Z", Cwd: "/home/u/p", ProjectRoot: "/home/u",
		EffectiveConfigHash: "a3f1c9", Context: "staging", AuditLogPath: "/home/u/.local/share/t/audit.jsonl", Headless: true, Retries: 2,
		TotalCount: &total, ReturnedCount: &total, TokenLimit: &total, TokenOffset: &total, TokenCount: &total,
		InstanceID: "agent-1", InjectionProtection: new(false),
		CacheUsed: new(true)}

	// Warnings are objects: code and message always, context only when it
	// holds something, encoded as encoding/json encodes a map.
	warnings := []Warning{
		{Code: "PLAIN", Message: "a <b> & \"c\" \u2028 é. Next: do it"},
		{Code: "EMPTY_CONTEXT", Message: "", Context: map[string]any{}},
		{Code: "CONTEXT", Message: "m", Context: map[string]any{
			"z": 1, "a": []any{"<b>", nil, true, 1.5}, "nested": map[string]any{"k": "line\u2028sep", "n": []string{}}, "empty": "",
		}},
	}
	tests := []struct {
		name  string
		value json.Marshaler
		plain any
	}{
		{"meta minimal", Meta{SchemaVersion: SchemaVersion, Command: "todo list", ConfigSources: []string{}},
			plainMeta{SchemaVersion: SchemaVersion, Command: "todo list", ConfigSources: []string{}}},
		{"meta full", fullMeta, plainMeta(fullMeta)},
		{"pagination empty", Pagination{}, plainPagination{}},
		{"pagination full", Pagination{Total: &total, Returned: 20, Truncated: true, HasMore: true, NextCursor: &cursor},
			plainPagination{Total: &total, Returned: 20, Truncated: true, HasMore: true, NextCursor: &cursor}},
		{"field error minimal", fieldErrors[0], plainFieldError(fieldErrors[0])},
		{"field error full", fieldErrors[1], plainFieldError(fieldErrors[1])},
		{"error minimal", &Error{Code: "GENERAL_ERROR", Message: "boom"}, &plainError{Code: "GENERAL_ERROR", Message: "boom"}},
		{"error full", fullError, (*plainError)(fullError)},
		{"envelope ok", Envelope{OK: true, Data: json.RawMessage(`{"a":1}`), Warnings: []Warning{{Code: "W", Message: "w <1>"}, {Code: "X", Message: "x", Context: map[string]any{"line": 3, "why": "<y>"}}}, Meta: fullMeta},
			plainEnvelope{OK: true, Data: json.RawMessage(`{"a":1}`), Warnings: []Warning{{Code: "W", Message: "w <1>"}, {Code: "X", Message: "x", Context: map[string]any{"line": 3, "why": "<y>"}}}, Meta: fullMeta}},
		{"envelope error", Envelope{Data: json.RawMessage("null"), Error: fullError, Warnings: []Warning{}},
			plainEnvelope{Data: json.RawMessage("null"), Error: fullError, Warnings: []Warning{}}},
		{"envelope exit code", Envelope{Data: json.RawMessage("null"), Error: fullError, Meta: Meta{ExitCode: 130, ConfigSources: []string{}}},
			plainEnvelope{Data: json.RawMessage("null"), Error: fullError, Warnings: []Warning{}, Meta: Meta{ExitCode: 130, ConfigSources: []string{}}}},
		{"envelope warnings", Envelope{OK: true, Data: json.RawMessage("null"), Warnings: warnings},
			plainEnvelope{OK: true, Data: json.RawMessage("null"), Warnings: warnings}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.value.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer // encoding/json as marshal uses it, before stripping
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tt.plain); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimRight(b.Bytes(), "\n")
			if string(got) != string(want) {
				t.Errorf("hand-written:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}

// TestEnvelopeNilListsAreLists: warnings and meta.config_sources are always
// lists, never null.
func TestEnvelopeNilListsAreLists(t *testing.T) {
	got, _ := Envelope{}.MarshalJSON()
	want := `{"ok":false,"data":null,"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"","tool_version":"","command":"","request_id":"","config_sources":[]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

// TestWarningWire: a warning is an object with its code apart; context
// appears only when set; a person reads it as "WARNING [CODE]: message".
func TestWarningWire(t *testing.T) {
	tests := []struct {
		name string
		w    Warning
		wire string
	}{
		{"without context", Warning{Code: "STALE", Message: "old. Next: sync"}, `{"code":"STALE","message":"old. Next: sync"}`},
		{"with context", Warning{Code: "SLOW", Message: "slow.", Context: map[string]any{"ms": 1200, "host": "a"}}, `{"code":"SLOW","message":"slow.","context":{"host":"a","ms":1200}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := Envelope{Warnings: []Warning{tt.w}}.MarshalJSON()
			var env struct{ Warnings []json.RawMessage }
			if err := json.Unmarshal(raw, &env); err != nil || len(env.Warnings) != 1 {
				t.Fatalf("decode %s: %v", raw, err)
			}
			if got := string(env.Warnings[0]); got != tt.wire {
				t.Errorf("warning = %s, want %s", got, tt.wire)
			}
			if got, want := tt.w.String(), "WARNING ["+tt.w.Code+"]: "+tt.w.Message; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		})
	}
}
