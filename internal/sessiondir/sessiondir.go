// Package sessiondir keeps a tool's temporary files: one directory per
// invocation (a session), removed when the invocation ends, and directories
// of files kept for the caller to read after it ends, removed once they are
// old. All live under one private root per tool and user, created with mode
// 0700 and refused when anyone else owns it or can read it.
package sessiondir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Kinds of entries under a root.
const (
	Session = "temp" // an invocation's own directory
	Kept    = "kept" // files kept for the caller
)

const (
	sessionPrefix = "session-"
	keptPrefix    = "kept-"
)

// Root returns the tool's temp root under tmp: <tmp>/<tool>-<uid>. The uid
// keeps users of one machine apart.
func Root(tmp, tool string) string {
	return filepath.Join(tmp, safe(tool)+"-"+strconv.Itoa(os.Getuid()))
}

// ensureRoot creates root with mode 0700 if need be, and refuses a root that
// is not a directory of this user's closed to others: one made by another
// user could be read, or its entries swapped.
func ensureRoot(root string) error {
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return fmt.Errorf("temp root: %w", err)
	}
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("temp root: %w", err)
	}
	info, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("temp root: %w", err)
	}
	if !info.IsDir() || !private(info) {
		return fmt.Errorf("temp root %s is not a private directory of this user (mode %v); remove it", root, info.Mode())
	}
	return nil
}

// New makes a session directory in root for the invocation named session,
// mode 0700: session-<pid>-<session>-<random>, so two invocations never
// share one, and a process still running keeps its own from [Prune].
func New(root, session string) (string, error) {
	if err := ensureRoot(root); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, sessionPrefix+strconv.Itoa(os.Getpid())+"-"+safe(session)+"-")
	if err != nil {
		return "", fmt.Errorf("session temp dir: %w", err)
	}
	return dir, os.Chmod(dir, 0o700) // explicit: no umask can widen it
}

// Keep makes a directory, mode 0700, for files the caller reads after the
// invocation ends: kept-<session>-<random>. [Prune] removes it once it is
// older than the time given there.
func Keep(root, session string) (string, error) {
	if err := ensureRoot(root); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, keptPrefix+safe(session)+"-")
	if err != nil {
		return "", fmt.Errorf("kept files dir: %w", err)
	}
	return dir, os.Chmod(dir, 0o700)
}

// Entry is one directory under a root.
type Entry struct {
	Path  string
	Kind  string // Session or Kept
	Bytes int64  // the size of the files in it
	Age   time.Duration
	Live  bool // a session whose process still runs
}

// List returns the entries under root; a root that does not exist has none.
func List(root string, now time.Time) ([]Entry, error) {
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		name := de.Name()
		e := Entry{Path: filepath.Join(root, name)}
		switch {
		case strings.HasPrefix(name, sessionPrefix) && de.IsDir():
			e.Kind = Session
			pid, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(name, sessionPrefix), "-", 2)[0])
			e.Live = pid == os.Getpid() || alive(pid)
		case strings.HasPrefix(name, keptPrefix) && de.IsDir():
			e.Kind = Kept
		default:
			continue // not ours to judge
		}
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		e.Age = now.Sub(info.ModTime())
		e.Bytes = size(e.Path)
		out = append(out, e)
	}
	return out, nil
}

// Prune removes the sessions of processes that no longer run and the kept
// directories older than ttl, and returns what it removed. It runs at the
// start of an invocation, so what a killed process left is removed the
// next time the tool runs (no daemon does it). Where a process's liveness
// cannot be told, a session too is removed only once older than ttl.
func Prune(root string, ttl time.Duration, now time.Time) ([]Entry, error) {
	entries, err := List(root, now)
	if err != nil {
		return nil, err
	}
	var removed []Entry
	var errs []error
	for _, e := range entries {
		if e.Live || e.Age < ttl && (e.Kind == Kept || !canTell) {
			continue
		}
		if err := os.RemoveAll(e.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e)
	}
	return removed, errors.Join(errs...)
}

// size is the total size of the regular files under path.
func size(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// safe keeps the characters of s that are safe in a file name, at most 32.
func safe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else if r == '-' {
			b.WriteRune('_') // '-' separates the parts of a name
		}
		if b.Len() >= 32 {
			break
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}
