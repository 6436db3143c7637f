package adapters_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
)

// TestAuditLogRotation: the audit log, Duet's only log file, is rotated
// before a line would take it past its size limit, keeps only so many
// rotated files, deletes files not written for longer than the maximum
// age when an invocation starts writing, and so stays bounded across any
// number of invocations; audit-log still reads the rotated files (F-042).
func TestAuditLogRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	const maxBytes, keep = 1000, 2
	opts := []urfave.Option{adapters.WithAuditLog(path), adapters.WithAuditLogLimits(adapters.AuditLogLimits{MaxBytes: maxBytes, Keep: keep, MaxAge: time.Hour})}
	run := func(args ...string) result { return obsRun{opts: opts}.do(t, &observed{}, args...) }

	// Lines differ in length (a duration, a time), so the rotation is
	// checked against what was written, not predicted: the run whose line
	// would not fit rotates, and the new log holds that line alone.
	var perFile, before int64 // lines the first file held; its size before the run that rotated
	for perFile = 0; ; perFile++ {
		wantOK(t, run("where"))
		rotated, err := os.Stat(path + ".1")
		fi, statErr := os.Stat(path)
		if statErr != nil {
			t.Fatal(statErr)
		}
		if err != nil {
			if fi.Size() > maxBytes {
				t.Fatalf("the log holds %d bytes, past its limit of %d, and was not rotated", fi.Size(), maxBytes)
			}
			before = fi.Size()
			if perFile > maxBytes {
				t.Fatal("never rotated")
			}
			continue
		}
		raw, _ := os.ReadFile(path)
		if n := bytes.Count(raw, []byte("\n")); n != 1 {
			t.Errorf("the new log holds %d lines, want the one just written", n)
		}
		if rotated.Size() != before {
			t.Errorf("the rotated file holds %d bytes, want the whole old log of %d", rotated.Size(), before)
		}
		if before+fi.Size() <= maxBytes {
			t.Errorf("rotated at %d bytes, though the line of %d fit within %d", before, fi.Size(), maxBytes)
		}
		break
	}
	if perFile < 2 {
		t.Fatalf("the first file held %d lines: the test's limit is too small for its lines", perFile)
	}

	for range 10 * perFile {
		wantOK(t, run("where"))
	}
	files, _ := filepath.Glob(path + "*")
	slices.Sort(files)
	if want := []string{path, path + ".1", path + ".2"}; !slices.Equal(files[:min(3, len(files))], want) || len(files) > 4 { // + .lock
		t.Errorf("files %v, want the log, %d rotated and the lock", files, keep)
	}
	var total int64
	for _, f := range files {
		fi, _ := os.Stat(f)
		total += fi.Size()
		if fi.Size() > maxBytes {
			t.Errorf("%s holds %d bytes, past the limit of %d", f, fi.Size(), maxBytes)
		}
	}
	if total > (keep+1)*maxBytes {
		t.Errorf("the log takes %d bytes after many invocations, want at most %d", total, (keep+1)*maxBytes)
	}

	w := wantOK(t, run("audit-log", "--limit", "0"))
	var answer struct{ Entries []map[string]any }
	json.Unmarshal(w.Data, &answer)
	if min := int(2 * perFile); len(answer.Entries) < min {
		t.Errorf("audit-log reads %d entries, want the rotated files' too (at least %d)", len(answer.Entries), min)
	}

	old := time.Now().Add(-2 * time.Hour)
	for _, f := range []string{path + ".1", path + ".2"} {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	wantOK(t, run("where"))
	for _, f := range []string{path + ".1", path + ".2"} {
		// the run may have rotated again: what is there must be new
		if fi, err := os.Stat(f); err == nil && fi.ModTime().Before(time.Now().Add(-time.Hour)) {
			t.Errorf("%s, older than the maximum age, was not deleted", f)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the current log went: %v", err)
	}
}
