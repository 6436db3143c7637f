//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-O-030 Opt-in audit log and audit-log command.

// auditEntryKeys are the fields AuditLogEntry 1.1 allows, and data, Duet's
// one addition (F-034 has a response's secret field redacted in the log).
var auditEntryKeys = []string{"args", "command", "data", "duration_ms", "effects", "exit_code", "request_id", "session_id", "timestamp", "trace_id", "truncated", "warnings"}

// auditLog reads the audit log at path, one decoded entry a line; every
// line must be one JSON object.
func auditLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	var entries []map[string]any
	for line := range strings.Lines(readFile(t, path)) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit log line %q: %v", line, err)
		}
		entries = append(entries, e)
	}
	return entries
}

// TestO030AuditEntries: REQ-O-030's entry criteria on e2eapp with
// E2EAPP_AUDIT_LOG set to a path in a directory not yet there, run under
// umask 0022: the file is created 0600 and its directory 0700; one entry
// is appended for a success, a failure (keyring get of a missing key,
// exit 5), --validate-only, --dry-run, a refusal after the command
// resolved (a secret --token on argv, exit 2) and a destructive command
// run without --confirm-destructive (decommission, which previews); none
// for --help, --version, manifest, --schema, audit-log or an unknown
// command. Every entry has AuditLogEntry's fields and no other but data;
// its command is the response's meta.command, its exit_code the exit
// code, its args the parsed map (the key argument by name, --dry-run and
// --validate-only as true, the secret [REDACTED] and in no line of the
// log), warnings an array; session_id is E2EAPP_SESSION_ID verbatim, and
// absent without it. While the log is on every response has
// meta.audit_log_path; off, audit-log exits 4 AUDIT_LOG_DISABLED naming
// the variable, and nothing is written.
func TestO030AuditEntries(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	log := sb.path("audit", "audit.jsonl")
	on := []string{"E2EAPP_AUDIT_LOG=" + log}

	r := sb.run(t, "audit-log")
	env := expect(t, "audit-log, the log off", r, 4)
	want(t, "audit-log, the log off", env, map[string]any{"error.code": "AUDIT_LOG_DISABLED", "meta.audit_log_path": nil})
	if fix, _ := get(env, "error.fix_required").(string); !strings.Contains(fix, "E2EAPP_AUDIT_LOG") {
		t.Errorf("AUDIT_LOG_DISABLED's fix_required %q does not name E2EAPP_AUDIT_LOG", fix)
	}
	expect(t, "keyrings, the log off", sb.run(t, "keyrings"), 0)
	if exists(sb.path("audit")) || exists(sb.path("home", ".local", "state", "e2eapp", "audit.jsonl")) {
		t.Fatal("the log off, an audit file or directory was created")
	}

	// The first logged run creates the log, under umask 0022.
	umask := exec.Command("sh", "-c", `umask 0022; exec "$0" "$@"`, sb.bin, "keyring", "set", "api", "--value", "v1")
	umask.Env, umask.Dir = append(slices.Clone(sb.env), append(on, "E2EAPP_SESSION_ID=s-1", "E2EAPP_TRACE_ID=abc123", "E2EAPP_KEYRING_TOKEN=tok-env-3141")...), sb.dir
	var stdout, stderr bytes.Buffer
	umask.Stdout, umask.Stderr = &stdout, &stderr
	first := wait(t, umask, &stdout, &stderr)
	for path, mode := range map[string]os.FileMode{log: 0o600, sb.path("audit"): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want mode %v", path, fi.Mode(), err, mode)
		}
	}

	type run struct {
		args []string
		env  []string
		code int
		want map[string]any // at dot paths of the entry
	}
	runs := []run{
		{[]string{"keyring", "set", "api", "--value", "v1"}, nil, 0, map[string]any{"args.key": "api", "args.value": "v1", "session_id": "s-1", "trace_id": "abc123"}},
		{[]string{"keyring", "set", "api", "--value", "v2", "--dry-run"}, nil, 0, map[string]any{"args.dry-run": true, "session_id": nil, "trace_id": nil}},
		{[]string{"keyring", "set", "api", "--value", "v3", "--validate-only"}, nil, 0, map[string]any{"args.validate-only": true}},
		{[]string{"keyring", "get", "nope"}, nil, 5, map[string]any{"args.key": "nope"}},
		{[]string{"keyring", "set", "api", "--value", "v4", "--token", "tok-argv-2718"}, nil, 2, map[string]any{"args.token": "[REDACTED]"}},
		{[]string{"decommission", "web-1"}, nil, 0, map[string]any{"command": "decommission"}},
		{[]string{"keyrings"}, []string{"E2EAPP_SESSION_ID=s-2"}, 0, map[string]any{"session_id": "s-2"}},
	}
	answers := []map[string]any{expect(t, "the first run", first, 0)}
	for _, rn := range runs[1:] {
		answers = append(answers, expect(t, strings.Join(rn.args, " "), sb.runEnv(t, append(slices.Clone(on), rn.env...), rn.args...), rn.code))
	}
	for i, a := range answers {
		if get(a, "meta.audit_log_path") != log {
			t.Errorf("%v: meta.audit_log_path %v, want %s", runs[i].args, get(a, "meta.audit_log_path"), log)
		}
	}
	// Calls that do no work, or resolve to no command, are not logged.
	for _, args := range [][]string{{"--help"}, {"--version"}, {"keyring", "set", "--help"}, {"manifest"}, {"keyring", "set", "--schema"}, {"audit-log"}, {"nosuchcommand"}, {"keyring", "nosuch"}} {
		sb.runEnv(t, on, args...)
	}

	entries := auditLog(t, log)
	if len(entries) != len(runs) {
		t.Fatalf("the log holds %d entries, want one for each of the %d runs:\n%s", len(entries), len(runs), readFile(t, log))
	}
	byID := map[any]map[string]any{}
	for _, e := range entries {
		byID[e["request_id"]] = e
		for k := range e {
			if !slices.Contains(auditEntryKeys, k) {
				t.Errorf("entry %v has %q, not a field of AuditLogEntry", e["command"], k)
			}
		}
		for _, k := range []string{"timestamp", "command", "args", "exit_code", "duration_ms", "request_id", "warnings"} {
			if _, ok := e[k]; !ok {
				t.Errorf("entry %v has no %s", e["command"], k)
			}
		}
		if _, ok := e["warnings"].([]any); !ok {
			t.Errorf("entry %v: warnings %v is not an array", e["command"], e["warnings"])
		}
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(e["timestamp"])); err != nil {
			t.Errorf("entry %v: timestamp %v: %v", e["command"], e["timestamp"], err)
		}
	}
	for i, rn := range runs {
		e := byID[get(answers[i], "meta.request_id")]
		if e == nil {
			t.Errorf("%v: no entry with the response's request_id", rn.args)
			continue
		}
		wantEntry := map[string]any{"command": get(answers[i], "meta.command"), "exit_code": float64(rn.code), "timestamp": get(answers[i], "meta.timestamp")}
		for k, v := range rn.want {
			wantEntry[k] = v
		}
		want(t, strings.Join(rn.args, " ")+"'s entry", e, wantEntry)
	}
	for _, secret := range []string{"tok-env-3141", "tok-argv-2718"} {
		if strings.Contains(readFile(t, log), secret) {
			t.Errorf("the audit log holds the secret %s", secret)
		}
	}
}

