package adapters

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/runenv"
	"github.com/duet-cli/duet/schema"
)

// What a command declares it writes (Meta.SideEffects, the CLI Agent Spec's
// C-011) serves three built-ins: a command with a cache gets --no-cache and
// --cache-ttl (O-018), `status --show-side-effects` lists every declared
// path, and `cleanup` removes the declared temp, cache and log paths
// (O-027), as it removes Duet's own.

// declaresCache reports whether c writes a cache.
func declaresCache(c *schema.Command) bool {
	return slices.ContainsFunc(c.Meta.SideEffects, func(s schema.SideEffect) bool { return s.Kind == schema.CacheFile })
}

// cacheFlags are the flags of a command that declares a cache; none for
// one that declares none.
func cacheFlags(c *schema.Command) []schema.Flag {
	if !c.Runnable || !declaresCache(c) {
		return nil
	}
	return []schema.Flag{
		{Name: flagname.NoCache, Type: schema.Boolean, Default: false, Usage: "use no cached data: fetch everything afresh"},
		{Name: flagname.CacheTTL, Type: schema.Integer, Pattern: `^[0-9]+$`, Usage: "treat cached data older than this many seconds as missing; 0 is --no-cache"},
	}
}

// cacheSettings passes the cache flags to the command's Output.
func (inv *invocation) cacheSettings(s *envelope.Settings) {
	c := inv.call
	if c == nil || !declaresCache(c.node) {
		return
	}
	s.NoCache = c.on(flagname.NoCache)
	if v, ok := c.opt(flagname.CacheTTL); ok && v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
		case n == 0:
			s.NoCache = true
		default:
			s.CacheTTL = time.Duration(n) * time.Second
		}
	}
}

// cacheMeta reports meta.cache_used for a command that declares a cache.
func (inv *invocation) cacheMeta() {
	if inv.out == nil || inv.call == nil || !declaresCache(inv.call.node) {
		return
	}
	used := inv.out.CacheUsed()
	inv.meta.CacheUsed = &used
}

// declaredSideEffects are the paths the app's commands declare they write,
// for status: one entry a path, naming what it is and which commands
// write it.
func (inv *invocation) declaredSideEffects() []SideEffect {
	var order []string
	by := map[string]*SideEffect{}
	inv.root.Walk(func(c *schema.Command) {
		for _, s := range c.Meta.SideEffects {
			e := by[s.Path]
			if e == nil {
				e = &SideEffect{Path: s.Path, Kind: "file", Purpose: string(s.Kind) + " of"}
				if info, err := os.Stat(inv.expandPath(s.Path)); err == nil && info.IsDir() {
					e.Kind = "directory"
				}
				by[s.Path] = e
				order = append(order, s.Path)
			} else {
				e.Purpose += ","
			}
			e.Purpose += " " + c.DotPath()
		}
	})
	out := make([]SideEffect, 0, len(order))
	for _, p := range order {
		out = append(out, *by[p])
	}
	return out
}

// declaredKinds are the kinds the commands declare their paths as, by
// path. A path declared as output by one command and as anything else by
// another is output: cleanup keeps it.
func (inv *invocation) declaredKinds() map[string]schema.SideEffectKind {
	kinds := map[string]schema.SideEffectKind{}
	inv.root.Walk(func(c *schema.Command) {
		for _, s := range c.Meta.SideEffects {
			if k, ok := kinds[s.Path]; !ok || k != schema.OutputFile {
				kinds[s.Path] = s.Kind
			}
		}
	})
	return kinds
}

// cleanupTarget is what cleanup may remove: paths, their scope, their size.
type cleanupTarget struct {
	paths []string
	kind  string
	bytes int64
}

// templateToGlob turns each {name} in a declared path (a value known when the
// command runs) into *: any value, to cleanup. A brace with no partner in
// the same path element stays as it is.
func templateToGlob(path string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(path, '{')
		if open < 0 {
			break
		}
		end := strings.IndexAny(path[open+1:], "{}/")
		if end < 0 || path[open+1+end] != '}' {
			b.WriteString(path[:open+1])
			path = path[open+1:]
			continue
		}
		b.WriteString(path[:open])
		b.WriteByte('*')
		path = path[open+1+end+1:]
	}
	b.WriteString(path)
	return b.String()
}

