package adapters

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// The audit log: one JSON line appended for every invocation the lifecycle
// answers in an app that declares anything to Duet, success or failure —
// when it started, the command, its flags and arguments with secrets
// redacted, the exit code, how long it took, its request and trace ids and
// who ran it. It lives at $XDG_DATA_HOME/<tool>/audit.jsonl (else
// ~/.local/share/<tool>/audit.jsonl), or where <TOOL>_AUDIT_LOG says
// ("off" keeps none). It is never rewritten: each entry is one write(2) to
// a file opened for appending, whole even when invocations run at once; it
// is rotated and pruned to stay bounded (auditrotate.go). `<tool> audit-log`
// reads it, rotated files included.

// auditLogCommand is the name of the built-in command that reads the audit
// log (its filters: --since, --command, --trace-id).
const (
	auditLogCommand = "audit-log"
)

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	Timestamp  string         `json:"timestamp"`
	Command    string         `json:"command"`
	Args       map[string]any `json:"args"`                // the flags given, by name; secrets [REDACTED]
	Arguments  []string       `json:"arguments,omitempty"` // the positional arguments, secrets [REDACTED]
	ExitCode   int            `json:"exit_code"`
	Error      string         `json:"error,omitempty"` // the error's code on failure
	DurationMS int64          `json:"duration_ms"`
	TraceID    string         `json:"trace_id,omitempty"`
	RequestID  string         `json:"request_id"`
	SessionID  string         `json:"session_id,omitempty"` // <TOOL>_SESSION_ID, verbatim, when set
	Cwd        string         `json:"cwd,omitempty"`
	// safety (issue 16): the codes of the answer's warnings, such as
	// INJECTION_PROTECTION_DISABLED (O-023)
	Warnings []string        `json:"warnings,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"` // the answer's data, secret fields [REDACTED] (F-034, auditdata.go)
}

