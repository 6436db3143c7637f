package adapters

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/duet-cli/duet/schema"
)

// What the lifecycle watches a running command change beyond its Output, so
// that an exit 2 — "nothing changed" (F-002) — never follows a change it can
// see (heldToTable): the programs the command starts through package proc,
// and the files it declares it writes (Meta.SideEffects), stamped before it
// runs and compared when it reports invalid input. envelope.Output.Changes
// lists what the Output itself sees. A write the command makes on its own,
// to a path it did not declare, is not seen: see package envelope.

// watched is what the lifecycle saw the running command do.
type watched struct {
	mu       sync.Mutex
	programs []string // the names of the programs started, in order, once each
	// the declared side-effect files before the command ran, by path
	// (nil: the command declares none)
	before map[string]stamp
	globs  []string
}

// stamp is what a file's change shows in: its size, mode and modification time.
type stamp struct {
	size int64
	mode os.FileMode
	mod  int64 // nanoseconds since 1970
}

// maxWatched bounds the declared files stamped: a glob that matches more is
// watched for its first ones.
const maxWatched = 256

// started records a program the command started (proc.Options.Started).
func (w *watched) started(argv []string) {
	if len(argv) == 0 {
		return
	}
	name := filepath.Base(argv[0])
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.programs, name) {
		w.programs = append(w.programs, name)
	}
}

// watchDeclared stamps the files c declares it writes (its own, not the
// state Duet keeps for it), before it runs.
func (inv *invocation) watchDeclared(c *schema.Command) {
	w := &inv.watch
	for _, s := range c.Meta.SideEffects {
		if !s.Builtin {
			w.globs = append(w.globs, templateToGlob(inv.expandPath(s.Path)))
		}
	}
	if len(w.globs) > 0 {
		w.before = stampAll(w.globs)
	}
}

// stampAll stamps the files the globs match, up to maxWatched.
func stampAll(globs []string) map[string]stamp {
	stamps := map[string]stamp{}
	for _, g := range globs {
		matches, _ := filepath.Glob(g)
		for _, p := range matches {
			if len(stamps) >= maxWatched {
				return stamps
			}
			if info, err := os.Lstat(p); err == nil {
				stamps[p] = stamp{size: info.Size(), mode: info.Mode(), mod: info.ModTime().UnixNano()}
			}
		}
	}
	return stamps
}

// seenChanges lists the changes the lifecycle saw the command make, for a
// message: what its Output saw; a program started by a command that is not
// declared safe, which may have changed anything; a background process
// left running; a declared file created, changed or removed.
func (inv *invocation) seenChanges() []string {
	var seen []string
	if inv.out != nil {
		seen = inv.out.Changes()
	}
	w := &inv.watch
	w.mu.Lock()
	programs := slices.Clone(w.programs)
	w.mu.Unlock()
	if inv.call.node.Danger() != schema.Safe {
		for _, p := range programs {
			seen = append(seen, "started the program "+p)
		}
	}
	if inv.session != nil && len(inv.session.Background()) > 0 && !slices.Contains(seen, "left a background process running") {
		seen = append(seen, "left a background process running")
	}
	if w.before != nil {
		after := stampAll(w.globs)
		var paths []string
		for p, st := range after {
			if was, ok := w.before[p]; !ok || was != st {
				paths = append(paths, p)
			}
		}
		for p := range w.before {
			if _, ok := after[p]; !ok {
				paths = append(paths, p)
			}
		}
		slices.Sort(paths)
		for _, p := range paths {
			seen = append(seen, "changed the declared file "+strconv.Quote(p))
		}
	}
	return seen
}