// TestO030AuditEntryCap: REQ-O-030 "each entry MUST NOT exceed 16 KiB". A
// run of keyring set with a 120 KiB --value (Linux passes no single
// argument past 128 KiB, so a 50 MB one cannot be given on argv) appends
// one entry of at most 16 KiB, a valid JSON line, with truncated: true,
// the value [TRUNCATED] and the small key argument whole; an entry that
// fits has no truncated.
func TestO030AuditEntryCap(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	log := sb.path("audit.jsonl")
	on := []string{"E2EAPP_AUDIT_LOG=" + log}
	expect(t, "keyring set small", sb.runEnv(t, on, "keyring", "set", "small", "--value", "v"), 0)
	expect(t, "keyring set big", sb.runEnv(t, on, "keyring", "set", "big", "--value", strings.Repeat("x", 120<<10)), 0)
	raw := readFile(t, log)
	lines := strings.SplitAfter(strings.TrimSuffix(raw, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("the log holds %d lines, want 2", len(lines))
	}
	if n := len(lines[1]) + 1; n > 16<<10 {
		t.Errorf("the big run's entry takes %d bytes, past 16 KiB", n)
	}
	entries := auditLog(t, log)
	want(t, "the small run's entry", entries[0], map[string]any{"truncated": nil, "args.value": "v"})
	want(t, "the big run's entry", entries[1], map[string]any{"truncated": true, "args.value": "[TRUNCATED]", "args.key": "big", "exit_code": 0.0})
}

// syntheticEntry is an audit entry as the log holds it.
func syntheticEntry(at time.Time, command, id, trace string) string {
	e := map[string]any{"timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"), "command": command, "args": map[string]any{},
		"exit_code": 0, "duration_ms": 5, "request_id": id, "warnings": []string{}}
	if trace != "" {
		e["trace_id"] = trace
	}
	raw, _ := json.Marshal(e)
	return string(raw) + "\n"
}

