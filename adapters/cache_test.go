package adapters_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// cacheApp has resolve, which caches what it fetches in ~/.cache/app, and
// build, which writes temp and log files; show declares nothing.
func cacheApp(fetched *int) *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "resolve", Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			path := filepath.Join(os.Getenv("APP_TEST_HOME"), ".cache", "app", "resolved")
			if out.CacheFresh(path) {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				out.UsedCache()
				out.Effect(envelope.Noop)
				return out.Result(map[string]string{"resolved": string(b)})
			}
			*fetched++
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			out.Effect(envelope.Created)
			return out.Result(map[string]string{"resolved": "1.2.3"})
		}}, schema.Meta{Danger: schema.Mutating, SideEffects: []schema.SideEffect{
			{Path: "~/.cache/app", Kind: schema.CacheFile, TTL: time.Hour, ClearWith: "app cleanup --scope cache"},
		}}),
		urfave.Annotate(&cli.Command{Name: "build", Action: func(context.Context, *cli.Command) error { return nil }},
			schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{
				{Path: "~/.tmp/app-{session}", Kind: schema.TempFile},
				{Path: "~/.local/state/app/build.log", Kind: schema.LogFile},
				{Path: "~/.cache/app", Kind: schema.CacheFile},
			}}),
		urfave.Annotate(&cli.Command{Name: "show", Action: func(context.Context, *cli.Command) error { return nil }},
			schema.Meta{Danger: schema.Safe}),
	}}
}

