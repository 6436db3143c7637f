package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestE2EAuditLogOptIn (REQ-O-030, v1.8): todo keeps no audit log unless the
// operator turns it on — a read-only list writes nothing to the home, and
// audit-log answers AUDIT_LOG_DISABLED (exit 4); TODO_AUDIT_LOG=1 turns it
// on at the default place, an absolute path at that path, and any other
// value is refused (exit 2) before anything runs.
func TestE2EAuditLogOptIn(t *testing.T) { onEach(t, testAuditLogOptIn) }

func testAuditLogOptIn(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	auditFile := filepath.Join(sb.dir, "home", ".local", "state", "todo", "audit.jsonl") // the default place: no XDG_STATE_HOME
	for _, args := range [][]string{{"add", "a"}, {"list"}, {"show", "t1"}} {
		if r := sb.run(t, args...); r.code != 0 {
			t.Fatalf("todo %v: exit %d: %s", args, r.code, r.stdout)
		}
	}
	if _, err := os.Stat(auditFile); err == nil {
		t.Errorf("an audit log was written with nobody asking for one: %s", auditFile)
	}
	env := mustObject(t, []byte(sb.run(t, "list").stdout))
	if meta, _ := env["meta"].(map[string]any); meta["audit_log_path"] != nil {
		t.Errorf("meta.audit_log_path %v with the log off", meta["audit_log_path"])
	}
	r := sb.run(t, "audit-log")
	if e := errorOf(t, r); r.code != 4 || e["code"] != "AUDIT_LOG_DISABLED" {
		t.Errorf("audit-log with the log off: exit %d, error %v; want 4 AUDIT_LOG_DISABLED", r.code, e)
	}

	if r := sb.runEnv(t, []string{"TODO_AUDIT_LOG=1"}, "list"); r.code != 0 {
		t.Fatalf("TODO_AUDIT_LOG=1 todo list: exit %d", r.code)
	}
	raw, err := os.ReadFile(auditFile)
	if err != nil || len(raw) == 0 {
		t.Fatalf("TODO_AUDIT_LOG=1 wrote no entry at the default place: %v", err)
	}
	var entry map[string]any
	if err := json.Unmarshal(raw[:len(raw)-1], &entry); err != nil || entry["command"] != "list" {
		t.Errorf("the entry %s: %v; want one for list", raw, err)
	}
	own := filepath.Join(t.TempDir(), "audit.jsonl")
	sb.runEnv(t, []string{"TODO_AUDIT_LOG=" + own, "TODO_SESSION_ID=s-1"}, "list")
	raw, err = os.ReadFile(own)
	if err != nil || json.Unmarshal(raw[:len(raw)-1], &entry) != nil || entry["session_id"] != "s-1" {
		t.Errorf("TODO_AUDIT_LOG=<absolute path>: %s, %v; want an entry there with session_id s-1", raw, err)
	}
	for _, bad := range []string{"true", "logs/audit.jsonl"} {
		r := sb.runEnv(t, []string{"TODO_AUDIT_LOG=" + bad}, "add", "b")
		if e := errorOf(t, r); r.code != 2 || e["code"] != "INVALID_AUDIT_LOG_SETTING" {
			t.Errorf("TODO_AUDIT_LOG=%s: exit %d, error %v; want 2 INVALID_AUDIT_LOG_SETTING", bad, r.code, e)
		}
	}
	if r := sb.run(t, "list", "--status", "all", "--format", "id"); r.stdout != "t1\n" {
		t.Errorf("after the refused adds, the to-dos are %q; want t1 alone", r.stdout)
	}
}

// errorOf is the error object of r's envelope.
func errorOf(t *testing.T, r result) map[string]any {
	t.Helper()
	e, _ := mustObject(t, []byte(r.stdout))["error"].(map[string]any)
	return e
}
