package adapters

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/internal/sessiondir"
	"github.com/duet-cli/duet/schema"
)

// cleanupCommand is the name of the built-in command that removes the files
// Duet keeps for a tool (its flags: --scope, --min-age).
const (
	cleanupCommand = "cleanup"
)

// The scopes of cleanup: temp is what invocations left in the tool's temp
// root (sessions of processes gone, files kept for callers); cache the
// idempotency records; logs the output files of ended jobs; jobs the
// records of ended jobs, with their files.
var cleanupScopes = []string{"all", "temp", "cache", "logs", "jobs"}

func cleanupNode() *schema.Command {
	return &schema.Command{
		Name:     cleanupCommand,
		Usage:    "Remove the files this tool keeps: temp directories of ended runs, idempotency records, ended jobs",
		Runnable: true,
		Builtin:  true,
		NoArgs:   true,
		Flags: []schema.Flag{
			{Name: flagname.Scope, Type: schema.String, Enum: cleanupScopes, Default: "all", Builtin: true, Usage: "what to remove: all, temp, cache (idempotency records), logs (ended jobs' output) or jobs (ended jobs)"},
			{Name: flagname.MinAge, Type: schema.Integer, Default: 0, Builtin: true, Usage: "leave what is younger than this many seconds"},
		},
		Meta: schema.Meta{Danger: schema.Destructive, DryRun: true, NoArgs: true, Examples: []schema.Example{
			{Description: "see what would be removed", Command: "cleanup --dry-run"},
			{Description: "remove temp files older than an hour", Command: "cleanup --scope temp --min-age 3600 --yes"},
		}},
	}
}

// Cleaned is one path cleanup removed, an element of data.cleaned.
type Cleaned struct {
	Path       string `json:"path"`
	Type       string `json:"type"` // temp, cache, logs or jobs
	BytesFreed int64  `json:"bytes_freed"`
}

// cleanupAction runs cleanup: it lists what the scope and --min-age select
// and, unless this is a dry run, removes it. What is in use — the session
// of a process still running, the record of a call or a job still running
// — is never selected.
func (inv *invocation) cleanupAction(context.Context) error {
	c, out := inv.call, inv.out
	scope := "all"
	if v, ok := c.opt(flagname.Scope); ok {
		scope = v
	}
	var minAge time.Duration
	if v, ok := c.opt(flagname.MinAge); ok {
		n, _ := strconv.Atoi(v)
		minAge = time.Duration(n) * time.Second
	}
	in := func(s string) bool { return scope == "all" || scope == s }
	now := time.Now()
	type target struct {
		paths []string
		kind  string
		bytes int64
	}
	var targets []target

	if in("temp") {
		entries, err := sessiondir.List(inv.tempRoot(), now)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.Live && e.Age >= minAge {
				targets = append(targets, target{[]string{e.Path}, "temp", e.Bytes})
			}
		}
	}
	state, err := inv.stateDir()
	if (in("cache") || in("logs") || in("jobs")) && err != nil {
		return noStateDir(inv.root.Name, err)
	}
	var states []State // what the features keep: cleaned by their rules, and never removed whole
	if err == nil {
		states = inv.featureStates(state)
	}
	for _, st := range states {
		if !in(st.Scope) || st.Expired == nil {
			continue
		}
		expired, err := st.Expired(minAge, now)
		if err != nil {
			return err
		}
		for _, r := range expired {
			targets = append(targets, target{r.Paths, st.Scope, r.Bytes})
		}
	}
	if in("logs") || in("jobs") {
		store := &jobstore.Store{Dir: filepath.Join(state, "jobs")}
		jobs, err := store.List(now)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			ended := j.Created
			if j.Finished != nil {
				ended = *j.Finished
			}
			if !j.Status.Terminal() || now.Sub(ended) < minAge {
				continue
			}
			for _, p := range store.Files(j.ID) {
				kind := "jobs"
				if p == store.OutPath(j.ID) || p == store.ErrPath(j.ID) {
					kind = "logs"
				}
				if in(kind) {
					targets = append(targets, target{[]string{p}, kind, fileSize(p)})
				}
			}
		}
	}
	for _, d := range inv.declaredCleanup(in, minAge, now, states) { // what the app's commands declare
		targets = append(targets, target(d))
	}

	cleaned := []Cleaned{}
	var total int64
	for _, t := range targets {
		if !out.DryRun() {
			var failed error
			for _, p := range t.paths {
				if err := os.RemoveAll(p); err != nil {
					failed = err
				}
			}
			if failed != nil {
				out.Warn("CLEANUP_SKIPPED", failed.Error(), "check the path's permissions")
				continue
			}
		}
		for _, p := range t.paths {
			cleaned = append(cleaned, Cleaned{Path: p, Type: t.kind})
		}
		cleaned[len(cleaned)-1].BytesFreed = t.bytes // one figure per target, on its last path
		total += t.bytes
	}
	slices.SortStableFunc(cleaned, func(a, b Cleaned) int { return strings.Compare(a.Path, b.Path) })
	out.Effect(envelope.Deleted)
	if len(cleaned) == 0 {
		out.Effect(envelope.Noop)
	}
	if out.DryRun() {
		out.WouldAffect(map[string]any{"paths": len(cleaned), "bytes": total, "reversible": false})
	}
	out.RenderText(func(w io.Writer) error {
		verb := "Removed"
		if out.DryRun() {
			verb = "Would remove"
		}
		for _, c := range cleaned {
			if _, err := fmt.Fprintf(w, "%s %s (%s)\n", verb, c.Path, c.Type); err != nil {
				return err
			}
		}
		_, err := fmt.Fprintf(w, "%s %d paths, %d bytes.\n", verb, len(cleaned), total)
		return err
	})
	return out.Result(map[string]any{"cleaned": cleaned, "total_bytes_freed": total})
}

func fileSize(path string) int64 {
	info, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}