// TestO030AuditLogQuery: REQ-O-030's audit-log criteria on a log of 250
// keyring.set entries (r-000 oldest, a second apart, within the past
// hour), 10 keyring.get, the last 3 of them with trace id abc123, and 10
// keyrings, written as an operator's log would hold them, interleaved:
//   - --command keyring.set --limit 100 answers one envelope, data.entries
//     r-150..r-249 oldest first, meta.pagination returned 100, total 250,
//     truncated and has_more true, a next_cursor; that cursor gives
//     r-050..r-149, and its cursor r-000..r-049 with returned 50,
//     truncated and has_more false, next_cursor null;
//   - --command keyring and --command "keyring set" match by whole words
//     in either spelling (keyring.set and keyring.get, never keyrings);
//   - --trace-id abc123 answers exactly its three entries;
//   - --since 1h --format jsonl answers every entry, a line each, oldest
//     first, then the summary line with the pagination; --since at r-200's
//     time answers r-200 on; --since 1w exits 2;
//   - a malformed --cursor, and a cursor of --command keyring.set given to
//     --command keyrings, exit 2 INVALID_CURSOR;
//   - the first page's cursor after the oldest 120 entries were pruned
//     answers the 30 older matches left, has_more false, next_cursor null,
//     no warning; a real run logged after the first page is not on the
//     second.
func TestO030AuditLogQuery(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	log := sb.path("audit.jsonl")
	on := []string{"E2EAPP_AUDIT_LOG=" + log}
	start := time.Now().Add(-55 * time.Minute).Truncate(time.Second)
	var b strings.Builder
	setAt := func(i int) time.Time { return start.Add(time.Duration(i) * time.Second) }
	for i := range 250 {
		b.WriteString(syntheticEntry(setAt(i), "keyring.set", fmt.Sprintf("r-%03d", i), ""))
		if i%25 == 24 {
			trace := ""
			if i >= 175 {
				trace = "abc123"
			}
			b.WriteString(syntheticEntry(setAt(i).Add(time.Millisecond), "keyring.get", fmt.Sprintf("g-%03d", i), trace))
			b.WriteString(syntheticEntry(setAt(i).Add(2*time.Millisecond), "keyrings", fmt.Sprintf("k-%03d", i), ""))
		}
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("r-%03d", i))
		}
		return out
	}
	page := func(what string, args ...string) (map[string]any, []string) {
		t.Helper()
		env := expect(t, what, sb.runEnv(t, on, append([]string{"audit-log"}, args...)...), 0)
		var got []string
		list, ok := get(env, "data.entries").([]any)
		if !ok {
			t.Fatalf("%s: data.entries is %v", what, get(env, "data"))
		}
		for _, e := range list {
			got = append(got, fmt.Sprint(get(e, "request_id")))
		}
		return env, got
	}
	set := []string{"--command", "keyring.set", "--limit", "100"}

	env, got := page("page 1", set...)
	if diff := cmp.Diff(ids(150, 250), got); diff != "" {
		t.Errorf("page 1 (-want +got):\n%s", diff)
	}
	want(t, "page 1", env, map[string]any{"meta.pagination.returned": 100.0, "meta.pagination.total": 250.0, "meta.pagination.truncated": true, "meta.pagination.has_more": true})
	cursor1, _ := get(env, "meta.pagination.next_cursor").(string)
	if cursor1 == "" {
		t.Fatalf("page 1 has no next_cursor: %v", get(env, "meta.pagination"))
	}
	env, got = page("page 2", append(slices.Clone(set), "--cursor", cursor1)...)
	if diff := cmp.Diff(ids(50, 150), got); diff != "" {
		t.Errorf("page 2 (-want +got):\n%s", diff)
	}
	cursor2, _ := get(env, "meta.pagination.next_cursor").(string)
	env, got = page("page 3", append(slices.Clone(set), "--cursor", cursor2)...)
	if diff := cmp.Diff(ids(0, 50), got); diff != "" {
		t.Errorf("page 3 (-want +got):\n%s", diff)
	}
	want(t, "page 3", env, map[string]any{"meta.pagination.returned": 50.0, "meta.pagination.truncated": false, "meta.pagination.has_more": false, "meta.pagination.next_cursor": nil})

	commands := func(env map[string]any) map[string]int {
		n := map[string]int{}
		for _, e := range get(env, "data.entries").([]any) {
			n[fmt.Sprint(get(e, "command"))]++
		}
		return n
	}
	for _, filter := range []string{"keyring", "keyring set", "keyring.set"} {
		env, _ := page("--command "+filter, "--command", filter, "--limit", "0")
		wantN := map[string]int{"keyring.set": 250, "keyring.get": 10}
		if filter != "keyring" {
			delete(wantN, "keyring.get")
		}
		if diff := cmp.Diff(wantN, commands(env)); diff != "" {
			t.Errorf("--command %q (-want +got):\n%s", filter, diff)
		}
	}
	if _, got := page("--trace-id abc123", "--trace-id", "abc123"); !slices.Equal(got, []string{"g-199", "g-224", "g-249"}) {
		t.Errorf("--trace-id abc123: %v", got)
	}

	r := sb.runEnv(t, on, "audit-log", "--since", "1h", "--format", "jsonl", "--limit", "0")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 271 {
		t.Fatalf("--since 1h --format jsonl: exit %d, %d lines, want 0 and 270 entries and a summary\n%s", r.code, len(lines), r.stderr)
	}
	var last time.Time
	for _, line := range lines[:270] {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil || e["request_id"] == nil {
			t.Fatalf("--format jsonl line %q: %v", line, err)
		}
		at, _ := time.Parse(time.RFC3339Nano, e["timestamp"].(string))
		if at.Before(last) {
			t.Fatalf("--format jsonl is not oldest first at %s", line)
		}
		last = at
	}
	var summary map[string]any
	json.Unmarshal([]byte(lines[270]), &summary)
	want(t, "--format jsonl's summary line", summary, map[string]any{"_summary": true, "meta.pagination.returned": 270.0, "meta.pagination.has_more": false, "meta.pagination.next_cursor": nil})
	r = sb.runEnv(t, on, "audit-log", "--command", "keyring.set", "--limit", "100", "--format", "jsonl")
	lines = strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	json.Unmarshal([]byte(lines[len(lines)-1]), &summary)
	want(t, "--limit 100 --format jsonl's summary line", summary, map[string]any{"_summary": true, "meta.pagination.returned": 100.0, "meta.pagination.has_more": true, "meta.pagination.truncated": true})
	if len(lines) != 101 || get(summary, "meta.pagination.next_cursor") == nil {
		t.Errorf("--limit 100 --format jsonl: %d lines, summary %v", len(lines), summary)
	}

	if _, got := page("--since r-200's time", "--command", "keyring.set", "--since", setAt(200).UTC().Format(time.RFC3339), "--limit", "0"); !slices.Equal(got, ids(200, 250)) {
		t.Errorf("--since r-200's time: %d entries, %v", len(got), got)
	}
	for _, bad := range []string{"1w", "1h30m", "yesterday"} {
		expect(t, "--since "+bad, sb.runEnv(t, on, "audit-log", "--since", bad), 2)
	}
	for what, args := range map[string][]string{
		"a malformed cursor":             {"--cursor", "not-a-cursor"},
		"a cursor of another --command":  {"--command", "keyrings", "--limit", "100", "--cursor", cursor1},
		"a cursor without its --command": {"--limit", "100", "--cursor", cursor1},
	} {
		env := expect(t, what, sb.runEnv(t, on, append([]string{"audit-log"}, args...)...), 2)
		want(t, what, env, map[string]any{"error.code": "INVALID_CURSOR"})
	}

	// A run logged after the first page is newer than its anchor.
	env = expect(t, "a run after page 1", sb.runEnv(t, on, "keyring", "set", "late", "--value", "v"), 0)
	late := get(env, "meta.request_id")
	if _, got := page("page 2 after a run", append(slices.Clone(set), "--cursor", cursor1)...); slices.Contains(got, fmt.Sprint(late)) || !slices.Equal(got, ids(50, 150)) {
		t.Errorf("page 2 after a run logged: %v", got)
	}

	// Pruning the oldest 120 between pages: the walk ends sooner.
	var kept strings.Builder
	for line := range strings.Lines(readFile(t, log)) {
		var e map[string]any
		json.Unmarshal([]byte(line), &e)
		if id, _ := e["request_id"].(string); strings.HasPrefix(id, "r-") && id < "r-120" {
			continue
		}
		kept.WriteString(line)
	}
	if err := os.WriteFile(log, []byte(kept.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env, got = page("page 2 after pruning", append(slices.Clone(set), "--cursor", cursor1)...)
	if diff := cmp.Diff(ids(120, 150), got); diff != "" {
		t.Errorf("page 2 after pruning (-want +got):\n%s", diff)
	}
	want(t, "page 2 after pruning", env, map[string]any{"meta.pagination.returned": 30.0, "meta.pagination.has_more": false, "meta.pagination.next_cursor": nil})
	if w := warningCodes(env); len(w) != 0 {
		t.Errorf("page 2 after pruning warns %v", w)
	}
}

// TestO030AuditLogConcurrent: REQ-O-030 "valid JSONL after concurrent
// invocations from parallel sessions": eight keyring sets at once, each
// in its session, leave eight whole entries.
func TestO030AuditLogConcurrent(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	log := sb.path("audit.jsonl")
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Go(func() {
			env := []string{"E2EAPP_AUDIT_LOG=" + log, fmt.Sprintf("E2EAPP_SESSION_ID=s-%d", i)}
			codes[i] = sb.runEnv(t, env, "keyring", "set", fmt.Sprintf("k-%d", i), "--value", strings.Repeat("v", 2000)).code
		})
	}
	wg.Wait()
	entries := auditLog(t, log)
	var sessions []string
	for _, e := range entries {
		sessions = append(sessions, fmt.Sprint(e["session_id"]))
	}
	slices.Sort(sessions)
	if diff := cmp.Diff([]string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5", "s-6", "s-7"}, sessions); diff != "" || slices.ContainsFunc(codes, func(c int) bool { return c != 0 }) {
		t.Errorf("exit codes %v; the entries' sessions (-want +got):\n%s", codes, diff)
	}
}