// TestCacheFlags: a command that declares a cache gets --no-cache and
// --cache-ttl, and reports meta.cache_used; cached data older than
// --cache-ttl seconds, or any under --no-cache or --cache-ttl 0, is treated
// as missing and fetched again; a command with no cache has neither flag
// (O-018).
func TestCacheFlags(t *testing.T) {
	home := t.TempDir()
	t.Setenv("APP_TEST_HOME", home)
	cached := filepath.Join(home, ".cache", "app", "resolved")
	if err := os.MkdirAll(filepath.Dir(cached), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, []byte("1.2.2"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-10 * time.Minute)
	os.Chtimes(cached, old, old)

	tests := []struct {
		args      []string
		fetched   int
		cacheUsed bool
	}{
		{nil, 0, true},
		{[]string{"--cache-ttl", "3600"}, 0, true},
		{[]string{"--cache-ttl", "60"}, 1, false},
		{[]string{"--no-cache"}, 1, false},
		{[]string{"--cache-ttl", "0"}, 1, false},
	}
	for _, tt := range tests {
		fetched := 0
		w := wantOK(t, runAgentIn(t, home, cacheApp(&fetched), nil, append([]string{"resolve"}, tt.args...)...))
		if fetched != tt.fetched || w.Meta["cache_used"] != tt.cacheUsed {
			t.Errorf("resolve %v: fetched %d, meta.cache_used %v; want %d, %v", tt.args, fetched, w.Meta["cache_used"], tt.fetched, tt.cacheUsed)
		}
	}
	wantError(t, runAgentIn(t, home, cacheApp(new(int)), nil, "resolve", "--cache-ttl", "-5"), 2, "PATTERN_MISMATCH")

	flags := func(cmd string) (names []string, meta map[string]any) {
		w := wantOK(t, runAgentIn(t, home, cacheApp(new(int)), nil, cmd, "--schema"))
		var s struct {
			Flags map[string]any `json:"flags"`
		}
		json.Unmarshal(w.Data, &s)
		for n := range s.Flags {
			names = append(names, n)
		}
		return names, w.Meta
	}
	if names, _ := flags("resolve"); !slices.Contains(names, flagname.NoCache) || !slices.Contains(names, flagname.CacheTTL) {
		t.Errorf("resolve, which declares a cache, has flags %v", names)
	}
	if names, _ := flags("show"); slices.Contains(names, flagname.NoCache) || slices.Contains(names, flagname.CacheTTL) {
		t.Errorf("show, which declares no cache, has flags %v", names)
	}
	if w := wantOK(t, runAgentIn(t, home, cacheApp(new(int)), nil, "show")); w.Meta["cache_used"] != nil {
		t.Errorf("show reports meta.cache_used %v", w.Meta["cache_used"])
	}
}

// TestDeclaredSideEffects: every path the commands declare in
// filesystem_side_effects is in their --schema and in status
// --show-side-effects; cleanup removes the declared temp, cache and log
// paths, only those of the scope asked for and only those older than
// --min-age, reporting each with the bytes freed (C-011, O-027).
func TestDeclaredSideEffects(t *testing.T) {
	home := t.TempDir()
	opts := []urfave.Option{adapters.WithCleanupCommand()}
	run := func(args ...string) wire {
		t.Helper()
		return wantOK(t, runAgentIn(t, home, cacheApp(new(int)), opts, args...))
	}
	w := run("resolve", "--schema")
	var s struct {
		Effects []map[string]any `json:"filesystem_side_effects"`
	}
	json.Unmarshal(w.Data, &s)
	want := []map[string]any{{"path": "~/.cache/app", "type": "cache", "ttl_seconds": float64(3600), "clearable_with": "app cleanup --scope cache"}}
	if diff := cmp.Diff(want, s.Effects); diff != "" {
		t.Errorf("resolve --schema filesystem_side_effects (-want +got):\n%s", diff)
	}

	var st struct {
		SideEffects []struct {
			Path    string `json:"path"`
			Purpose string `json:"purpose"`
		} `json:"side_effects"`
	}
	json.Unmarshal(run("status", "--show-side-effects").Data, &st)
	got := map[string]string{}
	for _, e := range st.SideEffects {
		got[e.Path] = e.Purpose
	}
	for path, purpose := range map[string]string{
		filepath.Join(home, ".cache/app"):                 "cache of build, resolve",
		filepath.Join(home, ".tmp/app-{session}"):         "temp of build",
		filepath.Join(home, ".local/state/app/build.log"): "log of build",
	} {
		if got[path] != purpose {
			t.Errorf("status --show-side-effects: %s is %q, want %q (all: %v)", path, got[path], purpose, got)
		}
	}

	write := func(rel string, age time.Duration) string {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		os.Chtimes(p, at, at)
		os.Chtimes(filepath.Dir(p), at, at)
		return p
	}
	cache := write(".cache/app/resolved", 2*time.Hour)
	oldTemp := write(".tmp/app-s1/work", 2*time.Hour)
	newTemp := write(".tmp/app-s2/work", 0)
	logFile := write(".local/state/app/build.log", 2*time.Hour)
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	var data struct {
		Cleaned []adapters.Cleaned `json:"cleaned"`
		Total   int64              `json:"total_bytes_freed"`
	}
	json.Unmarshal(run("cleanup", "--scope", "temp", "--min-age", "3600", "--yes").Data, &data)
	if diff := cmp.Diff([]adapters.Cleaned{{Path: filepath.Dir(oldTemp), Type: "temp", BytesFreed: 10}}, data.Cleaned); diff != "" || data.Total != 10 {
		t.Errorf("cleanup --scope temp --min-age 3600 (-want +got):\n%s total %d", diff, data.Total)
	}
	if exists(oldTemp) || !exists(newTemp) || !exists(cache) || !exists(logFile) {
		t.Errorf("after cleanup --scope temp: old temp %v, new temp %v, cache %v, log %v", exists(oldTemp), exists(newTemp), exists(cache), exists(logFile))
	}
	json.Unmarshal(run("cleanup", "--scope", "cache", "--yes").Data, &data)
	if exists(filepath.Dir(cache)) || !exists(newTemp) || !exists(logFile) {
		t.Errorf("after cleanup --scope cache: cache %v, temp %v, log %v (%+v)", exists(cache), exists(newTemp), exists(logFile), data)
	}
	json.Unmarshal(run("cleanup", "--yes").Data, &data)
	if exists(newTemp) || exists(logFile) {
		t.Errorf("after cleanup: temp %v, log %v", exists(newTemp), exists(logFile))
	}
}

// TestCleanupKeeps: cleanup, under every scope, removes no path a command
// declares as its output, and no audit log or rotated audit log, even where
// a declared log or cache path holds them: that path is left with a
// CLEANUP_SKIPPED warning; status --show-side-effects gives each declared
// path its kind (C-011, O-027, O-030 v1.16).
func TestCleanupKeeps(t *testing.T) {
	noop := func(context.Context, *cli.Command) error { return nil }
	app := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "report", Action: noop}, schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{
				{Path: "~/out/reports", Kind: schema.OutputFile},
				{Path: "~/.cache/app", Kind: schema.CacheFile},
			}}),
			urfave.Annotate(&cli.Command{Name: "sweep", Action: noop}, schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{
				{Path: "~/out", Kind: schema.TempFile},             // holds the reports
				{Path: "~/.local/state/app", Kind: schema.LogFile}, // holds the audit log
				{Path: "~/.local/state/app/*.log", Kind: schema.LogFile},
			}}),
		}}
	}
	for _, scope := range []string{"all", "temp", "cache", "logs"} {
		t.Run(scope, func(t *testing.T) {
			home := t.TempDir()
			write := func(rel string) string {
				p := filepath.Join(home, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
					t.Fatal(err)
				}
				return p
			}
			report := write("out/reports/r1.html")
			audit := write(".local/state/app/audit.jsonl")
			rotated := write(".local/state/app/audit.jsonl.1")
			old := write(".local/state/app/old.log")
			cached := write(".cache/app/entry")
			opts := []urfave.Option{adapters.WithCleanupCommand()}
			w := wantOK(t, runAgentIn(t, home, app(), opts, "cleanup", "--scope", scope, "--yes"))
			for _, p := range []string{report, audit, rotated} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("cleanup --scope %s removed %s: %v", scope, p, err)
				}
			}
			removed := func(p string) bool { _, err := os.Stat(p); return err != nil }
			if want := scope == "all" || scope == "logs"; removed(old) != want {
				t.Errorf("cleanup --scope %s: old.log removed %v, want %v", scope, removed(old), want)
			}
			if want := scope == "all" || scope == "cache"; removed(cached) != want {
				t.Errorf("cleanup --scope %s: the cache removed %v, want %v", scope, removed(cached), want)
			}
			skipped := 0
			for _, c := range w.codes() {
				if c == "CLEANUP_SKIPPED" {
					skipped++
				}
			}
			// ~/out holds the reports (temp); ~/.local/state/app the audit
			// log, and *.log matches nothing kept (logs).
			wantSkipped := map[string]int{"all": 2, "temp": 1, "cache": 0, "logs": 1}[scope]
			if skipped != wantSkipped {
				t.Errorf("cleanup --scope %s: %d CLEANUP_SKIPPED warnings, want %d: %v", scope, skipped, wantSkipped, w.Warnings)
			}
		})
	}

	home := t.TempDir()
	var st struct {
		SideEffects []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"side_effects"`
	}
	json.Unmarshal(wantOK(t, runAgentIn(t, home, app(), nil, "status", "--show-side-effects")).Data, &st)
	listed := map[string]string{}
	for _, e := range st.SideEffects {
		listed[e.Path] = e.Kind
	}
	want := map[string]string{filepath.Join(home, "out/reports"): "output", filepath.Join(home, ".cache/app"): "cache",
		filepath.Join(home, "out"): "temp", filepath.Join(home, ".local/state/app"): "log", filepath.Join(home, ".local/state/app/*.log"): "log"}
	got := map[string]string{}
	for p := range want {
		got[p] = listed[p]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status --show-side-effects kinds (-want +got):\n%s", diff)
	}
}
