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
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/secret"
	"github.com/duet-cli/duet/schema"
)

// The audit log (REQ-O-030), off unless the app (WithAuditLog) or the
// operator (<TOOL>_AUDIT_LOG) turns it on: one JSON line appended for every
// invocation that resolves to a command, success or failure — when it
// started, the command, its flags and arguments with secrets redacted, the
// exit code, how long it took, its request, trace and session ids and the
// codes of its warnings — written as the answer settles, before it is
// written. It lives at $XDG_STATE_HOME/<tool>/audit.jsonl (else
// ~/.local/state/<tool>/audit.jsonl), or where the app or <TOOL>_AUDIT_LOG
// says. It is never rewritten: each entry is one write(2) to a file opened
// for appending, whole even when invocations run at once; it is rotated and
// pruned to stay bounded (auditrotate.go). `<tool> audit-log` reads it,
// rotated files included.

// auditLogCommand is the name of the built-in command that reads the audit
// log (its filters: --since, --command, --trace-id).
const (
	auditLogCommand = "audit-log"
)

// maxAuditEntry bounds one line of the audit log, its newline included
// (REQ-O-030: 16 KiB), so that every entry is one write well under the
// size the kernel appends whole.
const maxAuditEntry = 16 << 10

// truncatedArg replaces an args value cut to fit maxAuditEntry.
const truncatedArg = "[TRUNCATED]"

// AuditEntry is one line of the audit log and one item of audit-log's
// data.entries: the CLI Agent Spec's AuditLogEntry 1.1, plus data.
type AuditEntry struct {
	Timestamp string `json:"timestamp"`
	Command   string `json:"command"` // meta.command: the dot path
	// The flags given, by name, and the positional arguments, by their
	// declared names ("arguments" for undeclared ones); secrets [REDACTED],
	// values cut to fit the line [TRUNCATED].
	Args       map[string]any `json:"args"`
	ExitCode   int            `json:"exit_code"`
	DurationMS int64          `json:"duration_ms"`
	RequestID  string         `json:"request_id"`
	TraceID    string         `json:"trace_id,omitempty"`
	SessionID  string         `json:"session_id,omitempty"` // <TOOL>_SESSION_ID, verbatim, when set
	// The codes of the answer's warnings, in order, such as
	// INJECTION_PROTECTION_DISABLED (O-023); empty, never null.
	Warnings []string `json:"warnings"`
	// A stream's events by effect, or those of a buffered answer's events
	// (AuditLogEntry 1.1), would_* in a dry run.
	Effects   map[string]int `json:"effects,omitempty"`
	Truncated bool           `json:"truncated,omitempty"` // args values were cut to fit 16 KiB
	// The answer's data, secret fields [REDACTED] (F-034, auditdata.go):
	// F-034 has a response's secret field redacted in the audit log, which
	// only a log that records the response can show. It is Duet's one
	// field beyond AuditLogEntry's, and the first dropped to fit 16 KiB.
	Data json.RawMessage `json:"data,omitempty"`
}

// auditEntries is the data of audit-log's buffered answer.
type auditEntries struct {
	Entries []AuditEntry `json:"entries"`
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
// on: $XDG_STATE_HOME/<tool>/audit.jsonl, else
// ~/.local/state/<tool>/audit.jsonl (REQ-O-030); "" when there is no home
// directory.
func AuditLogPath(tool string, getenv func(string) string) string {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, tool, "audit.jsonl")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", tool, "audit.jsonl")
	}
	return ""
}

// auditBefore is envelope.Settings.BeforeAnswer: the invocation's entry is
// appended to the audit log once its answer is settled and before a byte
// of it is written (REQ-O-030). A failed write changes neither the exit
// code nor the data: the answer carries an AUDIT_LOG_UNAVAILABLE warning.
func (inv *invocation) auditBefore(st envelope.Settled) *envelope.Warning {
	inv.audited = true
	err := inv.writeAudit(st, inv.answering)
	if err == nil {
		return nil
	}
	// No log line here: Finish holds the Output, which the logger writes
	// through. The warning says it all.
	return &envelope.Warning{Code: "AUDIT_LOG_UNAVAILABLE",
		Message: fmt.Sprintf("this call is not in the audit log (%s): %v. Next: make the log's directory writable, or set %s to another absolute path",
			inv.obs.audit, errors.Unwrap(err), envelope.EnvName(inv.root.Name, "AUDIT_LOG"))}
}