// TestO030AuditLogWrites: REQ-O-030's "write failures" and "bounds" on
// the built e2eapp, the log turned on by the operator (E2EAPP_AUDIT_LOG).
//
//   - The entry is written before the response: `scratch` answers with
//     100 KiB, more than a pipe holds, and the entry is in the log when
//     the first byte of the answer arrives (before, the answer's last
//     bytes waited for a reader the entry waited behind).
//   - A log that cannot be written (its directory is a file) changes
//     neither the exit code nor the data: an envelope carries an
//     AUDIT_LOG_UNAVAILABLE warning; tsv and jsonl answers are as they are
//     without the log, and stderr carries the warning as one JSON
//     WarningDetail line.
//   - The active file is rotated before an entry is appended when its
//     first entry is older than the maximum age (30 days by default),
//     though the file was written today; a file whose first entry is
//     younger is appended to.
//   - A call that emits CREDENTIAL_OVER_PRIVILEGED (repos, run with a
//     credential granted more than it needs) has that code in its entry's
//     warnings.
func TestO030AuditLogWrites(t *testing.T) {
	t.Parallel()
	t.Run("the default path, in the manifest", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		path := sb.path("home", ".local", "state", "e2eapp", "audit.jsonl") // $XDG_STATE_HOME unset: ~/.local/state
		on := []string{"E2EAPP_AUDIT_LOG=1"}
		env := expect(t, "machines, the log on", sb.runEnv(t, on, "machines", "--format", "json"), 0)
		want(t, "machines", env, map[string]any{"meta.audit_log_path": path})
		if entries := auditLines(t, path); len(entries) != 1 {
			t.Errorf("E2EAPP_AUDIT_LOG=1: %d entries at the default path %s, want 1", len(entries), path)
		}
		logged := func(m map[string]any) map[string]bool {
			out := map[string]bool{}
			commands, _ := m["commands"].(map[string]any)
			for name, c := range commands {
				effects, _ := get(c, "filesystem_side_effects").([]any)
				for _, e := range effects {
					if get(e, "path") == path {
						if get(e, "type") != "log" || get(e, "clearable_with") != nil {
							t.Errorf("%s lists the audit log as %v, want type log and no clearable_with", name, e)
						}
						out[name] = true
					}
				}
			}
			return out
		}
		m := expect(t, "manifest, the log on", sb.runEnv(t, on, "manifest"), 0)["data"].(map[string]any)
		got := logged(m)
		for _, name := range []string{"machines", "scale", "decommission", "job.list"} {
			if !got[name] {
				t.Errorf("the manifest does not list the audit log among %s's side effects", name)
			}
		}
		for _, name := range []string{"manifest", "describe", "audit-log"} {
			if got[name] {
				t.Errorf("the manifest lists the audit log among %s's side effects, which the log leaves out", name)
			}
		}
		if off := logged(sb.manifest(t)); len(off) > 0 {
			t.Errorf("the log off, the manifest lists it for %v", off)
		}
	})
	t.Run("an over-privileged credential is recorded", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		log := sb.path("audit", "audit.jsonl")
		env := expect(t, "repos", sb.runEnv(t, []string{"E2EAPP_AUDIT_LOG=" + log, "E2EAPP_SCOPES=repo:read,admin:org"}, "repos"), 0)
		if !slices.Contains(warningCodes(env), "CREDENTIAL_OVER_PRIVILEGED") {
			t.Fatalf("repos with an over-privileged credential warns %v", warningCodes(env))
		}
		entries := auditLines(t, log)
		if len(entries) != 1 || !slices.Contains(entries[0]["warnings"].([]any), any("CREDENTIAL_OVER_PRIVILEGED")) {
			t.Errorf("the entry's warnings do not record CREDENTIAL_OVER_PRIVILEGED: %v", entries)
		}
	})
	t.Run("the entry precedes the answer", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		log := sb.path("audit", "audit.jsonl")
		cmd := sb.command(sb.dir, []string{"E2EAPP_AUDIT_LOG=" + log}, "scratch", "--text", strings.Repeat("x", 100<<10), "--format", "json")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first := make([]byte, 1)
		if _, err := io.ReadFull(stdout, first); err != nil {
			t.Fatalf("no answer: %v", err)
		}
		entries := auditLines(t, log) // the answer has not all been read: the entry came first
		rest, _ := io.ReadAll(stdout)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("scratch: %v", err)
		}
		if len(entries) != 1 || entries[0]["command"] != "scratch" {
			t.Errorf("when the answer's first byte arrived the log held %v, want scratch's entry", entries)
		}
		if n := len(first) + len(rest); n < 100<<10 {
			t.Errorf("the answer is %d bytes, want more than a pipe holds", n)
		}
	})

	t.Run("an unwritable log", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		if err := os.WriteFile(sb.path("not-a-dir"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		broken := []string{"E2EAPP_AUDIT_LOG=" + sb.path("not-a-dir", "audit.jsonl")}

		plain := expect(t, "machines", sb.run(t, "machines", "--format", "json"), 0)
		env := expect(t, "machines, the log unwritable", sb.runEnv(t, broken, "machines", "--format", "json"), 0)
		if diff := cmp.Diff(plain["data"], env["data"]); diff != "" {
			t.Errorf("the data changed (-without the log +with it):\n%s", diff)
		}
		if !slices.Contains(warningCodes(env), "AUDIT_LOG_UNAVAILABLE") {
			t.Errorf("warnings %v, want AUDIT_LOG_UNAVAILABLE", env["warnings"])
		}
		debug := expect(t, "machines --debug, the log unwritable", sb.runEnv(t, broken, "machines", "--format", "json", "--debug"), 0)
		if !slices.Contains(warningCodes(debug), "AUDIT_LOG_UNAVAILABLE") {
			t.Errorf("--debug: warnings %v, want AUDIT_LOG_UNAVAILABLE", debug["warnings"])
		}
		failed := expect(t, "render --fail, the log unwritable", sb.runEnv(t, broken, "render", "--fail", "--format", "json"), 1)
		want(t, "render --fail", failed, map[string]any{"error.code": "RENDER_FAILED"})
		if !slices.Contains(warningCodes(failed), "AUDIT_LOG_UNAVAILABLE") {
			t.Errorf("a failure's warnings %v, want AUDIT_LOG_UNAVAILABLE", failed["warnings"])
		}

		for _, format := range []string{"tsv", "jsonl"} {
			clean := sb.run(t, "machines", "--format", format)
			r := sb.runEnv(t, broken, "machines", "--format", format)
			if r.code != 0 || clean.code != 0 {
				t.Fatalf("machines --format %s: exit %d (%d without the log)\n%s", format, r.code, clean.code, r.stderr)
			}
			if format == "tsv" && r.stdout != clean.stdout {
				t.Errorf("--format tsv: stdout changed:\n%s\nwithout the log:\n%s", r.stdout, clean.stdout)
			}
			if format == "jsonl" { // the items; the summary's meta differs from run to run
				items := func(out string) []string { lines := strings.Split(out, "\n"); return lines[:2] }
				if diff := cmp.Diff(items(clean.stdout), items(r.stdout)); diff != "" {
					t.Errorf("--format jsonl: the items changed (-without +with):\n%s", diff)
				}
			}
			var found bool
			for line := range strings.Lines(r.stderr) {
				var w map[string]any
				if json.Unmarshal([]byte(line), &w) == nil && w["code"] == "AUDIT_LOG_UNAVAILABLE" {
					found = w["message"] != nil && strings.Contains(w["message"].(string), "E2EAPP_AUDIT_LOG")
				}
			}
			if !found {
				t.Errorf("--format %s: stderr has no AUDIT_LOG_UNAVAILABLE WarningDetail line naming E2EAPP_AUDIT_LOG:\n%s", format, r.stderr)
			}
		}
	})

	t.Run("the first entry past the maximum age", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			name    string
			age     time.Duration
			rotated bool
		}{
			{"40 days old: rotated", 40 * 24 * time.Hour, true},
			{"10 days old: kept", 10 * 24 * time.Hour, false},
		} {
			sb := newSandbox(t)
			log := sb.path("audit", "audit.jsonl")
			if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
				t.Fatal(err)
			}
			old := fmt.Sprintf(`{"timestamp":%q,"command":"machines","args":{},"exit_code":0,"duration_ms":1,"request_id":"r-old","warnings":[]}`+"\n", time.Now().Add(-tt.age).UTC().Format(time.RFC3339Nano))
			recent := fmt.Sprintf(`{"timestamp":%q,"command":"machines","args":{},"exit_code":0,"duration_ms":1,"request_id":"r-recent","warnings":[]}`+"\n", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano))
			if err := os.WriteFile(log, []byte(old+recent), 0o600); err != nil { // written now: the file is young
				t.Fatal(err)
			}
			expect(t, tt.name, sb.runEnv(t, []string{"E2EAPP_AUDIT_LOG=" + log}, "machines", "--format", "json"), 0)
			active := auditLines(t, log)
			_, err := os.Stat(log + ".1")
			switch {
			case tt.rotated && (len(active) != 1 || err != nil):
				t.Errorf("%s: the active file holds %d entries and .1 %v; want the new entry alone, the old ones rotated", tt.name, len(active), err)
			case tt.rotated && auditLines(t, log+".1")[0]["request_id"] != "r-old":
				t.Errorf("%s: the rotated file does not hold the old entries", tt.name)
			case !tt.rotated && (len(active) != 3 || err == nil):
				t.Errorf("%s: the active file holds %d entries (want 3), rotated: %v", tt.name, len(active), err == nil)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// REQ-O-050 tool exec, with REQ-O-048's confirm_flag (v1.16).

// execLines runs `e2eapp exec` with lines on stdin and extra flags, and
// returns its exit code and its decoded jsonl lines.
func execLines(t *testing.T, sb *sandbox, lines string, flags ...string) (int, []map[string]any) {
	t.Helper()
	code, out, _ := execBatch(t, sb, lines, flags...)
	return code, out
}

// execBatch is execLines, and the id exec's process had.
func execBatch(t *testing.T, sb *sandbox, lines string, flags ...string) (code int, out []map[string]any, pid int) {
	t.Helper()
	cmd := sb.command(sb.dir, nil, append([]string{"exec", "--format", "jsonl"}, flags...)...)
	cmd.Stdin = strings.NewReader(lines)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := wait(t, cmd, &stdout, &stderr)
	for line := range strings.Lines(r.stdout) {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("exec line %q: %v\nstderr: %s", line, err, r.stderr)
		}
		out = append(out, v)
	}
	return r.code, out, cmd.Process.Pid
}

