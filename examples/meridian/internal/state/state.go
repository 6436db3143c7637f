// Package state is Meridian's state layer: spaces and their runs, kept as
// files under .meridian/.spaces/ exactly as the Meridian spec lays them out.
//
//	.meridian/.gitignore              created with the first space
//	.meridian/.spaces/.lock           serializes space id allocation
//	.meridian/.spaces/<s1>/space.json space metadata, schema_version 1, written atomically
//	                   .../space.lock serializes space.json read-modify-write
//	                   .../runs.jsonl append-only run events, one compact JSON object a line
//	                   .../runs.lock  serializes run id allocation with the append
//	                   .../runs.tally.json the ended runs summed, a cache of the log (Tally)
//	                   .../runs/<r1>/ a run's artifacts
//	                   .../fs/        the agents' working directory, committed
//
// Every lock is an flock(2) on a lock file, so a process that dies releases
// it. Ids are allocated inside the same lock as the write that records them,
// so concurrent processes never share one. Readers of the JSONL logs skip a
// line that does not parse (a crash mid-append can leave one partial trailing
// line); a space.json that does not parse is reported, never rewritten.
package state

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/filelock"
)

// SchemaVersion is the version of space.json this package writes.
const SchemaVersion = 1

// Gitignore is the content of .meridian/.gitignore: everything under .spaces/
// stays local except each space's fs/, the agents' committed work product.
const Gitignore = ".spaces/**\n!.spaces/*/\n!.spaces/*/fs/\n!.spaces/*/fs/**\n"

// Space statuses.
const (
	Active = "active"
	Closed = "closed"
)

// Space is space.json.
type Space struct {
	SchemaVersion int     `json:"schema_version"`
	ID            string  `json:"id"`
	Name          *string `json:"name"`
	Status        string  `json:"status"`
	StartedAt     string  `json:"started_at"`
	FinishedAt    *string `json:"finished_at"`
}

// Root is a .meridian directory.
type Root struct{ Dir string }

// SpacesDir is .meridian/.spaces.
func (r Root) SpacesDir() string { return filepath.Join(r.Dir, ".spaces") }

// SpaceDir is the directory of the space with id.
func (r Root) SpaceDir(id string) string { return filepath.Join(r.SpacesDir(), id) }

var spaceID = regexp.MustCompile(`^s[1-9][0-9]*$`)

// ValidSpaceName reports why name cannot be a space's name (space.json's
// name): one line of at most 80 characters, no control characters. ""
// leaves a space unnamed.
func ValidSpaceName(name string) error {
	switch {
	case utf8.RuneCountInString(name) > 80:
		return errors.New("a space's name is at most 80 characters")
	case strings.ContainsFunc(name, unicode.IsControl):
		return errors.New("a space's name is one line, without control characters")
	case name != "" && strings.TrimSpace(name) == "":
		return errors.New("a space's name is not blank")
	}
	return nil
}

// ValidSpaceID reports why id cannot name a space: it must be s1, s2 ...; a
// path such as ../x never reaches the file system.
func ValidSpaceID(id string) error {
	if !spaceID.MatchString(id) {
		return fmt.Errorf("%q is not a space id (s1, s2, ...)", id)
	}
	return nil
}

// ErrNoSpace is returned for a space id with no directory.
var ErrNoSpace = errors.New("no such space")

// CorruptError reports a state file that exists but cannot be used. It is
// left as it is.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string { return fmt.Sprintf("%s is corrupt: %v", e.Path, e.Err) }
func (e *CorruptError) Unwrap() error { return e.Err }

// lockWait bounds every wait for a lock: a hung holder is reported, not waited on forever.
const lockWait = 30 * time.Second

// withLock runs fn holding the lock file path, waiting at most lockWait.
func withLock(ctx context.Context, path string, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	return filelock.With(ctx, path, fn)
}