// audit appends the invocation's entry to the audit log when the answer
// did not settle through Finish (auditBefore): failing to write it fails
// nothing, and is reported under --debug.
func (inv *invocation) audit(code int, fail *envelope.Error) {
	if inv.audited {
		return
	}
	st := envelope.Settled{ExitCode: code}
	if inv.out != nil {
		st.Warnings, st.Effects = inv.out.WarningCodes(), inv.out.EffectCounts()
		st.Result, _, _ = inv.out.RecordedJSON()
	}
	if err := inv.writeAudit(st, fail); err != nil && inv.out != nil && inv.out.Debugging() {
		inv.out.Logger().Debug("audit log not written", "path", inv.obs.audit, "error", err.Error())
	}
}

// writeAudit appends the entry of an answer that settled as st, with fail,
// unless the log is off or REQ-O-030 leaves the call out of it.
func (inv *invocation) writeAudit(st envelope.Settled, fail *envelope.Error) error {
	path := inv.obs.audit
	if path == "" || inv.introspection() || unresolved(inv.call, fail) {
		return nil
	}
	e := inv.auditEntry(st)
	line, err := fitAuditEntry(&e)
	if err == nil {
		stamped := time.Now() // on the clock of the entries' timestamps
		if inv.cfg.now != nil {
			stamped = inv.cfg.now()
		}
		err = boundAuditLog(context.Background(), path, len(line)+1, inv.cfg.auditLimits, time.Now(), stamped)
	}
	if err == nil {
		err = appendLine(path, append(line, '\n'))
	}
	if err != nil {
		return fmt.Errorf("audit log %s: %w", path, err)
	}
	return nil
}

// introspection reports whether the invocation only read what the tool
// is — its schema, its manifest, or its own audit log — which REQ-O-030
// leaves out of the log: those calls do no work.
func (inv *invocation) introspection() bool {
	c := inv.call
	if c == nil || c.node == nil {
		return false
	}
	return c.on(flagname.Schema) || describe.Introspection(c.node)
}

// unresolved reports whether the call named no command: a word that is
// none of a group's (UNKNOWN_COMMAND), or of a runnable root or group,
// which takes it as a stray argument. REQ-O-030 logs no such call: the
// word may have been anything, a secret too, and nothing declares it.
func unresolved(c *call, fail *envelope.Error) bool {
	switch {
	case fail == nil:
		return false
	case fail.Code == errcode.UnknownCommand:
		return true
	}
	return fail.Code == "UNEXPECTED_ARGUMENT" && c != nil && c.node != nil && len(c.node.Commands) > 0
}

// fitAuditEntry encodes e in at most maxAuditEntry bytes, its newline
// included: the answer's data is dropped first, then the largest args
// values are replaced by [TRUNCATED], one at a time, and the entry marked
// truncated (REQ-O-030). The encoded text itself is never cut: that would
// leave a line that is not JSON.
func fitAuditEntry(e *AuditEntry) ([]byte, error) {
	line, err := json.Marshal(e)
	for err == nil && len(line)+1 > maxAuditEntry {
		if e.Data != nil {
			e.Data = nil
		} else if k := largestArg(e.Args); k != "" {
			e.Args[k], e.Truncated = truncatedArg, true
		} else {
			break // every value is cut: the names alone are what is left
		}
		line, err = json.Marshal(e)
	}
	return line, err
}

// largestArg is the name of the args value that takes the most bytes
// encoded, not cut yet; "" when none is left.
func largestArg(args map[string]any) string {
	best, size := "", 0
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if args[k] == truncatedArg {
			continue
		}
		raw, _ := json.Marshal(args[k])
		if len(raw) > size {
			best, size = k, len(raw)
		}
	}
	return best
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
func (inv *invocation) auditEntry(st envelope.Settled) AuditEntry {
	c := inv.call
	var secrets []string
	args := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(c.values)) {
		values := c.values[name]
		f := c.flags[name]
		hidden := f != nil && f.Sensitive || envelope.SecretName(name) // an unknown --token too
		shown := make([]any, len(values))
		for i, v := range values {
			switch m, masked := envelope.MaskValue(v, false); {
			case hidden:
				shown[i] = envelope.Redacted
				secrets = append(secrets, v)
			case name == flagname.RawPayload:
				shown[i] = payload(v) // its fields, each redacted by name and shape
			case masked:
				shown[i] = m
			case f != nil && f.Type == schema.Boolean && (v == "true" || v == "false"):
				shown[i] = v == "true" // args.dry-run is true, as the answer's meta.dry_run
			default:
				shown[i] = secret.Shapes(v, envelope.Redacted)
			}
		}
		if len(shown) == 1 {
			args[name] = shown[0]
		} else {
			args[name] = shown
		}
	}
	secrets = append(secrets, inv.unknownSecrets()...)
	if inv.deleg.on {
		// A passthrough command's tokens are the tool's: with no schema to
		// say which are secret, none is written (REQ-C-031).
		args["argv"] = "[OMITTED]"
	} else {
		inv.auditArguments(args, secrets)
	}
	e := AuditEntry{
		Timestamp:  inv.meta.Timestamp,
		Command:    c.node.DotPath(),
		Args:       args,
		ExitCode:   st.ExitCode,
		DurationMS: inv.meta.DurationMS,
		TraceID:    inv.obs.trace,
		RequestID:  inv.meta.RequestID,
		SessionID:  inv.cfg.getenv(envelope.EnvName(inv.root.Name, "SESSION_ID")),
		Warnings:   append([]string{}, st.Warnings...),
		Effects:    st.Effects,
		Data:       auditData(st.Result, secrets),
	}
	return e
}