// TestO050ExecInProcess: REQ-O-050's "dispatches all lines in-process" on
// the built e2eapp, which gives Duet a way to make it anew
// (adapters.WithNewApp): every line of a batch — the first and the later
// ones — answers from exec's own process (pid reports it), and a later line
// starts from the app's defaults, not from what an earlier one parsed: greet
// without --name asks for it (INPUT_REQUIRED, as alone), though the line
// before passed --name ann.
func TestO050ExecInProcess(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	code, lines, pid := execBatch(t, sb, `{"_cmd":"pid"}
{"_cmd":"greet","name":"ann"}
{"_cmd":"greet"}
{"_cmd":"pid"}
`, "--ignore-errors")
	if code != 1 || len(lines) != 5 {
		t.Fatalf("exec: exit %d, %d lines; want 1 (a line failed) and four answers and the summary: %v", code, len(lines), lines)
	}
	self := float64(pid)
	for _, i := range []int{0, 3} {
		want(t, fmt.Sprintf("line %d", i+1), lines[i], map[string]any{"ok": true, "data.pid": self, "meta._line": float64(i + 1)})
	}
	want(t, "greet --name ann", lines[1], map[string]any{"ok": true, "data.greeting": "hello, ann"})
	want(t, "greet, after a line that passed --name", lines[2], map[string]any{"ok": false, "error.code": "INPUT_REQUIRED"})
}

