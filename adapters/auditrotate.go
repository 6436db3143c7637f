package adapters

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/duet-cli/duet/internal/filelock"
)

// Bounding the audit log (the CLI Agent Spec's F-042, O-030): Duet's only
// log file grows by a line an invocation, so before a line is appended the
// file is rotated when the line would take it past MaxBytes or when its
// first entry is older than MaxAge (audit.jsonl becomes audit.jsonl.1, .1
// becomes .2, ... and the one past Keep is deleted), and files not written
// for MaxAge are deleted. The disk the log takes is at most (Keep+1) ×
// MaxBytes, however many invocations there are, and no entry outlives
// MaxAge by more than the time its file takes to fill. The check costs two
// stat(2)s and the read of one line; rotating is done under a lock, so
// invocations that run at once rotate once.

// AuditLogLimits bound the audit log's disk use. A zero field takes its
// default.
type AuditLogLimits struct {
	MaxBytes int64         // rotate before the file would grow past this; default 10 MiB
	Keep     int           // rotated files kept, audit.jsonl.1 the newest; default 5
	MaxAge   time.Duration // delete a log file not written for this long; default 30 days
}

// Default audit log limits.
const (
	defaultAuditLogMaxBytes = 10 << 20
	defaultAuditLogKeep     = 5
	defaultAuditLogMaxAge   = 30 * 24 * time.Hour
)

// WithAuditLogLimits sets how large the audit log grows, how many rotated
// files are kept and how old a file may get.
func WithAuditLogLimits(l AuditLogLimits) Option {
	return func(c *config) { c.auditLimits = l }
}

func (l AuditLogLimits) withDefaults() AuditLogLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = defaultAuditLogMaxBytes
	}
	if l.Keep <= 0 {
		l.Keep = defaultAuditLogKeep
	}
	if l.MaxAge <= 0 {
		l.MaxAge = defaultAuditLogMaxAge
	}
	return l
}

// rotatedAuditLog is the name of the n-th rotated file of the log at path.
func rotatedAuditLog(path string, n int) string { return fmt.Sprintf("%s.%d", path, n) }

// boundAuditLog makes room for a line of n bytes in the log at path: now
// judges its files by their modification times, stamped (the same time on
// the clock of the entries' timestamps, WithClock) its first entry.
func boundAuditLog(ctx context.Context, path string, n int, l AuditLogLimits, now, stamped time.Time) error {
	l = l.withDefaults()
	// Rotated files are numbered oldest last, so the walk ends at the first
	// gap; it goes past Keep to delete what a larger Keep left.
	for i := 1; i <= l.Keep+16; i++ {
		name := rotatedAuditLog(path, i)
		fi, err := os.Stat(name)
		if err != nil {
			break
		}
		if i > l.Keep || now.Sub(fi.ModTime()) > l.MaxAge {
			os.Remove(name)
		}
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // none yet
	case now.Sub(fi.ModTime()) > l.MaxAge:
		return os.Remove(path) // every entry in it is older
	}
	due := func(fi os.FileInfo) bool {
		full := fi.Size() > 0 && fi.Size()+int64(n) > l.MaxBytes
		return full || firstAuditEntryBefore(path, stamped.Add(-l.MaxAge))
	}
	if !due(fi) {
		return nil
	}
	return filelock.With(ctx, path+".lock", func() error {
		fi, err := os.Stat(path)
		if err != nil || !due(fi) {
			return nil // another invocation rotated it
		}
		if err := os.Remove(rotatedAuditLog(path, l.Keep)); err != nil && !os.IsNotExist(err) {
			return err
		}
		for i := l.Keep - 1; i >= 1; i-- {
			if err := os.Rename(rotatedAuditLog(path, i), rotatedAuditLog(path, i+1)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return os.Rename(path, rotatedAuditLog(path, 1))
	})
}

// firstAuditEntryBefore reports whether the first entry of the log at path
// was made before cutoff. A first line that is not an entry says nothing.
func firstAuditEntryBefore(path string, cutoff time.Time) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, maxAuditEntry).ReadSlice('\n')
	if err != nil {
		return false
	}
	var e struct{ Timestamp string }
	if json.Unmarshal(line, &e) != nil {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	return err == nil && t.Before(cutoff)
}

// auditLogFiles are the files of the log at path that exist, oldest first.
func auditLogFiles(path string) []string {
	var files []string
	for i := 1; ; i++ {
		name := rotatedAuditLog(path, i)
		if _, err := os.Stat(name); err != nil {
			break
		}
		files = append([]string{name}, files...)
	}
	return append(files, path)
}