// payload is a --raw-payload as the audit log keeps it: the object, with
// the values of secret-named fields and secrets of a known shape redacted
// (redactData); anything that is no JSON object, whose secrets cannot be
// told, is omitted.
func payload(v string) any {
	var obj map[string]any
	if json.Unmarshal([]byte(v), &obj) != nil || obj == nil {
		return "[OMITTED]"
	}
	return redactData(obj, nil)
}

// unknownSecrets are the values the command line gives flags the command
// does not know but whose names look secret (--token X, --api-key=X): the
// parser took X for an argument, and it must not be logged as one.
func (inv *invocation) unknownSecrets() []string {
	var out []string
	args := inv.args
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if inv.call.flags[name] != nil || !envelope.SecretName(name) {
			continue
		}
		switch {
		case inline:
			out = append(out, value)
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// auditArguments puts the positional arguments into args by the names the
// command declares them under, a variadic one taking the rest as a list;
// those it does not name (or whose name a flag took) go under "arguments".
// A secret flag's value is removed from them, and high-entropy values are
// summarised.
func (inv *invocation) auditArguments(args map[string]any, secrets []string) {
	var rest []string
	decl := inv.call.node.Args
	for i, a := range inv.call.args {
		for _, s := range secrets {
			if s != "" {
				a = strings.ReplaceAll(a, s, envelope.Redacted)
			}
		}
		if m, ok := envelope.MaskValue(a, false); ok {
			a = m
		} else {
			a = secret.Shapes(a, envelope.Redacted) // a user:pass@ URL, a ghp_ token
		}
		var d *schema.Arg
		switch {
		case i < len(decl):
			d = &decl[i]
		case len(decl) > 0 && decl[len(decl)-1].Variadic:
			d = &decl[len(decl)-1]
		}
		switch {
		case d != nil && d.Variadic:
			if list, ok := args[d.Name].([]string); ok || args[d.Name] == nil {
				args[d.Name] = append(list, a)
				continue
			}
		case d != nil && args[d.Name] == nil:
			args[d.Name] = a
			continue
		}
		rest = append(rest, a)
	}
	if len(rest) > 0 {
		args["arguments"] = rest
	}
}

// auditLogNode is the audit-log command.
func auditLogNode() *schema.Command {
	return &schema.Command{
		Name:     auditLogCommand,
		Usage:    "Query the audit log of this tool's invocations, oldest first; --limit keeps the newest",
		Runnable: true,
		Builtin:  true,
		Flags: []schema.Flag{
			{Name: flagname.Since, Type: schema.String, Builtin: true, Usage: "only entries since this long ago (30s, 15m, 1h, 7d) or this time (2026-03-17T14:00:00Z)"},
			{Name: flagname.CommandName, Type: schema.String, Builtin: true, Usage: "only entries of this command and those under it (config set, or config.set)"},
			{Name: flagname.TraceID, Type: schema.String, Builtin: true, Usage: "only entries with this trace id"},
		},
		Meta: schema.Meta{Danger: schema.Safe, List: true, NoArgs: true, Output: schema.Of[auditEntries](),
			Examples: []schema.Example{
				{Description: "the last hour's invocations, one per line", Command: "audit-log --since 1h --format jsonl"},
				{Description: "every invocation of one trace", Command: "audit-log --trace-id abc123 --limit 0"},
			}},
	}
}

// auditLog answers the audit-log command: the entries that match its
// filters, oldest first, of which --limit keeps the newest. Its cursor
// anchors on the oldest entry a page returned — its timestamp and request
// id — never on a position in the files: rotation moves entries between
// files, pruning removes the oldest and new ones are appended, and none of
// that moves an anchor (REQ-O-030). A page after it holds the matching
// entries still older.
func (inv *invocation) auditLog(ctx context.Context) error {
	c := inv.call
	path := inv.auditLogPath()
	if path == "" {
		name := envelope.EnvName(inv.root.Name, "AUDIT_LOG")
		return envelope.Errorf(exitcode.Precondition, "AUDIT_LOG_DISABLED", "this tool keeps no audit log: it is off unless the tool or %s turns it on", name).
			WithFix("set "+name+"=1 (or an absolute path) for the calls to be recorded; calls made while it was off were not", "")
	}
	var since time.Time
	if v := c.last(flagname.Since); v != "" {
		t, err := parseSince(v, inv.startedAt())
		if err != nil {
			return envelope.Validationf(errcode.InvalidFlagValue, "--since %q is neither a duration (30s, 15m, 1h, 7d) nor a time with its offset (2026-03-17T14:00:00Z)", v).WithField(flagname.Since)
		}
		since = t
	}
	w, _ := inv.out.Window()
	var after auditPos
	if w.After != "" {
		var ok bool
		if after, ok = parseAuditPos(w.After); !ok {
			return cursorFix(envelope.Validationf("INVALID_CURSOR", "--cursor does not name an entry of the audit log").WithField(flagname.Cursor))
		}
	}
	// Either spelling of a command path: entries say meta.command's.
	command, trace := strings.Join(strings.Fields(c.last(flagname.CommandName)), "."), c.last(flagname.TraceID)
	var matched []AuditEntry
	for _, name := range auditLogFiles(path) {
		var err error
		if matched, err = readAuditFile(ctx, name, matched, func(e AuditEntry) bool {
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
	// Entries are appended as invocations end, not as they start: order
	// them by their start, as the anchor does.
	slices.SortStableFunc(matched, func(a, b AuditEntry) int { return auditPosOf(a).compare(auditPosOf(b)) })
	total := len(matched)
	older := matched
	if w.After != "" {
		older = matched[:0:0]
		for _, e := range matched {
			if auditPosOf(e).compare(after) < 0 {
				older = append(older, e)
			}
		}
	}
	page := older
	if w.Limit > 0 && len(page) > w.Limit {
		page = page[len(page)-w.Limit:]
	}
	pg := envelope.Pagination{Total: &total, Returned: len(page)}
	if len(page) < len(older) {
		next := envelope.EncodeAnchorCursor(auditPosOf(page[0]).String(), w.Query)
		pg.Truncated, pg.HasMore, pg.NextCursor = true, true, &next
	}
	if page == nil {
		page = []AuditEntry{}
	}
	if f := inv.out.Mode().Format; f == envelope.JSON || inv.cfg.featured.encoders[f] != nil {
		return inv.out.Paginated(auditEntries{Entries: page}, pg)
	}
	return inv.out.Paginated(page, pg) // a line, or a row, per entry
}

// auditPos is where an entry stands in the log's order: by when its
// invocation started, then by its request id.
type auditPos struct {
	at        time.Time
	requestID string
}

func auditPosOf(e AuditEntry) auditPos {
	t, _ := time.Parse(time.RFC3339Nano, e.Timestamp) // one that is not a time sorts first
	return auditPos{t, e.RequestID}
}

// String is the anchor of a cursor: the timestamp, a space, the request id.
func (p auditPos) String() string {
	return p.at.UTC().Format(time.RFC3339Nano) + " " + p.requestID
}

func parseAuditPos(s string) (auditPos, bool) {
	at, id, ok := strings.Cut(s, " ")
	t, err := time.Parse(time.RFC3339Nano, at)
	return auditPos{t, id}, ok && err == nil && id != ""
}

func (p auditPos) compare(q auditPos) int {
	return cmp.Or(p.at.Compare(q.at), strings.Compare(p.requestID, q.requestID))
}

// readAuditFile appends to records the entries of one file of the log that
// keep accepts; a file that is not there holds none.
func readAuditFile(ctx context.Context, path string, records []AuditEntry, keep func(AuditEntry) bool) ([]AuditEntry, error) {
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
			records = append(records, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, envelope.Errorf(exitcode.Precondition, "AUDIT_LOG_UNREADABLE", "read %s: %v", path, err)
	}
	return records, nil
}

// parseSince reads --since: a positive whole number of seconds, minutes,
// hours or days back from now (30s, 15m, 1h, 7d), or an RFC 3339 time,
// its offset included; nothing else (REQ-O-030), so that 1w or 1h30m is
// refused rather than read as something the caller did not mean.
func parseSince(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, errors.New("empty")
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}
	if unit, ok := units[v[len(v)-1]]; ok {
		n, err := strconv.Atoi(v[:len(v)-1])
		if err == nil && n > 0 && strings.TrimLeft(v[:len(v)-1], "0123456789") == "" {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("not a duration or a time")
}