// TestO050ExecDryRunConfirmFlag: REQ-O-050 with v1.16's "tool exec
// --dry-run previews a dispatched confirm_flag command even when its line
// passes the flag" (REQ-O-048). Under exec --dry-run, a rollout line that
// passes yes — the first line, run in exec's process, and the second, run
// in a process of its own — and a decommission line that passes
// confirm-destructive each answer a preview (meta.dry_run true, a would_*
// effect, meta._cmd and meta._line), exit 0, and leave no file; the
// summary line says dry_run. The same rollout line without --dry-run runs
// (meta.confirmed true, the release written).
func TestO050ExecDryRunConfirmFlag(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	batch := `{"_cmd":"rollout","version":"2.0","yes":true}
{"_cmd":"rollout","version":"2.1","_opts":{"yes":true}}
{"_cmd":"decommission","host":"web-1","confirm-destructive":true}
`
	code, lines := execLines(t, sb, batch, "--dry-run")
	if code != 0 || len(lines) != 4 {
		t.Fatalf("exec --dry-run: exit %d, %d lines, want 0 and 3 answers and a summary: %v", code, len(lines), lines)
	}
	for i, effect := range []string{"would_update", "would_update", "would_delete"} {
		want(t, fmt.Sprintf("line %d", i+1), lines[i], map[string]any{"ok": true, "meta.dry_run": true, "meta.effect": effect,
			"meta.confirmed": nil, "meta._line": float64(i + 1), "meta._cmd": []string{"rollout", "rollout", "decommission"}[i]})
	}
	want(t, "the summary", lines[3], map[string]any{"_summary": true, "dry_run": true})
	if exists(sb.path("data", "e2eapp", "rolled-out")) || exists(sb.path("data", "e2eapp", "decommissioned-web-1")) {
		t.Error("exec --dry-run changed something")
	}

	code, lines = execLines(t, sb, `{"_cmd":"rollout","version":"2.0","yes":true}`+"\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exec: exit %d, %v", code, lines)
	}
	want(t, "the live line", lines[0], map[string]any{"meta.dry_run": false, "meta.confirmed": true, "meta.effect": "updated"})
	if got := readFile(t, sb.path("data", "e2eapp", "rolled-out")); got != "2.0" {
		t.Errorf("the live rollout wrote %q, want 2.0", got)
	}
}
