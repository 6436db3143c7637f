//go:build linux

package e2e

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestMisdeclaredRefusedAtStartup: what Duet checks when the app is wrapped
// (registration is in-process by nature), shown through the binary. Each
// case is e2eapp with one more command, declared as E2EAPP_MISDECLARE says
// (internal/e2eapp/app/misdeclared.go): the binary does not start — exit 1,
// nothing on stdout, the command and the broken rule named on stderr —
// whatever it is asked to run. The same binary with a sound declaration
// starts (the test can fail).
//
//   - REQ-C-002 criterion 1: no danger level;
//   - REQ-C-002 criterion 3 (REQ-C-004): destructive without --dry-run;
//   - REQ-C-002 criterion 5 (REQ-C-007): a streaming mutating command that
//     takes --idempotency-key;
//   - REQ-F-057 criterion 3: a browser with no headless behaviour;
//   - REQ-C-025 criterion 3: a configuration write without a write scope
//     (an error: stricter than the spec's warning);
//   - REQ-C-029 criteria 1 and 4: a login without scopes; a blanket scope
//     nothing explains;
//   - REQ-O-048 criterion 5: a safe default without a dry run;
//   - REQ-C-001 criterion 3: a retryable exit with side effects;
//   - REQ-C-022 (related to criterion 4): an async command that cannot
//     run detached;
//   - REQ-F-054: line mode without a description of a line, and a line
//     cap on a command that reads its payload whole.
func TestMisdeclaredRefusedAtStartup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		misdeclare string
		command    string   // named on stderr
		says       []string // on stderr
	}{
		{"no-danger", "wipe", []string{"must declare Meta.Danger"}},
		{"destructive-no-dry-run", "wipe", []string{"a destructive command must implement --dry-run"}},
		{"streaming-idempotency-key", "wipe", []string{"cannot take --idempotency-key"}},
		{"gui-no-headless", "preview", []string{"Meta.GUI needs Meta.Headless"}},
		{"config-no-scope", "remember", []string{"writes configuration: declare which with Meta.ConfigWrite"}},
		{"auth-no-scopes", "sso-login", []string{"must declare the scopes it needs: Meta.Scopes"}},
		{"blanket-scope", "members", []string{`scope "admin:org" is a blanket admin or owner scope`}},
		{"safe-default-no-dry-run", "ship", []string{"Meta.SafeDefault runs the command as a dry run by default, so it must implement one"}},
		{"retryable-with-side-effects", "flaky", []string{"exit code 90 (UPSTREAM_HICCUP) is retryable but has side_effects \"partial\""}},
		{"async-list", "export", []string{"an async command runs detached"}},
		{"destructive-confirm-yes", "wipe", []string{`Meta.ConfirmFlag "yes": a destructive command is confirmed by --confirm-destructive`}},
		{"lines-undescribed", "load-all", []string{"Meta.StdinLines and Meta.Records need Meta.Stdin"}},
		{"line-cap-buffered", "load-all", []string{"Meta.MaxLineBytes 4096: a line cap is a positive number of bytes, for a command that declares Meta.StdinLines"}},
	}
	for _, tt := range tests {
		t.Run(tt.misdeclare, func(t *testing.T) {
			t.Parallel()
			sb := sandboxFor(t, misdeclared)
			for _, args := range [][]string{{"status"}, {"manifest"}, {tt.command}} {
				r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=" + tt.misdeclare}, args...)
				if r.code != 1 || r.stdout != "" {
					t.Fatalf("%v: exit %d, stdout %q; want it not to start", args, r.code, r.stdout)
				}
				for _, s := range append([]string{`command "` + tt.command + `"`}, tt.says...) {
					if !strings.Contains(r.stderr, s) {
						t.Errorf("%v: stderr does not say %q:\n%s", args, s, r.stderr)
					}
				}
			}
		})
	}
	t.Run("a sound declaration", func(t *testing.T) {
		t.Parallel()
		sb := sandboxFor(t, misdeclared)
		expect(t, "status", sb.runEnv(t, []string{"E2EAPP_MISDECLARE=undeclared-exit"}, "status"), 0)
	})
}

// ---------------------------------------------------------------------------
// REQ-C-002 Command declares danger level.

// TestC002DangerLevelInEverySchema: REQ-C-002 criterion 2. The --schema of
// every command the manifest lists gives its danger_level, one of safe,
// mutating and destructive, and the manifest agrees.
func TestC002DangerLevelInEverySchema(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	for path, c := range commands {
		level, _ := get(c, "danger_level").(string)
		if !slices.Contains([]string{"safe", "mutating", "destructive"}, level) {
			t.Errorf("manifest: %s has danger_level %q", path, level)
		}
		if path == "e2eapp" || delegates(c) {
			continue // the root's --schema describes the tree; a passthrough command's is its tool's
		}
		if got := sb.schemaOf(t, strings.Split(path, ".")...)["danger_level"]; got != level {
			t.Errorf("%s --schema: danger_level %v, manifest %q", path, got, level)
		}
	}
	for cmd, level := range map[string]string{"status": "safe", "reset": "mutating", "purge": "destructive", "publish": "destructive", "report": "safe"} {
		if got := get(commands, cmd+".danger_level"); got != level {
			t.Errorf("%s: danger_level %v, want %s", cmd, got, level)
		}
	}
}

