//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// storesBin is e2eapp-stores: a second tool (app.Stores) with Duet's
// built-in status, doctor and cleanup, which e2eapp, with a status of its
// own, cannot show.
var storesBin = &onDemand{pkg: "github.com/duet-cli/duet/internal/e2eapp/cmd/e2eapp-stores"}

// storesSandbox is a sandbox for e2eapp-stores with a registry holding
// left-pad 1.3.0 and a directory of programs (tools) first on PATH.
type storesSandbox struct {
	*sandbox
	tools string
}

func newStoresSandbox(t *testing.T) *storesSandbox {
	t.Helper()
	sb := &storesSandbox{sandbox: sandboxFor(t, storesBin.bin(t)), tools: t.TempDir()}
	registry := sb.path("registry.json")
	if err := os.WriteFile(registry, []byte(`{"left-pad":"1.3.0","is-odd":"3.0.1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, kv := range sb.env {
		if strings.HasPrefix(kv, "PATH=") {
			sb.env[i] = "PATH=" + sb.tools + ":" + os.Getenv("PATH")
		}
	}
	sb.env = append(sb.env, "E2EAPP_REGISTRY="+registry)
	return sb
}

// tool puts a program on the sandbox's PATH, a shell script with body.
func (sb *storesSandbox) tool(t *testing.T, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(sb.tools, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// check is the doctor check named name in env's data.checks.
func check(env map[string]any, name string) map[string]any {
	list, _ := get(env, "data.checks").([]any)
	for _, c := range list {
		if m, _ := c.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

// dependency is the entry named name in env's data.dependencies.
func dependency(env map[string]any, name string) map[string]any {
	list, _ := get(env, "data.dependencies").([]any)
	for _, d := range list {
		if m, _ := d.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

// healthy installs every program e2eapp-stores needs, each at a version
// that passes; e2e-fmt, needed at any version, records any run of it in
// the file ran.
func (sb *storesSandbox) healthy(t *testing.T) (ran string) {
	t.Helper()
	ran = sb.path("e2e-fmt-ran")
	sb.tool(t, "e2e-fmt", `echo "$0 $*" >> '`+ran+`'; echo 'e2e-fmt 0.0.1'`)
	sb.tool(t, "e2e-packer", `echo 'e2e-packer 2.1.0'`)
	sb.tool(t, "e2e-indexer", `echo 'ready'`) // no version to read: "*"
	sb.tool(t, "e2e-signer", `echo 'e2e-signer v1.4.0'`)
	return ran
}

// TestO026Doctor: REQ-O-026 (v1.16) on e2eapp-stores, whose commands need
// e2e-fmt at any version ("*") and e2e-packer 2.0.0 or later, installed by
// "e2e-install <name>" (adapters.WithToolInstall), and which declares
// e2e-indexer at any version and e2e-signer 1.2.0 to 1.9.0, each with the
// fix_command "e2e-install <name>". `doctor --format json` answers
// data.checks, one per program with name, ok, version, required, error
// and fix; with everything installed it exits 0; the "*" tool passes by a
// PATH lookup, is never run, and carries required "*" and no version; the
// "*" dependency passes because its check_command exits 0, though its
// output holds no version; a missing program is a failed check, ok false,
// whose fix is a shell command; any failure exits 4 (PRECONDITION) with
// DOCTOR_CHECKS_FAILED and the full report in data; and running every
// failed check's fix, by sh, as given, makes doctor pass — with nothing
// installed, and with e2e-packer too old. e2e-install, put on PATH by the
// test, stands for the tool's package manager: it installs the program
// it is named, at a version doctor accepts.
func TestO026Doctor(t *testing.T) {
	t.Parallel()
	sb := newStoresSandbox(t)
	ran := sb.healthy(t)
	env := expect(t, "doctor, all installed", sb.run(t, "doctor", "--format", "json"), 0)
	for _, name := range []string{"e2e-fmt", "e2e-packer", "e2e-indexer", "e2e-signer"} {
		c := check(env, name)
		if diff := cmp.Diff([]string{"error", "fix", "name", "ok", "required", "version"}, keys(c)); diff != "" {
			t.Errorf("doctor: check %s's members (-want +got):\n%s", name, diff)
		}
		if c["ok"] != true {
			t.Errorf("doctor: check %s failed with everything installed: %v", name, c)
		}
	}
	want(t, "doctor, all installed", env, map[string]any{
		"data.checks.0": map[string]any{"name": "e2e-fmt", "ok": true, "version": nil, "required": "*", "error": nil, "fix": nil},
		"warnings":      []any{},
	})
	if c := check(env, "e2e-indexer"); c["required"] != "*" || c["version"] != nil {
		t.Errorf("doctor: the \"*\" dependency's check: %v", c)
	}
	if c := check(env, "e2e-packer"); c["version"] != "2.1.0" || c["required"] != ">=2.0.0" {
		t.Errorf("doctor: e2e-packer's check: %v", c)
	}
	if raw := readFile(t, ran); raw != "" {
		t.Errorf("doctor ran e2e-fmt, needed at any version: %s", raw)
	}

	// Nothing installed: every check fails, each with its fix, and the
	// fixes, run, install everything.
	bare := newStoresSandbox(t)
	bare.installer(t)
	env = expect(t, "doctor, nothing installed", bare.run(t, "doctor"), 4)
	want(t, "doctor, nothing installed", env, map[string]any{
		"error.code": "DOCTOR_CHECKS_FAILED", "error.retryable": false,
		"data.checks.0": map[string]any{"name": "e2e-fmt", "ok": false, "version": nil, "required": "*", "error": "not found in PATH", "fix": "e2e-install e2e-fmt"},
	})
	for _, name := range []string{"e2e-fmt", "e2e-packer", "e2e-indexer", "e2e-signer"} {
		if c := check(env, name); c["ok"] != false || c["fix"] != "e2e-install "+name {
			t.Errorf("doctor, nothing installed: check %s: %v", name, c)
		}
	}
	bare.applyFixes(t, env)
	expect(t, "doctor, after running each fix", bare.run(t, "doctor"), 0)

	// One failure is enough, and the report is whole; its fix upgrades.
	one := newStoresSandbox(t)
	one.healthy(t)
	one.installer(t)
	one.tool(t, "e2e-packer", `echo 'e2e-packer 1.4.0'`)
	env = expect(t, "doctor, e2e-packer too old", one.run(t, "doctor"), 4)
	want(t, "doctor, e2e-packer too old", env, map[string]any{
		"error.code": "DOCTOR_CHECKS_FAILED",
		"data.checks.1": map[string]any{"name": "e2e-packer", "ok": false, "version": "1.4.0", "required": ">=2.0.0",
			"error": "older than 2.0.0", "fix": "e2e-install e2e-packer"},
	})
	if n := len(get(env, "data.checks").([]any)); n != 4 {
		t.Errorf("doctor, one failure: %d checks in data, want all 4", n)
	}
	one.applyFixes(t, env)
	expect(t, "doctor, after upgrading e2e-packer", one.run(t, "doctor"), 0)
}

// installer puts e2e-install on the sandbox's PATH: the package manager
// doctor's fixes name. It installs the program it is named, at a version
// e2eapp-stores accepts, and knows no other.
func (sb *storesSandbox) installer(t *testing.T) {
	t.Helper()
	sb.tool(t, "e2e-install", `dir=$(dirname "$0")
case "$1" in
e2e-fmt) body="echo 'e2e-fmt 0.0.1'" ;;
e2e-packer) body="echo 'e2e-packer 2.1.0'" ;;
e2e-indexer) body="echo ready" ;;
e2e-signer) body="echo 'e2e-signer v1.4.0'" ;;
*) echo "e2e-install: no package $1" >&2; exit 1 ;;
esac
printf '#!/bin/sh\n%s\n' "$body" > "$dir/$1" && chmod 755 "$dir/$1"
`)
}

// applyFixes runs, by sh in the sandbox's environment, the fix of every
// failed check of a doctor answer, as an agent told to would.
func (sb *storesSandbox) applyFixes(t *testing.T, env map[string]any) {
	t.Helper()
	list, _ := get(env, "data.checks").([]any)
	for _, c := range list {
		c, _ := c.(map[string]any)
		if c["ok"] == true {
			continue
		}
		fix, ok := c["fix"].(string)
		if !ok || fix == "" {
			t.Errorf("check %v failed without a fix", c["name"])
			continue
		}
		cmd := exec.Command("sh", "-c", fix)
		cmd.Dir, cmd.Env = sb.dir, sb.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("the fix of %v, %q: %v\n%s", c["name"], fix, err, out)
		}
	}
}

// TestO031Dependencies: REQ-O-031 (v1.16) on e2eapp-stores' declared
// dependencies, e2e-signer (min 1.2.0, max 1.9.0, version from
// "e2e-signer --version") and e2e-indexer (min_version "*", check
// "e2e-indexer --probe"). data.dependencies lists both with their check
// results; a signer below min_version is a failed check whose fix_command
// is the declared one; one above max_version passes with a
// DEPENDENCY_UNTESTED warning; the "*" indexer passes when its check exits
// 0 though it prints no version (no version_regex, no comparison, no
// found_version) and fails when its check exits non-zero; and the
// fix_command, run by a shell, is executable: it installs the program and
// doctor then passes.
func TestO031Dependencies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		signer        string // e2e-signer's script body, "" for none
		indexer       string
		code          int
		signerWant    map[string]any
		indexerWant   map[string]any
		untestedNewer bool
	}{
		{"within range", `echo 'e2e-signer v1.4.0'`, `echo ready`, 0,
			map[string]any{"ok": true, "found_version": "1.4.0"}, map[string]any{"ok": true, "found_version": nil, "min_version": "*"}, false},
		{"signer too old", `echo 'e2e-signer v1.0.0'`, `echo ready`, 4,
			map[string]any{"ok": false, "found_version": "1.0.0", "fix_command": "e2e-install e2e-signer"}, map[string]any{"ok": true, "found_version": nil}, false},
		{"signer newer than tested", `echo 'e2e-signer v2.0.0'`, `echo ready`, 0,
			map[string]any{"ok": true, "found_version": "2.0.0", "max_version": "1.9.0"}, map[string]any{"ok": true, "found_version": nil}, true},
		{"indexer probe fails", `echo 'e2e-signer v1.4.0'`, `echo 'indexer 9.9.9: broken install' >&2; exit 1`, 4,
			map[string]any{"ok": true}, map[string]any{"ok": false, "found_version": nil, "min_version": "*", "fix_command": "e2e-install e2e-indexer"}, false},
		{"indexer missing", `echo 'e2e-signer v1.4.0'`, "", 4,
			map[string]any{"ok": true}, map[string]any{"ok": false, "found_version": nil, "fix_command": "e2e-install e2e-indexer"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newStoresSandbox(t)
			sb.healthy(t)
			sb.tool(t, "e2e-signer", tt.signer)
			os.Remove(filepath.Join(sb.tools, "e2e-indexer"))
			if tt.indexer != "" {
				sb.tool(t, "e2e-indexer", tt.indexer)
			}
			env := expect(t, "doctor", sb.run(t, "doctor", "--format", "json"), tt.code)
			if n := len(get(env, "data.dependencies").([]any)); n != 2 {
				t.Errorf("data.dependencies has %d entries, want 2: %v", n, get(env, "data.dependencies"))
			}
			for name, wantDep := range map[string]map[string]any{"e2e-signer": tt.signerWant, "e2e-indexer": tt.indexerWant} {
				d := dependency(env, name)
				got := map[string]any{}
				for k := range wantDep {
					got[k] = d[k]
				}
				if diff := cmp.Diff(wantDep, got); diff != "" {
					t.Errorf("dependency %s (-want +got):\n%s", name, diff)
				}
				if c := check(env, name); c["ok"] != d["ok"] {
					t.Errorf("dependency %s is ok %v, its check %v", name, d["ok"], c)
				}
			}
			if got := slices.Contains(warningCodes(env), "DEPENDENCY_UNTESTED"); got != tt.untestedNewer {
				t.Errorf("DEPENDENCY_UNTESTED warned %v, want %v: %v", got, tt.untestedNewer, env["warnings"])
			}
			if tt.code == 0 {
				return
			}
			// The fix_command of what failed, run by a shell, fixes it.
			sb.tool(t, "e2e-install", `case "$1" in
