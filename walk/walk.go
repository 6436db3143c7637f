// Package walk walks directory trees for commands that recurse — copy,
// delete, archive, search — without the two ways a walk goes wrong for an
// agent: a circular symlink that never ends, and a tree deeper than anyone
// meant to touch.
//
// [Walk] follows symlinks unless told not to, and remembers the device and
// inode of every directory it is inside: a symlink that leads back to one
// of them ends the walk at once with SYMLINK_LOOP (exit 4), naming the link
// and the directory it loops to, and how many entries were visited before.
// An entry deeper than the maximum depth (50 unless changed) ends it with
// DEPTH_EXCEEDED (exit 4). Both errors are *envelope.Error values a command
// returns as they are.
//
// A command that declares schema.Meta.Traverses gets --no-follow-symlinks
// and --max-depth, and Walk reads them from the context: the command does
// nothing for them but walk with this package.
package walk

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// DefaultMaxDepth is how deep a walk goes unless told otherwise.
const DefaultMaxDepth = 50

// The causes of the errors Walk returns, for errors.Is.
var (
	ErrSymlinkLoop   = errors.New("circular symlink detected during traversal")
	ErrDepthExceeded = errors.New("traversal depth limit exceeded")
)

// SkipDir and SkipAll, returned by a visit function, skip the directory the
// entry names (or the rest of its directory, for a file) and end the walk
// without an error.
var (
	SkipDir = fs.SkipDir
	SkipAll = fs.SkipAll
)

// Options configure a walk.
type Options struct {
	// MaxDepth is the deepest an entry may be, the root being depth 0 and
	// its entries depth 1; 0 means DefaultMaxDepth.
	MaxDepth int
	// NoFollow reports symlinks as the links they are and never follows
	// them (the root is followed: it was named). No loop can then occur.
	NoFollow bool
}

type optionsKey struct{}

// WithOptions returns a context whose walks use o. The lifecycle sets them
// from --max-depth and --no-follow-symlinks.
func WithOptions(ctx context.Context, o Options) context.Context {
	return context.WithValue(ctx, optionsKey{}, o)
}

// OptionsFrom returns the options of ctx's walks: the defaults unless
// WithOptions set others.
func OptionsFrom(ctx context.Context) Options {
	o, _ := ctx.Value(optionsKey{}).(Options)
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// Entry is one file or directory of a walk.
type Entry struct {
	Path  string      // absolute, through the links that led to it
	Depth int         // 0 for the root
	Info  fs.FileInfo // of what Path leads to; of the link itself when not followed
	Link  bool        // Path is a symlink
}

// IsDir reports whether the entry is a directory the walk enters: a
// directory, or a symlink to one that is followed.
func (e Entry) IsDir() bool { return e.Info.IsDir() }

// Stats count what a walk saw.
type Stats struct {
	Visited         int // entries passed to the visit function
	SymlinksSkipped int // symlinks not followed (Options.NoFollow)
	Revisited       int // directories reached again through a symlink, not walked twice
}

type fileID struct{ dev, ino uint64 }

// ancestor is a directory the walk is inside.
type ancestor struct {
	path  string
	info  fs.FileInfo
	id    fileID
	hasID bool
}

type walker struct {
	ctx     context.Context
	opts    Options
	visit   func(Entry) error
	stats   Stats
	inside  []ancestor
	visited map[fileID]bool // every directory entered, by device and inode
}

// Walk calls visit for root and everything below it, in lexical order, a
// directory before its entries, with the options of ctx (see OptionsFrom).
// It returns what it counted and the first error: visit's own, ctx's, one
// reading the tree, SYMLINK_LOOP or DEPTH_EXCEEDED. A directory reached a
// second time through a symlink, not in a loop, is visited but not walked
// again. To delete a tree, collect the entries and remove them in reverse.
func Walk(ctx context.Context, root string, visit func(Entry) error) (Stats, error) {
	w := &walker{ctx: ctx, opts: OptionsFrom(ctx), visit: visit, visited: map[fileID]bool{}}
	abs, err := filepath.Abs(root)
	if err != nil {
		return w.stats, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return w.stats, err
	}
	lstat, err := os.Lstat(abs)
	if err != nil {
		return w.stats, err
	}
	err = w.entry(Entry{Path: abs, Info: info, Link: lstat.Mode()&fs.ModeSymlink != 0})
	if errors.Is(err, SkipDir) || errors.Is(err, SkipAll) {
		err = nil
	}
	return w.stats, err
}

// entry visits e and, when it is a directory, walks it.
func (w *walker) entry(e Entry) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if e.Depth > w.opts.MaxDepth {
		return w.tooDeep(e.Path)
	}
	var id fileID
	var hasID bool
	if e.IsDir() {
		id, hasID = idOf(e.Info)
		for _, a := range w.inside {
			if hasID && a.hasID && id == a.id || !hasID && os.SameFile(e.Info, a.info) {
				return w.loop(e.Path, a.path)
			}
		}
	}
	w.stats.Visited++
	if err := w.visit(e); err != nil || !e.IsDir() {
		return err
	}
	if hasID {
		if w.visited[id] {
			w.stats.Revisited++
			return nil
		}
		w.visited[id] = true
	}
	w.inside = append(w.inside, ancestor{path: e.Path, info: e.Info, id: id, hasID: hasID})
	defer func() { w.inside = w.inside[:len(w.inside)-1] }()
	entries, err := os.ReadDir(e.Path)
	if err != nil {
		return err
	}
	for _, d := range entries {
		child := Entry{Path: filepath.Join(e.Path, d.Name()), Depth: e.Depth + 1, Link: d.Type()&fs.ModeSymlink != 0}
		if child.Info, err = w.info(child, d); err != nil {
			return err
		}
		err := w.entry(child)
		switch {
		case errors.Is(err, SkipDir) && child.IsDir():
		case errors.Is(err, SkipDir):
			return nil // a file's SkipDir skips the rest of its directory
		case err != nil:
			return err
		}
	}
	return nil
}

// info describes what an entry leads to: the target of a symlink that is
// followed (a broken link describes itself), else the entry itself.
func (w *walker) info(e Entry, d fs.DirEntry) (fs.FileInfo, error) {
	if e.Link && !w.opts.NoFollow {
		if fi, err := os.Stat(e.Path); err == nil {
			return fi, nil
		}
	}
	if e.Link {
		w.stats.SymlinksSkipped++
	}
	return d.Info()
}

func (w *walker) loop(path, target string) error {
	done := w.stats.Visited
	e := envelope.Errorf(exitcode.Precondition, "SYMLINK_LOOP", "%w: %s leads back to %s", ErrSymlinkLoop, path, target).
		WithPhase(envelope.Execution).
		WithHint("pass --no-follow-symlinks to skip symlinks")
	e.Path, e.LoopTarget, e.CompletedCount = path, target, &done
	return e
}

func (w *walker) tooDeep(path string) error {
	done := w.stats.Visited
	e := envelope.Errorf(exitcode.Precondition, "DEPTH_EXCEEDED", "%w: %s is deeper than %d levels", ErrDepthExceeded, path, w.opts.MaxDepth).
		WithPhase(envelope.Execution).
		WithHint("Use --max-depth to adjust the limit")
	e.Path, e.MaxDepth, e.CompletedCount = path, w.opts.MaxDepth, &done
	return e
}
