//go:build linux

package e2e

// Long work, end to end: idempotent creates, ALREADY_EXISTS, batches,
// multi-step archive with rollback and resume, the lock on the to-do file,
// async export followed with `todo job`, and `todo cleanup`.

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// longSandbox is a sandbox whose temp files are its own too.
func longSandbox(t *testing.T, bin string) *sandbox {
	sb := newSandbox(t, bin)
	sb.env = append(sb.env, "TMPDIR="+filepath.Join(sb.dir, "tmp"))
	if err := os.MkdirAll(filepath.Join(sb.dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	return sb
}

func (sb *sandbox) expect(t *testing.T, code int, want map[string]any, args ...string) map[string]any {
	t.Helper()
	env := expectEnvelope(t, args[0], sb.run(t, args...), code)
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("todo %q (-want +got):\n%s", args, diff)
	}
	return env
}

// TestE2ECreateTwice: C-007 (an --idempotency-key replays the first answer
// with effect noop) and C-028 (a create of an id that exists answers
// ALREADY_EXISTS with the resource as data; a delete of a missing one
// succeeds with status not_found).
func TestE2ECreateTwice(t *testing.T) { onEach(t, testCreateTwice) }

func testCreateTwice(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	first := sb.expect(t, 0, map[string]any{"meta.effect": "created", "data.id": "t1"}, "add", "ship it", "--idempotency-key", "k-1")
	second := sb.expect(t, 0, map[string]any{"meta.effect": "noop", "meta.idempotency_hit": true}, "add", "ship it", "--idempotency-key", "k-1")
	if diff := cmp.Diff(first["data"], second["data"]); diff != "" {
		t.Errorf("replayed data (-first +second):\n%s", diff)
	}
	sb.expect(t, 6, map[string]any{"error.code": "IDEMPOTENCY_KEY_REUSED"}, "add", "other", "--idempotency-key", "k-1")
	sb.expectIDs(t, "after a replayed add", "t1")

	sb.expect(t, 0, map[string]any{"meta.effect": "created", "data.id": "ship"}, "add", "ship", "--id", "ship")
	exists := sb.expect(t, 6, map[string]any{"ok": false, "error.code": "ALREADY_EXISTS", "error.conflict_id": "ship", "error.retryable": false,
		"data.id": "ship", "data.title": "ship"}, "add", "ship again", "--id", "ship")
	if w, _ := exists["warnings"].([]any); len(w) != 0 {
		t.Errorf("ALREADY_EXISTS, a code its exit lists, answered with warnings %v", w)
	}
	sb.expect(t, 0, map[string]any{"meta.effect": "noop", "data.status": "not_found", "data.id": "nope"}, "remove", "nope", "--yes")
	sb.expect(t, 0, map[string]any{"meta.effect": "deleted", "data.status": "deleted"}, "remove", "ship", "--yes")

	// v1.13: the CONFLICT entry lists the codes an agent meets under it.
	schema := sb.expect(t, 0, map[string]any{}, "add", "--schema")
	if diff := cmp.Diff([]any{"ALREADY_EXISTS", "IDEMPOTENCY_KEY_REUSED"}, get(schema, "data.exit_codes.6.error_codes")); diff != "" {
		t.Errorf("add --schema: exit 6's error_codes (-want +got):\n%s", diff)
	}
	manifest := sb.expect(t, 0, map[string]any{}, "manifest")
	if diff := cmp.Diff([]any{"ALREADY_EXISTS", "IDEMPOTENCY_KEY_REUSED"}, get(manifest, "data.commands.add.exit_codes.6.error_codes")); diff != "" {
		t.Errorf("manifest: add's exit 6 error_codes (-want +got):\n%s", diff)
	}
	schema = sb.expect(t, 0, map[string]any{}, "remove", "--schema")
	if get(schema, "data.exit_codes.5") == nil || get(schema, "data.exit_codes.0") == nil {
		t.Errorf("remove --schema does not declare 0 and 5: %v", get(schema, "data.exit_codes"))
	}
}

// TestE2EBatch: C-009: a batch answers summary and results, and a partial
// success exits 3.
func TestE2EBatch(t *testing.T) { onEach(t, testBatch) }

func testBatch(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	sb.seed(t, item("t1", "a", false), item("t2", "b", false))
	env := sb.expect(t, 3, map[string]any{"error.code": "PARTIAL_FAILURE", "data.partial": true,
		"data.summary.total": 3.0, "data.summary.succeeded": 2.0, "data.summary.failed": 1.0,
		"data.results.0.ok": true, "data.results.2.ok": false, "data.results.2.error.code": "TODO_NOT_FOUND", "data.results.2.error.retryable": false,
	}, "tag", "urgent", "t1", "t2", "t9")
	if get(env, "data.results.2.error.message") == "" {
		t.Error("an item error without a message")
	}
	sb.expect(t, 0, map[string]any{"data.summary.failed": 0.0, "meta.effect": "noop"}, "tag", "urgent", "t1", "t2")
	sb.expect(t, 5, map[string]any{"error.code": "BATCH_FAILED", "data.summary.failed": 1.0}, "tag", "urgent", "t9")
}

// TestE2EArchiveSteps: C-008, O-010, O-011: archive's steps in --schema; a
// failed step after a completed one is exit 3 with the steps completed,
// failed and skipped; --rollback-on-failure undoes them; --resume-from
// skips the steps before it.
func TestE2EArchiveSteps(t *testing.T) { onEach(t, testArchiveSteps) }

func testArchiveSteps(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	sb.seed(t, item("t1", "a", true), item("t2", "b", false))
	sb.expect(t, 0, map[string]any{"data.steps": []any{"backup", "archive", "prune"}, "data.resumable": true, "data.rollback_available": true}, "archive", "--schema")

	bad := filepath.Join(sb.dir, "missing", "archive.json")
	sb.expect(t, 3, map[string]any{"error.code": "ARCHIVE_UNWRITABLE", "data.completed_steps": []any{"backup"}, "data.failed_step": "archive",
		"data.skipped_steps": []any{"prune"}, "data.resume_from": "archive", "meta.steps.failed_step": "archive"}, "archive", "--to", bad)
	if _, err := os.Stat(sb.file + ".bak"); err != nil {
		t.Errorf("without rollback the backup stays: %v", err)
	}
	os.Remove(sb.file + ".bak")
	sb.expect(t, 3, map[string]any{"data.rollback_status": "completed", "data.failed_step": "archive"}, "archive", "--to", bad, "--rollback-on-failure")
	if _, err := os.Stat(sb.file + ".bak"); !os.IsNotExist(err) {
		t.Errorf("after rollback the backup is still there: %v", err)
	}

	good := filepath.Join(sb.dir, "archive.json")
	sb.expect(t, 0, map[string]any{"meta.steps.skipped_steps": []any{"backup"}, "meta.steps.completed_steps": []any{"archive", "prune"},
		"data.archived": 1.0, "meta.effect": "updated"}, "archive", "--to", good, "--resume-from", "archive")
	sb.expectIDs(t, "after archive", "t2")
	sb.expect(t, 2, map[string]any{"error.phase": "validation"}, "archive", "--resume-from", "nope")
}

// holdLock takes the to-do file's lock as another process would.
func holdLock(t *testing.T, sb *sandbox) (release func()) {
	t.Helper()
	f, err := os.OpenFile(sb.file+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			f.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestE2ELockHeld: F-033: a change that cannot get the to-do file's lock
// in time answers LOCK_HELD, exit 4, retryable with retry_after_ms.
func TestE2ELockHeld(t *testing.T) { onEach(t, testLockHeld) }

func testLockHeld(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	release := holdLock(t, sb)
	env := sb.expect(t, 4, map[string]any{"error.code": "LOCK_HELD", "error.retryable": true}, "add", "x", "--timeout", "300ms")
	if ms, _ := get(env, "error.retry_after_ms").(float64); ms <= 0 {
		t.Errorf("retry_after_ms = %v", get(env, "error.retry_after_ms"))
	}
	release()
	sb.expect(t, 0, map[string]any{"meta.effect": "created"}, "add", "x")
}

// TestE2EAsyncJob: C-022: export answers a job descriptor at once; `job
// status` exits 14 (INCOMPLETE, not PARTIAL_FAILURE's 3: v1.15) while it
// runs, 0 once complete, 4 once cancelled, 5 for no such job; the answer's
// output file comes with its cleanup.
func TestE2EAsyncJob(t *testing.T) { onEach(t, testAsyncJob) }

func testAsyncJob(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	sb.seed(t, item("t1", "a", false))
	schema := sb.expect(t, 0, map[string]any{"data.async": true, "data.job_descriptor_schema.type": "object"}, "export", "--schema")
	required, _ := get(schema, "data.job_descriptor_schema.required").([]any)
	for _, f := range []string{"job_id", "status", "terminal", "status_command", "cancel_command", "poll_interval_ms", "timeout_ms"} {
		if !slices.Contains(required, any(f)) {
			t.Errorf("job descriptor schema does not require %s", f)
		}
	}

	release := holdLock(t, sb) // the job waits for the to-do file
	started := sb.expect(t, 0, map[string]any{"data.status": "running", "data.terminal": false, "data.timeout_ms": 600000.0}, "export")
	id, _ := get(started, "data.job_id").(string)
	if id == "" || get(started, "data.status_command") != "todo job status "+id || get(started, "data.cancel_command") != "todo job cancel "+id {
		t.Fatalf("descriptor %v", get(started, "data"))
	}
	if ms, _ := get(started, "data.poll_interval_ms").(float64); ms <= 0 {
		t.Errorf("poll_interval_ms = %v", ms)
	}
	sb.expect(t, 14, map[string]any{"error.code": "INCOMPLETE", "error.retryable": true, "data.status": "running"}, "job", "status", id)
	release()
	done := sb.expect(t, 0, map[string]any{"data.status": "complete", "data.terminal": true, "data.result.count": 1.0,
		"data.result.cleanup.auto_cleanup_after_seconds": 3600.0}, "job", "status", id, "--wait")
	file, _ := get(done, "data.result.output_file").(string)
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("output file %s: %v", file, err)
	}

	release = holdLock(t, sb)
	started = sb.expect(t, 0, map[string]any{"data.status": "running"}, "export")
	id2, _ := get(started, "data.job_id").(string)
	sb.expect(t, 0, map[string]any{"data.status": "cancelled", "meta.effect": "updated"}, "job", "cancel", id2)
	sb.expect(t, 4, map[string]any{"error.code": "JOB_CANCELLED", "data.status": "cancelled"}, "job", "status", id2)
	release()
	sb.expect(t, 5, map[string]any{"error.code": "JOB_NOT_FOUND"}, "job", "status", "export-00000000")

	// cleanup: --scope cache leaves jobs and temp files alone; --min-age
	// leaves what is younger; the output file of the first job goes.
	sb.expect(t, 0, map[string]any{"meta.effect": "noop"}, "cleanup", "--scope", "cache", "--yes")
	if _, err := os.Stat(file); err != nil {
		t.Errorf("--scope cache removed the output file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sb.dir, "home", ".local", "state", "todo", "jobs", id+".out")); err != nil {
		t.Errorf("--scope cache removed the job's output: %v", err)
	}
	sb.expect(t, 0, map[string]any{"meta.effect": "noop", "data.total_bytes_freed": 0.0}, "cleanup", "--min-age", "3600", "--yes")
	tmp := sb.expect(t, 0, map[string]any{"meta.effect": "deleted", "data.cleaned.0.path": filepath.Dir(file), "data.cleaned.0.type": "temp"},
		"cleanup", "--scope", "temp", "--yes")
	if freed, _ := get(tmp, "data.total_bytes_freed").(float64); freed <= 0 {
		t.Errorf("total_bytes_freed = %v", get(tmp, "data.total_bytes_freed"))
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("--scope temp left the output file: %v", err)
	}
	sb.expect(t, 0, map[string]any{"meta.effect": "deleted"}, "cleanup", "--scope", "jobs", "--yes")
	sb.expect(t, 5, map[string]any{"error.code": "JOB_NOT_FOUND"}, "job", "status", id)
}