// TestC002DestructiveNeedsADryRun: REQ-C-002 criterion 3 (REQ-C-004, and the
// registration half in TestMisdeclaredRefusedAtStartup). `purge` is
// destructive: it has --dry-run, which previews (would_delete) and deletes
// nothing; piped without --yes it is refused (exit 2,
// CONFIRMATION_REQUIRED) with its preview in meta and nothing deleted;
// with --yes it deletes.
func TestC002DestructiveNeedsADryRun(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	cache := sb.path("data", "e2eapp", "cache")
	os.MkdirAll(cache, 0o700)
	os.WriteFile(cache+"/a", []byte("x"), 0o600)
	if flags := flagNames(sb.schemaOf(t, "purge")); !slices.Contains(flags, "dry-run") {
		t.Errorf("purge --schema has no --dry-run: %v", flags)
	}
	want(t, "purge --dry-run", expect(t, "purge --dry-run", sb.run(t, "purge", "--dry-run"), 0),
		map[string]any{"meta.effect": "would_delete", "meta.dry_run": true, "meta.would_affect.files": 1.0})
	want(t, "purge", expect(t, "purge", sb.run(t, "purge"), 2),
		map[string]any{"error.code": "CONFIRMATION_REQUIRED", "meta.dry_run": true, "meta.would_affect.files": 1.0, "data": nil})
	if !exists(cache + "/a") {
		t.Fatal("a preview or a refusal deleted the cache")
	}
	want(t, "purge --yes", expect(t, "purge --yes", sb.run(t, "purge", "--yes"), 0), map[string]any{"meta.effect": "deleted"})
	if exists(cache) {
		t.Error("purge --yes left the cache")
	}
}

// TestC002IdempotencyKeyByDanger: REQ-C-002 criteria 4 and 5 (REQ-C-007; the
// registration half of 5 is in TestMisdeclaredRefusedAtStartup). Safe
// commands have no --idempotency-key and run without one; every
// non-streaming mutating or destructive command has it; the streaming
// mutating `ingest` does not.
func TestC002IdempotencyKeyByDanger(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	expect(t, "status", sb.run(t, "status"), 0)
	for cmd, has := range map[string]bool{
		"status": false, "report": false, "lookup": false,
		"reset": true, "config-set": true, "tag": true, "approve": true, "purge": true, "publish": true,
		"ingest": false,
	} {
		if got := slices.Contains(flagNames(sb.schemaOf(t, cmd)), "idempotency-key"); got != has {
			t.Errorf("%s --schema: --idempotency-key %v, want %v", cmd, got, has)
		}
	}
	if doc := sb.schemaOf(t, "ingest"); doc["danger_level"] != "mutating" {
		t.Errorf("ingest --schema: danger_level %v", doc["danger_level"])
	}
}

// TestC002StreamingDestructiveRefused: REQ-C-002 criterion 6 (v1.11,
// REQ-O-004): a streaming command declared destructive must be refused at
// registration. e2eapp-misdeclared with one starts and runs: Duet does not
// check it (adapters/builtin.go and longwork.go checkWork have no such
// rule).
func TestC002StreamingDestructiveRefused(t *testing.T) {
	t.Parallel()
	sb := sandboxFor(t, misdeclared)
	r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=streaming-destructive"}, "status")
	if r.code == 0 {
		gap(t, "a streaming destructive command registers: e2eapp-misdeclared started and answered status")
	}
	if r.code != 1 || !strings.Contains(r.stderr, `command "wipe"`) {
		t.Errorf("exit %d, stderr %q; want a refusal naming wipe", r.code, r.stderr)
	}
}

// TestC002SafeWritesOfItsOwn: REQ-C-002 criterion 7. A command whose only
// declared writes are cache, log and temp files (`report`) registers as
// safe and says so, its writes listed in filesystem_side_effects. The
// spec's fourth kind, output, cannot be declared: Duet refuses the kind
// (schema/trust.go has no OutputFile; adapters/trust.go lists cache, log,
// temp, credential, config), so a report generator writing its product to
// an output path cannot say so and stay safe.
func TestC002SafeWritesOfItsOwn(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	doc := sb.schemaOf(t, "report")
	var kinds []string
	list, _ := doc["filesystem_side_effects"].([]any)
	for _, e := range list {
		kind, _ := get(e, "type").(string)
		kinds = append(kinds, kind)
	}
	if doc["danger_level"] != "safe" || !slices.Equal(kinds, []string{"cache", "log", "temp"}) {
		t.Errorf("report --schema: danger_level %v, side effects %v", doc["danger_level"], kinds)
	}
	expect(t, "report", sb.run(t, "report"), 0)

	mis := sandboxFor(t, misdeclared)
	r := mis.runEnv(t, []string{"E2EAPP_MISDECLARE=safe-output-write"}, "status")
	if r.code == 1 && strings.Contains(r.stderr, `kind "output" is not cache, log, temp, credential or config`) {
		gap(t, "a safe command cannot declare an output write: %s", strings.TrimSpace(r.stderr))
	}
	expect(t, "status", r, 0)
	if got := mis.runEnv(t, []string{"E2EAPP_MISDECLARE=safe-output-write"}, "render", "--schema"); !strings.Contains(got.stdout, `"danger_level":"safe"`) {
		t.Errorf("render --schema: %s", got.stdout)
	}
}