// auditRecord is an entry as `audit-log` answers it: the spec's
// "parameters" for the flags (REQ-O-030), as the log's "args" (REQ-F-026).
type auditRecord struct {
	Timestamp  string         `json:"timestamp"`
	Command    string         `json:"command"`
	Args       map[string]any `json:"parameters"`
	Arguments  []string       `json:"arguments,omitempty"`
	ExitCode   int            `json:"exit_code"`
	Error      string         `json:"error,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	TraceID    string         `json:"trace_id,omitempty"`
	RequestID  string         `json:"request_id"`
	SessionID  string         `json:"session_id,omitempty"`
	Cwd        string         `json:"cwd,omitempty"`
	// safety (issue 16): the codes of the answer's warnings, such as
	// INJECTION_PROTECTION_DISABLED (O-023)
	Warnings []string        `json:"warnings,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"` // the answer's data, secret fields [REDACTED] (F-034, auditdata.go)
}

// WithAuditLog turns the audit log on, kept at path, or at the default
// place (see [AuditLogPath]) when path is "". Without it the log is off
// unless the operator turns it on with <TOOL>_AUDIT_LOG (REQ-O-030): a tool
// does not append to its user's home on every call unasked.
func WithAuditLog(path string) Option {
	return func(c *config) { c.audit, c.auditGiven = path, true }
}

// auditPath is where this invocation is recorded, or "".
func (inv *invocation) auditPath() string {
	if pureAnswer(inv.call) {
		return "" // help and version write nothing (F-068)
	}
	return inv.auditLogPath()
}

// auditLogPath is where the tool keeps its audit log, or "" when the log
// is off: <TOOL>_AUDIT_LOG decides (0 off, 1 on at the app's place or the
// default, an absolute path on there), else the app (WithAuditLog).
func (inv *invocation) auditLogPath() string {
	cfg := inv.cfg
	v, set := cfg.lookupEnv(envelope.EnvName(inv.root.Name, "AUDIT_LOG"))
	switch {
	case set && v == "0", set && v != "1" && !filepath.IsAbs(v):
		return "" // off, or a setting checkAuditSetting refuses
	case set && v != "1":
		return v
	case set || cfg.auditGiven:
		return cmp.Or(cfg.audit, AuditLogPath(inv.root.Name, cfg.getenv))
	}
	return ""
}

// checkAuditSetting refuses a <TOOL>_AUDIT_LOG that is neither 0, 1 nor an
// absolute path (INVALID_AUDIT_LOG_SETTING): a relative path would land in
// whatever directory the tool was called from.
func (inv *invocation) checkAuditSetting() {
	name := envelope.EnvName(inv.root.Name, "AUDIT_LOG")
	if v, set := inv.cfg.lookupEnv(name); set && v != "0" && v != "1" && !filepath.IsAbs(v) {
		inv.call.problems = append(inv.call.problems, envelope.FieldError{Code: "INVALID_AUDIT_LOG_SETTING", Field: name,
			Message:    fmt.Sprintf("%s=%q is not 0, 1 or an absolute path", name, v),
			Suggestion: fmt.Sprintf("set %s to 1 (on), 0 (off) or the absolute path of the log", name)})
	}
}

// AuditLogPath returns the default place of a tool's audit log, once it is
// on: $XDG_DATA_HOME/<tool>/audit.jsonl, else ~/.local/share/<tool>/audit.jsonl;
// "" when there is no home directory.
func AuditLogPath(tool string, getenv func(string) string) string {
	if dir := getenv("XDG_DATA_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, tool, "audit.jsonl")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "share", tool, "audit.jsonl")
	}
	return ""
}

// audit appends the invocation's entry to the audit log. Failing to write
// it fails nothing: it is reported under --debug.
func (inv *invocation) audit(code int, fail *envelope.Error) {
	path := inv.obs.audit
	if path == "" {
		return
	}
	e := inv.auditEntry(code, fail)
	line, err := json.Marshal(e)
	if err == nil {
		err = boundAuditLog(context.Background(), path, len(line)+1, inv.cfg.auditLimits, time.Now())
	}
	if err == nil {
		err = appendLine(path, append(line, '\n'))
	}
	if err != nil && inv.out != nil && inv.out.Debugging() {
		inv.out.Logger().Debug("audit log not written", "path", path, "error", err.Error())
	}
}

func appendLine(path string, line []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(line) // one write: appended whole
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// auditEntry is what the log says of this invocation: the values of
// sensitive and secret-named flags redacted, high-entropy values
// summarised, and any secret value that turns up elsewhere removed.
func (inv *invocation) auditEntry(code int, fail *envelope.Error) AuditEntry {
	c := inv.call
	var secrets []string
	args := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(c.values)) {
		values := c.values[name]
		f := c.flags[name]
		secret := f != nil && (f.Sensitive || envelope.SecretName(f.Name))
		shown := make([]string, len(values))
		for i, v := range values {
			switch m, masked := envelope.MaskValue(v, false); {
			case secret:
				shown[i] = envelope.Redacted
				secrets = append(secrets, v)
			case masked:
				shown[i] = m
			default:
				shown[i] = v
			}
		}
		if len(shown) == 1 {
			args[name] = shown[0]
		} else {
			args[name] = shown
		}
	}
	if inv.deleg.on {
		// A passthrough command's tokens are the tool's: with no schema to
		// say which are secret, none is written (REQ-C-031).
		args["argv"] = "[OMITTED]"
	}
	var positional []string
	for _, a := range c.args {
		for _, s := range secrets {
			if s != "" {
				a = strings.ReplaceAll(a, s, envelope.Redacted)
			}
		}
		if m, ok := envelope.MaskValue(a, false); ok {
			a = m
		}
		positional = append(positional, a)
	}
	e := AuditEntry{
		Timestamp:  inv.meta.Timestamp,
		Command:    c.node.DotPath(),
		Args:       args,
		Arguments:  positional,
		ExitCode:   code,
		DurationMS: inv.meta.DurationMS,
		TraceID:    inv.obs.trace,
		RequestID:  inv.meta.RequestID,
		SessionID:  inv.cfg.getenv(envelope.EnvName(inv.root.Name, "SESSION_ID")),
		Cwd:        inv.obs.cwd,
	}
	if fail != nil && code != 0 {
		e.Error = fail.Code
	}
	if inv.out != nil {
		e.Warnings = inv.out.WarningCodes()
	}
	e.Data = inv.auditData(secrets)
	return e
}

// auditLogNode is the audit-log command.
func auditLogNode() *schema.Command {
	return &schema.Command{
		Name:     auditLogCommand,
		Usage:    "Query the audit log of this tool's invocations, newest first",
		Runnable: true,
		Builtin:  true,
		Flags: []schema.Flag{
			{Name: flagname.Since, Type: schema.String, Builtin: true, Usage: "only entries since this long ago (1h, 30m) or this time (2026-03-17T14:00:00Z, 2026-03-17)"},
			{Name: flagname.CommandName, Type: schema.String, Builtin: true, Usage: "only entries of this command (a dot path, such as run.spawn) and those under it"},
			{Name: flagname.TraceID, Type: schema.String, Builtin: true, Usage: "only entries with this trace id"},
		},
		Meta: schema.Meta{Danger: schema.Safe, List: true, NoArgs: true, Output: schema.Of[[]auditRecord](),
			Examples: []schema.Example{
				{Description: "the last hour's invocations, one per line", Command: "audit-log --since 1h --format jsonl"},
				{Description: "every invocation of one trace", Command: "audit-log --trace-id abc123 --limit 0"},
			}},
	}
}

// auditLog answers the audit-log command.
func (inv *invocation) auditLog(ctx context.Context) error {
	c := inv.call
	path := inv.auditLogPath()
	var since time.Time
	if v := c.last(flagname.Since); v != "" {
		t, err := parseSince(v, inv.startedAt())
		if err != nil {
			return envelope.Validationf(errcode.InvalidFlagValue, "--since %q is neither a duration (1h, 30m) nor a time (2026-03-17T14:00:00Z, 2026-03-17)", v).WithField(flagname.Since)
		}
		since = t
	}
	command, trace := c.last(flagname.CommandName), c.last(flagname.TraceID)
	records := []auditRecord{}
	if path == "" {
		name := envelope.EnvName(inv.root.Name, "AUDIT_LOG")
		return envelope.Errorf(exitcode.Precondition, "AUDIT_LOG_DISABLED", "this tool keeps no audit log: it is off unless the tool or %s turns it on", name).
			WithFix("set "+name+"=1 (or an absolute path) for the calls to be recorded", "")
	}
	for _, name := range auditLogFiles(path) {
		var err error
		if records, err = readAuditFile(ctx, name, records, func(e AuditEntry) bool {
			if !since.IsZero() {
				t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
				if err != nil || t.Before(since) {
					return false
				}
			}
			if command != "" && e.Command != command && !strings.HasPrefix(e.Command, command+".") {
				return false
			}
			return trace == "" || e.TraceID == trace
		}); err != nil {
			return err
		}
	}
	slices.Reverse(records) // newest first
	return inv.out.Result(records)
}

// readAuditFile appends to records the entries of one file of the log that
// keep accepts; a file that is not there holds none.
func readAuditFile(ctx context.Context, path string, records []auditRecord, keep func(AuditEntry) bool) ([]auditRecord, error) {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return records, nil
	case err != nil:
		return nil, envelope.Errorf(exitcode.Precondition, "AUDIT_LOG_UNREADABLE", "%v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var e AuditEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a torn line: another invocation's, or a crash's
		}
		if keep(e) {
			records = append(records, auditRecord(e))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, envelope.Errorf(exitcode.Precondition, "AUDIT_LOG_UNREADABLE", "read %s: %v", path, err)
	}
	return records, nil
}

// parseSince reads --since: a duration back from now, or a time.
func parseSince(v string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a duration or a time")
}