// declaredCleanup returns the paths the app's commands declare as temp,
// cache or log files that exist, are in scope and are at least minAge old.
// A path is never the home directory, the root or a directory just below
// it, whatever a declaration says; nor one that is, holds or lies in a
// path cleanup keeps (keptPaths), which is left with a warning.
func (inv *invocation) declaredCleanup(in func(string) bool, minAge time.Duration, now time.Time, states []State) []cleanupTarget {
	scopes := map[schema.SideEffectKind]string{schema.TempFile: "temp", schema.CacheFile: "cache", schema.LogFile: "logs"}
	seen := map[string]bool{}
	var targets []cleanupTarget
	home := filepath.Clean(inv.cfg.getenv("HOME"))
	kept := inv.keptPaths(states)
	inv.root.Walk(func(c *schema.Command) {
		for _, s := range c.Meta.SideEffects {
			scope, ok := scopes[s.Kind]
			if !ok || !in(scope) || s.Builtin {
				continue
			}
			matches, _ := filepath.Glob(templateToGlob(inv.expandPath(s.Path)))
			for _, p := range matches {
				p = filepath.Clean(p)
				if seen[p] || p == home || strings.Count(p, string(filepath.Separator)) < 2 {
					continue
				}
				info, err := os.Lstat(p)
				if err != nil || now.Sub(info.ModTime()) < minAge {
					continue
				}
				seen[p] = true
				if k, what := keptBy(p, kept); k != "" {
					inv.out.Warn("CLEANUP_SKIPPED", fmt.Sprintf("%s is left in place: it is, holds or lies in %s, %s, which cleanup keeps", p, k, what),
						"remove it by hand if it is no longer wanted")
					continue
				}
				size, _ := pathSize(p)
				targets = append(targets, cleanupTarget{[]string{p}, scope, size})
			}
		}
	})
	return targets
}

// keptPaths are the paths a declaration never makes cleanup remove, under
// any scope, each with what it is: what the commands declare as their
// output (C-011), the product a user asked for; the audit log with its
// rotated files (O-030), a record the operator keeps, whether or not it is
// on now; and Duet's own stores and the features' (states), which cleanup
// empties by their own rules (never a live session, a running job or a
// call in progress), never whole.
func (inv *invocation) keptPaths(states []State) map[string]string {
	kept := map[string]string{inv.tempRoot(): "the tool's temp root"}
	if state, err := inv.stateDir(); err == nil {
		kept[filepath.Join(state, "jobs")] = "the jobs store"
	}
	for _, st := range states {
		kept[st.File.Path] = st.Name
	}
	inv.root.Walk(func(c *schema.Command) {
		for _, s := range c.Meta.SideEffects {
			if s.Kind != schema.OutputFile {
				continue
			}
			matches, _ := filepath.Glob(templateToGlob(inv.expandPath(s.Path)))
			for _, p := range matches {
				kept[filepath.Clean(p)] = "an output of " + c.DotPath()
			}
		}
	})
	for _, log := range []string{inv.auditLogPath(), inv.cfg.audit, AuditLogPath(inv.root.Name, inv.cfg.getenv)} {
		if log == "" || !filepath.IsAbs(log) {
			continue
		}
		log = filepath.Clean(log)
		kept[log] = "the audit log"
		rotated, _ := filepath.Glob(globEscape(log) + ".*")
		for _, p := range rotated {
			kept[p] = "a rotated audit log"
		}
	}
	return kept
}

// keptBy returns the kept path that p is, holds or lies in, and what it is;
// "" when there is none.
func keptBy(p string, kept map[string]string) (string, string) {
	for _, k := range slices.Sorted(maps.Keys(kept)) {
		if within(k, p) || within(p, k) {
			return k, kept[k]
		}
	}
	return "", ""
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// globEscape escapes the characters filepath.Match treats specially.
func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// configFile is the file a config-writing command writes (C-025): the
// project's, .<tool>-config in the working directory, or with global scope
// (--global, or declared) config.json in the tool's state directory, which
// --instance-id keeps apart per instance. A session-scoped writer is told
// the instance's file when it runs as one, else nothing: where a session's
// configuration lives is the tool's.
func (inv *invocation) configFile(env runenv.Env) string {
	switch scope := inv.call.node.Meta.ConfigWrite; {
	case scope == "":
		return ""
	case env.GlobalConfig:
		if env.StateDir == "" {
			return ""
		}
		return filepath.Join(env.StateDir, "config.json")
	case scope == schema.SessionConfig:
		if env.InstanceID == "" || env.StateDir == "" {
			return ""
		}
		return filepath.Join(env.StateDir, "config.json")
	}
	return filepath.Join(inv.obs.cwd, "."+inv.root.Name+"-config")
}
