//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// profilesPath is where the sandbox's todo keeps its profiles: HOME is the
// sandbox's and no XDG variable is set.
func (sb *sandbox) profilesPath() string {
	return filepath.Join(sb.dir, "home", ".config", "todo", "profiles.json")
}

// TestE2EProfiles walks a person's and an agent's use of saved profiles:
// saving, precedence (command line > environment > profile > default), the
// default profile, --show-config, describe, deleting under the --yes rule,
// and a corrupt file that is reported and never rewritten.
func TestE2EProfiles(t *testing.T) { onEach(t, testProfiles) }

func testProfiles(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "open one", false), item("t2", "done one", true))
	path := sb.profilesPath()
	step := func(name string, args []string, code int, want map[string]any) map[string]any {
		t.Helper()
		env := expectEnvelope(t, name, sb.run(t, args...), code)
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		return env
	}

	step("save without flags", []string{"profile", "save", "work"}, 2, map[string]any{
		"error.code": "NOTHING_TO_SAVE", "error.valid_values": []any{"--file", "--status"},
	})
	step("save", []string{"profile", "save", "work", "--status", "all"}, 0, map[string]any{
		"data.name": "work", "data.flags": map[string]any{"status": "all"}, "meta.effect": "created",
		"meta.config_sources": []any{path},
	})
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("profiles file: %v, %v; want mode 0600", info, err)
	}
	step("no profile applies by default", []string{"list"}, 0, map[string]any{
		"meta.pagination.total": 1.0, "meta.config_sources": []any{}, "meta.profile": nil,
	})
	step("--profile", []string{"list", "--profile", "work"}, 0, map[string]any{
		"meta.pagination.total": 2.0, "meta.config_sources": []any{path},
		"meta.profile": map[string]any{"name": "work", "flags": []any{"status"}},
	})
	r := sb.runEnv(t, []string{"TODO_PROFILE=work"}, "list")
	if env := expectEnvelope(t, "TODO_PROFILE", r, 0); get(env, "meta.pagination.total") != 2.0 {
		t.Errorf("TODO_PROFILE=work list: total %v, want the profile's --status all", get(env, "meta.pagination.total"))
	}
	step("the command line wins", []string{"list", "--profile", "work", "--status", "done"}, 0, map[string]any{
		"meta.pagination.total": 1.0, "meta.profile": nil, "meta.config_sources": []any{},
	})
	step("save a --file too", []string{"profile", "save", "both", "--file", "/nowhere/todo.json", "--status", "all"}, 0, map[string]any{
		"data.flags": map[string]any{"file": "/nowhere/todo.json", "status": "all"},
	})
	step("the environment wins over the profile", []string{"list", "--profile", "both"}, 0, map[string]any{
		"meta.pagination.total": 2.0, "meta.profile.flags": []any{"status"}, // TODO_FILE, not /nowhere
	})
	step("delete it", []string{"profile", "delete", "both", "--yes"}, 0, map[string]any{"data.deleted": "both"})
	step("an unknown profile", []string{"list", "--profile", "nope"}, 2, map[string]any{
		"error.code": "PROFILE_NOT_FOUND", "error.errors.0.code": "PROFILE_NOT_FOUND", "error.errors.0.valid_values": []any{"work"},
	})
	step("use", []string{"profile", "use", "work"}, 0, map[string]any{"data.default": "work", "meta.effect": "updated"})
	step("the default applies", []string{"list"}, 0, map[string]any{
		"meta.pagination.total": 2.0, "meta.profile.name": "work",
	})
	step("--show-config", []string{"list", "--show-config"}, 0, map[string]any{
		"data.flags": []any{
			map[string]any{"flag": "file", "value": sb.file, "source": "env:TODO_FILE"},
			map[string]any{"flag": "status", "value": "all", "source": "profile:work"},
		},
		"data.effective_config": map[string]any{"file": sb.file, "status": "all"},
		"data.sources":          map[string]any{"file": "env:TODO_FILE", "status": "file:" + sb.profilesPath()},
		"data.precedence_order": []any{"cli-flags", "env-vars", "file:" + sb.profilesPath(), "defaults"},
		"data.profile":          "work",
	})
	step("describe", []string{"describe"}, 0, map[string]any{
		"data.profiles": map[string]any{"available": []any{"work"}, "default": "work", "profileable_flags": []any{"file", "status"}},
	})
	step("show", []string{"profile", "show", "work"}, 0, map[string]any{"data.default": true, "data.path": path})
	step("delete needs --yes", []string{"profile", "delete", "work"}, 2, map[string]any{"error.code": "CONFIRMATION_REQUIRED"})
	step("delete --dry-run", []string{"profile", "delete", "work", "--dry-run"}, 0, map[string]any{"meta.dry_run": true})
	step("still there", []string{"profile", "list"}, 0, map[string]any{"data.0.name": "work"})
	step("delete --yes", []string{"profile", "delete", "work", "--yes"}, 0, map[string]any{"data.deleted": "work", "meta.effect": "deleted"})
	step("gone, default too", []string{"list"}, 0, map[string]any{"meta.pagination.total": 1.0, "meta.profile": nil})

	// A stored flag no command has is a warning, not a failure.
	if err := os.WriteFile(path, []byte(`{"schema_version":1,"default":"old","profiles":{"old":{"flags":{"colour":"red","status":"done"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := step("a stale flag in a profile", []string{"list"}, 0, map[string]any{"meta.pagination.total": 1.0, "meta.profile.flags": []any{"status"}})
	if w, _ := env["warnings"].([]any); len(w) != 1 {
		t.Errorf("warnings = %v, want one about --colour", env["warnings"])
	}

	// A corrupt file is reported, and never rewritten.
	corrupt := []byte(`{"schema_version":1,"profiles":{`)
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	env = step("corrupt, no profile asked for", []string{"list"}, 0, map[string]any{"meta.profile": nil})
	if w, _ := env["warnings"].([]any); len(w) != 1 {
		t.Errorf("warnings = %v, want one saying the profiles file is unreadable", env["warnings"])
	}
	step("corrupt, a profile asked for", []string{"list", "--profile", "work"}, 4, map[string]any{"error.code": "PROFILES_UNREADABLE"})
	step("corrupt, saving", []string{"profile", "save", "x", "--status", "all"}, 4, map[string]any{"error.code": "PROFILES_UNREADABLE"})
	if got, _ := os.ReadFile(path); string(got) != string(corrupt) {
		t.Errorf("the corrupt file was rewritten: %q", got)
	}
}

// TestE2EConcurrentProfileSaves runs 16 todo processes at once, each saving
// a profile of its own: none is lost.
func TestE2EConcurrentProfileSaves(t *testing.T) { onEach(t, testConcurrentProfileSaves) }

func testConcurrentProfileSaves(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	const n = 16
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Go(func() { results[i] = sb.run(t, "profile", "save", "p"+strconv.Itoa(i), "--status", "done") })
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("save p%d: exit %d\n%s", i, r.code, r.stdout)
		}
	}
	env := expectEnvelope(t, "profile list", sb.run(t, "profile", "list"), 0)
	if rows, _ := env["data"].([]any); len(rows) != n {
		t.Errorf("%d profiles saved, want %d: %v", len(rows), n, env["data"])
	}
}
