//go:build linux

package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2EStatusDuetStores: REQ-O-028: `todo status --show-state-files` and
// `--show-side-effects` list what Duet itself keeps for todo — the audit log
// (TODO_AUDIT_LOG=1), the jobs store (export is async) and the idempotency
// store (--idempotency-key) — each at its absolute path, existing, with its
// size; the state files with their summaries: the audit log's {entries},
// the jobs store's {jobs, by_status}, the idempotency store's {keys,
// expired, in_use}. Every path either list gives is absolute.
func TestE2EStatusDuetStores(t *testing.T) { onEach(t, testStatusDuetStores) }

func testStatusDuetStores(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	audit := []string{"TODO_AUDIT_LOG=1"} // the agent runtime keeps the log on
	expectEnvelope(t, "add", sb.runEnv(t, audit, "add", "x", "--idempotency-key", "k1"), 0)
	started := expectEnvelope(t, "export", sb.runEnv(t, audit, "export"), 0)
	id, _ := get(started, "data.job_id").(string)
	if id == "" {
		t.Fatalf("export answered no job: %v", started["data"])
	}
	// The job records its end after its answer and its audit entry: once
	// it is complete, nothing more is written to the stores.
	sb.expect(t, 0, map[string]any{"data.status": "complete"}, "job", "status", id, "--wait")

	state := filepath.Join(sb.dir, "home", ".local", "state", "todo") // no XDG_STATE_HOME: HOME/.local/state
	auditLog := filepath.Join(state, "audit.jsonl")
	jobs, idem := filepath.Join(state, "jobs"), filepath.Join(state, "idempotency")
	type report struct {
		Exists  bool
		Size    any
		Type    any // side effects only
		Summary any // state files only
	}
	// now is what status should report of the stores at this moment: the
	// audit log as it is before the call adds its own entry.
	now := func(stateFiles bool) map[string]report {
		raw, err := os.ReadFile(auditLog)
		if err != nil {
			t.Fatalf("the audit log: %v", err)
		}
		entries := bytes.Count(raw, []byte("\n"))
		if entries < 3 { // add, export, the export's job
			t.Fatalf("premise: the audit log holds %d entries, want the add, the export and its job at least", entries)
		}
		if stateFiles {
			return map[string]report{
				auditLog: {true, float64(len(raw)), nil, map[string]any{"entries": float64(entries)}},
				jobs:     {true, dirSize(t, jobs), nil, map[string]any{"jobs": 1.0, "by_status": map[string]any{"complete": 1.0}}},
				idem:     {true, dirSize(t, idem), nil, map[string]any{"keys": 1.0, "expired": 0.0, "in_use": 0.0}},
			}
		}
		return map[string]report{
			auditLog: {true, float64(len(raw)), "file", nil},
			jobs:     {true, dirSize(t, jobs), "directory", nil},
			idem:     {true, dirSize(t, idem), "directory", nil},
		}
	}
	tests := []struct {
		flag, list, other string   // other: the list the flag does not ask for
		fields            []string // the keys each entry of the list has
	}{
		{"--show-state-files", "state_files", "side_effects", []string{"exists", "path", "purpose", "size_bytes", "summary"}},
		{"--show-side-effects", "side_effects", "state_files", []string{"exists", "path", "purpose", "size_bytes", "type"}},
	}
	for _, tt := range tests {
		want := now(tt.list == "state_files")
		env := expectEnvelope(t, "status "+tt.flag, sb.runEnv(t, audit, "status", tt.flag), 0)
		listed, ok := get(env, "data."+tt.list).([]any)
		if !ok {
			t.Errorf("status %s: data.%s is %v, want a list", tt.flag, tt.list, get(env, "data."+tt.list))
			continue
		}
		got := map[string]report{}
		for _, e := range listed {
			entry, _ := e.(map[string]any)
			// A path one of todo's commands declares carries its kind too
			// (C-011): cache, log, temp, credential, config or output.
			fields := slices.DeleteFunc(keys(entry), func(k string) bool { return k == "kind" && tt.list == "side_effects" })
			if diff := cmp.Diff(tt.fields, fields); diff != "" {
				t.Errorf("status %s: an entry's keys (-want +got):\n%s", tt.flag, diff)
			}
			path, _ := entry["path"].(string)
			if !filepath.IsAbs(path) {
				t.Errorf("status %s: path %q is not absolute", tt.flag, path)
			}
			if _, ok := want[path]; ok {
				got[path] = report{Exists: entry["exists"] == true, Size: entry["size_bytes"], Type: entry["type"], Summary: entry["summary"]}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("status %s: Duet's stores (-want +got):\n%s", tt.flag, diff)
		}
		if get(env, "data."+tt.other) != nil {
			t.Errorf("status %s answered %s too", tt.flag, tt.other)
		}
	}
	for _, p := range []string{auditLog, jobs, idem} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// dirSize is the size of the files under dir, at any depth, as status
// counts a directory's.
func dirSize(t *testing.T, dir string) float64 {
	t.Helper()
	var total int64
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
			files++
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("premise: %s holds no files: %v", dir, err)
	}
	return float64(total)
}
