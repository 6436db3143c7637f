// Package todo is the domain of the example app: a to-do list kept in one
// JSON file, shared by every build of the command line.
package todo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/safefile"
)

// Priorities an item can have, in order.
var Priorities = []string{"low", "normal", "high"}

// Item is one to-do.
type Item struct {
	ID       string    `json:"id" doc:"stable id such as t3"`
	Title    string    `json:"title"`
	Priority string    `json:"priority"`
	Done     bool      `json:"done"`
	Tags     []string  `json:"tags"`
	Created  time.Time `json:"created"`
}

// ErrNotFound is returned for an id the list does not hold.
var ErrNotFound = errors.New("no such item")

// ExistsError is returned by Add for an id the list holds already.
type ExistsError struct{ Item Item }

func (e *ExistsError) Error() string { return "a to-do with id " + e.Item.ID + " exists" }

// file is the on-disk format.
type file struct {
	Version int    `json:"version"`
	Next    int    `json:"next"`
	Items   []Item `json:"items"`
}

// Store is a to-do list in a JSON file. Every change is made under an
// exclusive lock on a sibling lock file and written atomically (temp file,
// fsync, rename), so concurrent processes never lose an item.
type Store struct {
	Path string
	Now  func() time.Time
	// Lock runs fn holding an exclusive lock on the lock file path. Nil
	// takes an flock(2) and waits for it as long as it takes.
	Lock func(ctx context.Context, path string, fn func() error) error
}

// DefaultPath is $XDG_DATA_HOME/todo/todo.json, or ~/.local/share/todo/todo.json.
func DefaultPath() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "todo", "todo.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "todo.json"
	}
	return filepath.Join(home, ".local", "share", "todo", "todo.json")
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now().UTC().Truncate(time.Second)
}

// List returns every item; status is "open", "done" or "all".
func (s *Store) List(status string) ([]Item, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	items := []Item{}
	for _, it := range f.Items {
		if status == "all" || status == "" || (status == "done") == it.Done {
			items = append(items, it)
		}
	}
	return items, nil
}

// Get returns the item with id.
func (s *Store) Get(id string) (Item, error) {
	f, err := s.read()
	if err != nil {
		return Item{}, err
	}
	for _, it := range f.Items {
		if it.ID == id {
			return it, nil
		}
	}
	return Item{}, fmt.Errorf("%s: %w", id, ErrNotFound)
}

// Add creates an item, under id when it is not empty (an *ExistsError when
// the list holds that id), else under the next free id t<n>.
func (s *Store) Add(ctx context.Context, id, title, priority string, tags []string) (Item, error) {
	var added Item
	err := s.update(ctx, func(f *file) error {
		if id != "" {
			if i := slices.IndexFunc(f.Items, func(it Item) bool { return it.ID == id }); i >= 0 {
				return &ExistsError{Item: f.Items[i]}
			}
		}
		for id == "" || slices.ContainsFunc(f.Items, func(it Item) bool { return it.ID == id }) {
			f.Next++
			id = "t" + strconv.Itoa(f.Next)
		}
		added = Item{ID: id, Title: title, Priority: priority, Tags: tags, Created: s.now()}
		f.Items = append(f.Items, added)
		return nil
	})
	return added, err
}

// New is an item to add: what AddAll takes.
type New struct {
	Title    string
	Priority string
	Tags     []string
}

// AddAll creates items, all in one change to the file: every one or none.
func (s *Store) AddAll(ctx context.Context, news []New) ([]Item, error) {
	added := []Item{}
	err := s.update(ctx, func(f *file) error {
		for _, n := range news {
			f.Next++
			it := Item{ID: "t" + strconv.Itoa(f.Next), Title: n.Title, Priority: n.Priority, Tags: n.Tags, Created: s.now()}
			f.Items = append(f.Items, it)
			added = append(added, it)
		}
		return nil
	})
	return added, err
}

// Remove deletes the item with id and returns it; found is false when the
// list has no such item. With dryRun it changes nothing.
func (s *Store) Remove(ctx context.Context, id string, dryRun bool) (it Item, found bool, err error) {
	if dryRun {
		it, err = s.Get(id)
		if errors.Is(err, ErrNotFound) {
			return Item{}, false, nil
		}
		return it, err == nil, err
	}
	err = s.update(ctx, func(f *file) error {
		i := slices.IndexFunc(f.Items, func(it Item) bool { return it.ID == id })
		if i >= 0 {
			it, found = f.Items[i], true
			f.Items = slices.Delete(f.Items, i, i+1)
		}
		return nil
	})
	return it, found, err
}

// Tagged is what Tag did to one item.
type Tagged struct {
	ID      string
	Item    Item
	Changed bool  // the tag was added, not there already
	Err     error // ErrNotFound for an id the list does not hold
}