// Timestamp formats t as the state files do: UTC, seconds, Z.
func Timestamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// CreateSpace allocates the next space id (one more than the highest s<N>
// directory; holes are not reused), creates the space with its fs/ and
// space.json, and makes sure .meridian/.gitignore exists. The space is made
// whole under a name no reader lists (.creating-s<N>) and renamed into
// place: killed at any moment, meridian leaves the space whole or not at
// all, never a directory without its space.json. What a killed creation
// left is removed by the next, under the same lock.
func (r Root) CreateSpace(ctx context.Context, name string, now time.Time) (Space, error) {
	if err := os.MkdirAll(r.SpacesDir(), 0o755); err != nil {
		return Space{}, err
	}
	var sp Space
	err := withLock(ctx, filepath.Join(r.SpacesDir(), ".lock"), func() error {
		entries, err := os.ReadDir(r.SpacesDir())
		if err != nil {
			return err
		}
		next := 1
		for _, e := range entries {
			if n, ok := numbered(e.Name(), "s"); ok && e.IsDir() && n >= next {
				next = n + 1
			}
			if strings.HasPrefix(e.Name(), creating) { // a creation killed before its rename
				os.RemoveAll(filepath.Join(r.SpacesDir(), e.Name()))
			}
		}
		sp = Space{SchemaVersion: SchemaVersion, ID: "s" + strconv.Itoa(next), Status: Active, StartedAt: Timestamp(now)}
		if name != "" {
			sp.Name = &name
		}
		dir := r.SpaceDir(sp.ID)
		tmp := filepath.Join(r.SpacesDir(), creating+sp.ID)
		if err := os.Mkdir(tmp, 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(tmp, "fs"), 0o755); err != nil {
			return err
		}
		if err := writeSpace(tmp, sp); err != nil {
			return err
		}
		if _, err := os.Lstat(dir); err == nil { // never two spaces in one directory
			os.RemoveAll(tmp)
			return fmt.Errorf("%s exists already", dir)
		}
		return os.Rename(tmp, dir)
	})
	if err != nil {
		return Space{}, fmt.Errorf("create space: %w", err)
	}
	return sp, r.ensureGitignore()
}

// RemoveTorn removes the space directory id when it is what a creation
// killed before it wrote space.json leaves — an older meridian made spaces
// in place — and holds nothing else: no space.json, and nothing but an
// empty fs/ and space.json's temporary files. It reports whether it did; a
// directory holding anything more is a space's, and is left alone.
func (r Root) RemoveTorn(ctx context.Context, id string) (bool, error) {
	if err := ValidSpaceID(id); err != nil {
		return false, err
	}
	removed := false
	err := withLock(ctx, filepath.Join(r.SpacesDir(), ".lock"), func() error {
		dir := r.SpaceDir(id)
		if !tornSpace(dir) {
			return nil
		}
		removed = true
		return os.RemoveAll(dir)
	})
	return removed, err
}

// tornSpace reports whether dir holds no more than a creation killed before
// it wrote space.json leaves.
func tornSpace(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "fs" && e.IsDir():
			if inner, err := os.ReadDir(filepath.Join(dir, name)); err != nil || len(inner) > 0 {
				return false
			}
		case tempOf(name, "space.json"):
		default:
			return false // space.json, runs, chats: a space, torn or not, is a person's to look at
		}
	}
	return true
}

// StaleTemp lists the temporary files of atomic writes that a killed
// meridian left in the state directory (".<file>.<n>.tmp", renamed over
// <file> when the write completes) and that are older than minAge, so no
// longer being written. A space's fs/ is the agents' and is not looked in.
func (r Root) StaleTemp(now time.Time, minAge time.Duration) []string {
	var stale []string
	filepath.WalkDir(r.Dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // gone meanwhile, or unreadable: not ours to judge
		case d.IsDir() && d.Name() == "fs" && filepath.Dir(filepath.Dir(path)) == r.SpacesDir():
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		if _, ok := atomicfile.TempOf(d.Name()); !ok {
			return nil
		}
		if info, err := d.Info(); err == nil && now.Sub(info.ModTime()) >= minAge {
			stale = append(stale, path)
		}
		return nil
	})
	return stale
}