e2e-signer) printf '#!/bin/sh\necho e2e-signer v1.5.0\n' > '`+sb.tools+`/e2e-signer';;
e2e-indexer) printf '#!/bin/sh\nexit 0\n' > '`+sb.tools+`/e2e-indexer';;
esac
chmod +x '`+sb.tools+`'/*`)
			for _, name := range []string{"e2e-signer", "e2e-indexer"} {
				if d := dependency(env, name); d["ok"] == false {
					fix := exec.Command("sh", "-c", d["fix_command"].(string))
					fix.Env = sb.env
					if out, err := fix.CombinedOutput(); err != nil {
						t.Errorf("fix_command %q: %v\n%s", d["fix_command"], err, out)
					}
				}
			}
			expect(t, "doctor after the fixes", sb.run(t, "doctor"), 0)
		})
	}
}

// TestC018PlatformAndTools: REQ-C-018 (v1.16) on e2eapp-stores. pack's
// --schema gives required_tools {"e2e-fmt": "*", "e2e-packer": "2.0.0"},
// notarize's platform ["darwin"]; doctor fails a check for a missing and
// for an outdated required tool, and passes the "*" one present on PATH
// without running it; notarize, macOS-only, invoked here on Linux warns
// UNSUPPORTED_PLATFORM in the envelope's warnings, and is refused (exit 4).
func TestC018PlatformAndTools(t *testing.T) {
	t.Parallel()
	sb := newStoresSandbox(t)
	doc := sb.schemaOf(t, "pack")
	if diff := cmp.Diff(map[string]any{"e2e-fmt": "*", "e2e-packer": "2.0.0"}, doc["required_tools"]); diff != "" {
		t.Errorf("pack --schema required_tools (-want +got):\n%s", diff)
	}
	if doc := sb.schemaOf(t, "notarize"); cmp.Diff([]any{"darwin"}, doc["platform"]) != "" {
		t.Errorf("notarize --schema platform: %v", doc["platform"])
	}

	tests := []struct {
		name            string
		packer          string // e2e-packer's script, "" for none
		fmtInstalled    bool
		fmtOK, packerOK bool
	}{
		{"both present", `echo 'e2e-packer 2.1.0'`, true, true, true},
		{"packer outdated", `echo 'e2e-packer 1.4.0'`, true, true, false},
		{"packer missing", "", true, true, false},
		{"fmt missing", `echo 'e2e-packer 2.1.0'`, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newStoresSandbox(t)
			ran := sb.healthy(t)
			os.Remove(filepath.Join(sb.tools, "e2e-packer"))
			if tt.packer != "" {
				sb.tool(t, "e2e-packer", tt.packer)
			}
			if !tt.fmtInstalled {
				os.Remove(filepath.Join(sb.tools, "e2e-fmt"))
			}
			code := 0
			if !tt.fmtOK || !tt.packerOK {
				code = 4
			}
			env := expect(t, "doctor", sb.run(t, "doctor"), code)
			fmtCheck, packerCheck := check(env, "e2e-fmt"), check(env, "e2e-packer")
			if fmtCheck["ok"] != tt.fmtOK || packerCheck["ok"] != tt.packerOK {
				t.Errorf("doctor: e2e-fmt %v, e2e-packer %v; want ok %v, %v", fmtCheck, packerCheck, tt.fmtOK, tt.packerOK)
			}
			if fmtCheck["required"] != "*" || fmtCheck["version"] != nil {
				t.Errorf("doctor: the \"*\" tool's check %v, want required \"*\" and no version", fmtCheck)
			}
			if raw := readFile(t, ran); raw != "" {
				t.Errorf("doctor ran e2e-fmt, needed at any version: %s", raw)
			}
		})
	}

	env := expect(t, "notarize on linux", sb.run(t, "notarize"), 4)
	want(t, "notarize on linux", env, map[string]any{"error.code": "UNSUPPORTED_PLATFORM"})
	if !slices.Contains(warningCodes(env), "UNSUPPORTED_PLATFORM") {
		t.Errorf("notarize on linux: warnings %v, want UNSUPPORTED_PLATFORM", env["warnings"])
	}
}

// storesFiles runs fetch and report in sb, and returns the files they
// wrote: the cache entry, the scratch directory (temp), the fetch log,
// and the dashboard (output).
func storesFiles(t *testing.T, sb *storesSandbox) (cache, temp, log, dashboard string) {
	t.Helper()
	expect(t, "fetch", sb.run(t, "fetch", "left-pad"), 0)
	env := expect(t, "report", sb.run(t, "report"), 0)
	cache = sb.path("home", ".cache", "e2eapp-stores", "left-pad.json")
	temp = sb.path("tmp", "e2eapp-stores-fetch-left-pad")
	log = sb.path("data", "e2eapp-stores", "fetch.jsonl")
	dashboard = sb.path("home", ".cache", "e2eapp-stores", "dashboard")
	if got := get(env, "data.dashboard"); got != filepath.Join(dashboard, "index.html") {
		t.Fatalf("premise: report wrote %v", got)
	}
	for _, p := range []string{cache, temp, log, dashboard} {
		if !exists(p) {
			t.Fatalf("premise: fetch and report wrote no %s", p)
		}
	}
	return cache, temp, log, dashboard
}

// TestC011SideEffects: REQ-C-011 (v1.16) on e2eapp-stores. fetch, which
// writes a cache entry, a scratch directory and a log line, declares all
// three in its --schema filesystem_side_effects; report, which renders a
// dashboard into a directory it chooses, declares it type "output", with
// no ttl_seconds or clearable_with, and both stay danger_level "safe".
// status --show-side-effects lists every declared path, the dashboard with
// its kind "output", type and size; cleanup removes the temp and cache
// paths, and under every --scope, all included, leaves the dashboard,
// though the cache glob matches it. An output entry with a TTL, or with a
// command that clears it, stops the tool from starting.
func TestC011SideEffects(t *testing.T) {
	t.Parallel()
	sb := newStoresSandbox(t)
	_, _, _, dashboard := storesFiles(t, sb)

	fetch, report := sb.schemaOf(t, "fetch"), sb.schemaOf(t, "report")
	wantFetch := []any{
		map[string]any{"path": "${XDG_CACHE_HOME}/e2eapp-stores/*", "type": "cache", "ttl_seconds": 3600.0, "clearable_with": "e2eapp-stores cleanup --scope cache"},
		map[string]any{"path": "${XDG_DATA_HOME}/e2eapp-stores/*.jsonl", "type": "log", "clearable_with": "e2eapp-stores cleanup --scope logs"},
		map[string]any{"path": "${TMPDIR}/e2eapp-stores-fetch-{package}", "type": "temp", "clearable_with": "e2eapp-stores cleanup --scope temp"},
	}
	if diff := cmp.Diff(wantFetch, fetch["filesystem_side_effects"]); diff != "" {
		t.Errorf("fetch --schema filesystem_side_effects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"path": "${XDG_CACHE_HOME}/e2eapp-stores/dashboard", "type": "output"}}, report["filesystem_side_effects"]); diff != "" {
		t.Errorf("report --schema filesystem_side_effects (-want +got):\n%s", diff)
	}
	if fetch["danger_level"] != "safe" || report["danger_level"] != "safe" {
		t.Errorf("danger_level: fetch %v, report %v; want safe", fetch["danger_level"], report["danger_level"])
	}

	env := expect(t, "status --show-side-effects", sb.run(t, "status", "--show-side-effects"), 0)
	listed := map[string]map[string]any{}
	for _, e := range get(env, "data.side_effects").([]any) {
		m := e.(map[string]any)
		listed[m["path"].(string)] = m
	}
	home := sb.path("home")
	for path, kind := range map[string]string{
		filepath.Join(home, ".cache/e2eapp-stores/*"): "cache", sb.path("data/e2eapp-stores/*.jsonl"): "log",
		sb.path("tmp/e2eapp-stores-fetch-{package}"): "temp", dashboard: "output",
	} {
		if got := listed[path]; got == nil || got["kind"] != kind {
			t.Errorf("status --show-side-effects: %s is %v, want kind %s (all: %v)", path, got, kind, keys(anyMap(listed)))
		}
	}
	size := float64(len(readFile(t, filepath.Join(dashboard, "index.html"))))
	if got := listed[dashboard]; got["type"] != "directory" || got["exists"] != true || got["size_bytes"] != size {
		t.Errorf("status --show-side-effects: the dashboard %v, want a directory of %v bytes", got, size)
	}

	for _, scope := range []string{"all", "temp", "cache", "logs"} {
		t.Run("cleanup --scope "+scope, func(t *testing.T) {
			t.Parallel()
			sb := newStoresSandbox(t)
			cache, temp, _, dashboard := storesFiles(t, sb)
			expect(t, "cleanup", sb.run(t, "cleanup", "--scope", scope, "--yes"), 0)
			if !exists(filepath.Join(dashboard, "index.html")) {
				t.Errorf("cleanup --scope %s removed the dashboard, an output", scope)
			}
			if gone := !exists(temp); gone != (scope == "all" || scope == "temp") {
				t.Errorf("cleanup --scope %s: the temp directory removed %v", scope, gone)
			}
			if gone := !exists(cache); gone != (scope == "all" || scope == "cache") {
				t.Errorf("cleanup --scope %s: the cache entry removed %v", scope, gone)
			}
		})
	}

	for _, mis := range []string{"output-ttl", "output-clearable"} {
		r := sandboxFor(t, misdeclared).runEnv(t, []string{"E2EAPP_MISDECLARE=" + mis}, "status")
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `is the command's product (output): it has no TTL and nothing clears it`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want it not to start", mis, r.code, r.stdout, r.stderr)
		}
	}
}

func anyMap(m map[string]map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestO027Cleanup: REQ-O-027 (v1.16) on e2eapp-stores, its audit log on
// (E2EAPP_STORES_AUDIT_LOG=1) beside the fetch log, both matched by
// fetch's declared log glob. cleanup --scope temp removes the scratch
// directory and nothing else; --scope cache the cache entry, not the log
// or temp; --format json answers data.cleaned (path, type, bytes_freed)
// and total_bytes_freed; --min-age 3600 removes nothing written now;
// --scope all leaves the dashboard (an output) and, under every scope,
// the audit log stays, on or off.
func TestO027Cleanup(t *testing.T) {
	t.Parallel()
	audit := []string{"E2EAPP_STORES_AUDIT_LOG=1"}
	tests := []struct {
		scope, minAge string
		removed       []string // of cache, temp, log
	}{
		{"temp", "0", []string{"temp"}},
		{"cache", "0", []string{"cache"}},
		{"logs", "0", []string{"log"}},
		{"all", "0", []string{"cache", "log", "temp"}},
		{"all", "3600", nil},
	}
	for _, tt := range tests {
		t.Run(tt.scope+" --min-age "+tt.minAge, func(t *testing.T) {
			t.Parallel()
			sb := newStoresSandbox(t)
			expect(t, "fetch", sb.runEnv(t, audit, "fetch", "left-pad"), 0)
			expect(t, "report", sb.runEnv(t, audit, "report"), 0)
			files := map[string]string{
				"cache": sb.path("home", ".cache", "e2eapp-stores", "left-pad.json"),
				"temp":  sb.path("tmp", "e2eapp-stores-fetch-left-pad"),
				"log":   sb.path("data", "e2eapp-stores", "fetch.jsonl"),
			}
			auditLog := sb.path("home", ".local", "state", "e2eapp-stores", "audit.jsonl")
			dashboard := sb.path("home", ".cache", "e2eapp-stores", "dashboard", "index.html")
			if !exists(auditLog) {
				t.Fatalf("premise: no audit log at %s", auditLog)
			}
			// The log off, then on: kept either way.
			for _, env := range [][]string{{"E2EAPP_STORES_AUDIT_LOG=0"}, audit} {
				r := sb.runEnv(t, env, "cleanup", "--scope", tt.scope, "--min-age", tt.minAge, "--yes", "--format", "json")
				expect(t, "cleanup", r, 0)
				if !exists(auditLog) || !exists(dashboard) {
					t.Errorf("cleanup --scope %s (%s): audit log there %v, dashboard there %v", tt.scope, env[0], exists(auditLog), exists(dashboard))
				}
			}
			var removed []string
			for what, p := range files {
				if !exists(p) {
					removed = append(removed, what)
				}
			}
			slices.Sort(removed)
			if diff := cmp.Diff(tt.removed, removed); diff != "" {
				t.Errorf("cleanup --scope %s --min-age %s removed (-want +got):\n%s", tt.scope, tt.minAge, diff)
			}
		})
	}

	// The JSON report of one cleanup.
	sb := newStoresSandbox(t)
	cache, temp, log, _ := storesFiles(t, sb)
	sizeOf := func(p string) float64 {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return float64(info.Size())
	}
	wantCleaned := []any{ // sorted by path
		map[string]any{"path": log, "type": "logs", "bytes_freed": sizeOf(log)},
		map[string]any{"path": cache, "type": "cache", "bytes_freed": sizeOf(cache)},
		map[string]any{"path": temp, "type": "temp", "bytes_freed": sizeOf(filepath.Join(temp, "unpacked"))},
	}
	total := sizeOf(cache) + sizeOf(log) + sizeOf(filepath.Join(temp, "unpacked"))
	env := expect(t, "cleanup --format json", sb.run(t, "cleanup", "--yes", "--format", "json"), 0)
	var cleaned []any
	for _, c := range get(env, "data.cleaned").([]any) {
		// Sessions of ended runs in Duet's temp root are cleaned too.
		if p, _ := get(c, "path").(string); !strings.HasPrefix(p, sb.path("tmp", fmt.Sprintf("e2eapp-stores-%d", os.Getuid()))) {
			cleaned = append(cleaned, c)
		}
	}
	if diff := cmp.Diff(wantCleaned, cleaned); diff != "" {
		t.Errorf("cleanup: data.cleaned (-want +got):\n%s", diff)
	}
	if get(env, "data.total_bytes_freed") != total {
		t.Errorf("cleanup: total_bytes_freed %v, want %v", get(env, "data.total_bytes_freed"), total)
	}
}

// TestO018CacheFlags: REQ-O-018 on e2eapp's resolve, which caches a
// package's version from the registry in ${XDG_CACHE_HOME}/e2eapp/resolve
// (declared, TTL 1h). Once cached, a registry change is not seen; with
// --no-cache, or --cache-ttl 0, resolve answers from the registry with
// meta.cache_used false and leaves the cached entry untouched (neither
// read nor written); an entry older than --cache-ttl seconds is treated
// as missing and fetched again, one younger is used (meta.cache_used
// true). Every command e2eapp describes has --no-cache and
// --cache-ttl exactly when it declares a cache, and a command without one
// refuses --no-cache.
func TestO018CacheFlags(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	registry := sb.path("registry.json")
	setRegistry := func(v string) {
		if err := os.WriteFile(registry, []byte(`{"left-pad":"`+v+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"E2EAPP_REGISTRY=" + registry}
	entry := sb.path("home", ".cache", "e2eapp", "resolve", "left-pad")
	resolve := func(what string, args ...string) map[string]any {
		t.Helper()
		return expect(t, what, sb.runEnv(t, env, append([]string{"resolve", "left-pad"}, args...)...), 0)
	}
	setRegistry("1.3.0")
	want(t, "resolve, first", resolve("resolve, first"), map[string]any{"data.version": "1.3.0", "data.source": "registry", "meta.cache_used": false})
	if readFile(t, entry) != "1.3.0" {
		t.Fatalf("premise: resolve cached %q at %s", readFile(t, entry), entry)
	}
	setRegistry("1.4.0")
	want(t, "resolve, cached", resolve("resolve, cached"), map[string]any{"data.version": "1.3.0", "data.source": "cache", "meta.cache_used": true})

	then := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	if err := os.Chtimes(entry, then, then); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--no-cache"}, {"--cache-ttl", "0"}} {
		what := "resolve " + strings.Join(flags, " ")
		want(t, what, resolve(what, flags...), map[string]any{"data.version": "1.4.0", "data.source": "registry", "meta.cache_used": false})
		info, err := os.Stat(entry)
		if err != nil || readFile(t, entry) != "1.3.0" || !info.ModTime().Equal(then) {
			t.Errorf("%s touched the cache: %q, %v", what, readFile(t, entry), err)
		}
	}
	want(t, "resolve --cache-ttl 86400", resolve("resolve --cache-ttl 86400", "--cache-ttl", "86400"),
		map[string]any{"data.version": "1.3.0", "data.source": "cache", "meta.cache_used": true})
	want(t, "resolve --cache-ttl 3600", resolve("resolve --cache-ttl 3600", "--cache-ttl", "3600"),
		map[string]any{"data.version": "1.4.0", "data.source": "registry", "meta.cache_used": false})
	if readFile(t, entry) != "1.4.0" {
		t.Errorf("resolve --cache-ttl 3600 did not refresh the stale entry: %q", readFile(t, entry))
	}

	// describe, not manifest: the manifest leaves filesystem_side_effects out.
	described := expect(t, "describe", sb.run(t, "describe"), 0)
	commands, _ := get(described, "data.commands").(map[string]any)
	if len(commands) < 10 {
		t.Fatalf("premise: describe lists %d commands", len(commands))
	}
	for name, c := range commands {
		declares := false
		effects, _ := get(c, "filesystem_side_effects").([]any)
		for _, e := range effects {
			declares = declares || get(e, "type") == "cache"
		}
		flags, _ := get(c, "flags").(map[string]any)
		_, noCache := flags["no-cache"]
		_, ttl := flags["cache-ttl"]
		if noCache != declares || ttl != declares {
			t.Errorf("%s: declares a cache %v, has --no-cache %v, --cache-ttl %v", name, declares, noCache, ttl)
		}
	}
	if !strings.Contains(strings.Join(flagNames(sb.schemaOf(t, "resolve")), ","), "no-cache") {
		t.Errorf("resolve --schema has no --no-cache")
	}
	expect(t, "greet --no-cache", sb.run(t, "greet", "--no-cache"), 2)
}