// Tag adds tag to each item of ids, in one change of the file.
func (s *Store) Tag(ctx context.Context, tag string, ids []string) ([]Tagged, error) {
	var out []Tagged
	err := s.update(ctx, func(f *file) error {
		out = out[:0]
		for _, id := range ids {
			i := slices.IndexFunc(f.Items, func(it Item) bool { return it.ID == id })
			if i < 0 {
				out = append(out, Tagged{ID: id, Err: fmt.Errorf("%s: %w", id, ErrNotFound)})
				continue
			}
			it := &f.Items[i]
			changed := !slices.Contains(it.Tags, tag)
			if changed {
				it.Tags = NormalizeTags(append(slices.Clone(it.Tags), tag))
			}
			out = append(out, Tagged{ID: id, Item: *it, Changed: changed})
		}
		return nil
	})
	return out, err
}

// Snapshot returns the items of a status ("open", "done" or "all") read
// under the lock, so that no change is half seen.
func (s *Store) Snapshot(ctx context.Context, status string) ([]Item, error) {
	var items []Item
	err := s.withLock(ctx, func() error {
		var err error
		items, err = s.List(status)
		return err
	})
	return items, err
}

// BackupPath is where Backup copies the file.
func (s *Store) BackupPath() string { return s.Path + ".bak" }

// Backup copies the file to BackupPath, under the lock.
func (s *Store) Backup(ctx context.Context) error {
	return s.withLock(ctx, func() error {
		f, err := s.read()
		if err != nil {
			return err
		}
		return write(s.BackupPath(), f)
	})
}

// Restore puts the copy Backup made back in place of the file.
func (s *Store) Restore(ctx context.Context) error {
	return s.withLock(ctx, func() error {
		raw, err := os.ReadFile(s.BackupPath())
		if err != nil {
			return err
		}
		return atomicfile.Write(s.Path, raw, 0o600)
	})
}

// Done marks an item done and reports whether it changed.
func (s *Store) Done(ctx context.Context, id string) (Item, bool, error) {
	var it Item
	var changed bool
	err := s.update(ctx, func(f *file) error {
		i := slices.IndexFunc(f.Items, func(it Item) bool { return it.ID == id })
		if i < 0 {
			return fmt.Errorf("%s: %w", id, ErrNotFound)
		}
		changed = !f.Items[i].Done
		f.Items[i].Done = true
		it = f.Items[i]
		return nil
	})
	return it, changed, err
}

// Purge removes the done items (every item with all) and returns them. With
// dryRun it only returns them, and touches nothing: not even the lock file
// (the file is replaced atomically, so reading it needs no lock).
func (s *Store) Purge(ctx context.Context, all, dryRun bool) ([]Item, error) {
	if dryRun {
		f, err := s.read()
		removed, _ := purge(f.Items, all)
		return removed, err
	}
	var removed []Item
	err := s.update(ctx, func(f *file) error {
		removed, f.Items = purge(f.Items, all)
		return nil
	})
	return removed, err
}

// purge splits items into those purged and those kept.
func purge(items []Item, all bool) (removed, kept []Item) {
	removed, kept = []Item{}, []Item{}
	for _, it := range items {
		if all || it.Done {
			removed = append(removed, it)
		} else {
			kept = append(kept, it)
		}
	}
	return removed, kept
}

// MaxStore bounds the to-do file: a FIFO, a device or anything larger in
// its place (--file /dev/zero) is refused, not read without end.
const MaxStore = 256 << 20

func (s *Store) read() (file, error) {
	raw, err := safefile.ReadFile(s.Path, MaxStore)
	if errors.Is(err, fs.ErrNotExist) {
		return file{Version: 1}, nil
	}
	if err != nil {
		return file{}, fmt.Errorf("read %s: %w", s.Path, err)
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return file{}, &CorruptError{Path: s.Path, Err: err}
	}
	return f, nil
}

// CorruptError is a store file that does not parse. It is reported, never
// overwritten.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is not a to-do file: %v", e.Path, e.Err)
}
func (e *CorruptError) Unwrap() error { return e.Err }

// update changes the file under an exclusive lock and writes it atomically.
func (s *Store) update(ctx context.Context, change func(*file) error) error {
	return s.withLock(ctx, func() error {
		f, err := s.read()
		if err != nil {
			return err
		}
		if err := change(&f); err != nil {
			return err
		}
		return write(s.Path, f)
	})
}

// write writes f to path atomically.
func write(path string, f file) error {
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(raw, '\n'), 0o600) // a private list
}

// withLock runs fn holding the store's lock file, with Lock when set.
func (s *Store) withLock(ctx context.Context, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if s.Lock != nil {
		return s.Lock(ctx, s.Path+".lock", fn)
	}
	lock, err := os.OpenFile(s.Path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("open lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", s.Path, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	return fn()
}

// NormalizeTags trims, lowercases and sorts tags so data is deterministic.
func NormalizeTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}