// tempOf reports whether name is a temporary file of a write of target.
func tempOf(name, target string) bool {
	t, ok := atomicfile.TempOf(name)
	return ok && t == target
}

// creating starts the name a space has while it is made (CreateSpace).
const creating = ".creating-"

func (r Root) ensureGitignore() error {
	path := filepath.Join(r.Dir, ".gitignore")
	if got, err := os.ReadFile(path); err == nil && string(got) == Gitignore {
		return nil
	}
	return atomicfile.Write(path, []byte(Gitignore), 0o644)
}

// numbered parses "<prefix><N>" with N ≥ 1.
func numbered(s, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || rest == "" || rest[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

// Space reads space.json of the space with id.
func (r Root) Space(id string) (Space, error) {
	if err := ValidSpaceID(id); err != nil {
		return Space{}, err
	}
	return readSpace(r.SpaceDir(id))
}

func readSpace(dir string) (Space, error) {
	path := filepath.Join(dir, "space.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, derr := os.Stat(dir); derr != nil {
			return Space{}, fmt.Errorf("%s: %w", filepath.Base(dir), ErrNoSpace)
		}
		return Space{}, &CorruptError{Path: path, Err: errors.New("missing")}
	}
	if err != nil {
		return Space{}, &CorruptError{Path: path, Err: err}
	}
	var sp Space
	if err := json.Unmarshal(raw, &sp); err != nil {
		return Space{}, &CorruptError{Path: path, Err: err}
	}
	switch {
	case sp.SchemaVersion != SchemaVersion:
		return Space{}, &CorruptError{Path: path, Err: fmt.Errorf("schema_version %d, want %d", sp.SchemaVersion, SchemaVersion)}
	case sp.ID != filepath.Base(dir):
		return Space{}, &CorruptError{Path: path, Err: fmt.Errorf("id %q in directory %s", sp.ID, filepath.Base(dir))}
	case sp.Status != Active && sp.Status != Closed:
		return Space{}, &CorruptError{Path: path, Err: fmt.Errorf("status %q", sp.Status)}
	}
	return sp, nil
}

// Spaces reads every space, by id. A space whose space.json is missing or
// corrupt is left out and reported in problems.
func (r Root) Spaces() (spaces []Space, problems []error, err error) {
	entries, err := os.ReadDir(r.SpacesDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	type numberedSpace struct {
		n  int
		sp Space
	}
	var found []numberedSpace
	for _, e := range entries {
		n, ok := numbered(e.Name(), "s")
		if !ok || !e.IsDir() {
			continue
		}
		sp, err := readSpace(r.SpaceDir(e.Name()))
		if err != nil {
			problems = append(problems, err)
			continue
		}
		found = append(found, numberedSpace{n, sp})
	}
	slices.SortFunc(found, func(a, b numberedSpace) int { return cmp.Compare(a.n, b.n) })
	for _, f := range found {
		spaces = append(spaces, f.sp)
	}
	return spaces, problems, nil
}

// UpdateSpace changes space.json under space.lock and writes it atomically.
// A corrupt file is not touched.
func (r Root) UpdateSpace(ctx context.Context, id string, change func(*Space) error) (Space, error) {
	if err := ValidSpaceID(id); err != nil {
		return Space{}, err
	}
	dir := r.SpaceDir(id)
	if _, err := os.Stat(dir); err != nil {
		return Space{}, fmt.Errorf("%s: %w", id, ErrNoSpace)
	}
	var sp Space
	err := withLock(ctx, filepath.Join(dir, "space.lock"), func() error {
		var err error
		if sp, err = readSpace(dir); err != nil {
			return err
		}
		if err := change(&sp); err != nil {
			return err
		}
		return writeSpace(dir, sp)
	})
	return sp, err
}

func writeSpace(dir string, sp Space) error {
	raw, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "space.json"), append(raw, '\n'), 0o644)
}
