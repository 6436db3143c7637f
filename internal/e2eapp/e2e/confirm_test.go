//go:build linux

package e2e

import (
	"slices"
	"testing"
)

// TestO048ConfirmFlag shows REQ-O-048's confirm_flag: rollout previews
// without its --yes (meta.dry_run true, a would_* effect, exit 0, nothing
// written), runs with it (meta.dry_run false, meta.confirmed true), and
// --dry-run wins over --yes; the manifest names the flag.
func TestO048ConfirmFlag(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	target := sb.path("data", "e2eapp", "rolled-out")
	for _, args := range [][]string{{"rollout", "v3"}, {"rollout", "v3", "--dry-run", "--yes"}} {
		env := expect(t, "rollout", sb.run(t, args...), 0)
		want(t, "rollout", env, map[string]any{"meta.effect": "would_update", "meta.dry_run": true, "meta.confirmed": nil, "meta.would_affect.release": "v3"})
		if exists(target) {
			t.Fatalf("%v rolled out", args)
		}
	}
	env := expect(t, "rollout --yes", sb.run(t, "rollout", "v3", "--yes"), 0)
	want(t, "rollout --yes", env, map[string]any{"meta.effect": "updated", "meta.dry_run": false, "meta.confirmed": true})
	if readFile(t, target) != "v3" {
		t.Errorf("rollout --yes left %q", readFile(t, target))
	}
	// A destructive command is confirmed by --confirm-destructive (O-021):
	// without it, it previews and exits 0 rather than refusing with 2.
	marker := sb.path("data", "e2eapp", "decommissioned-h1")
	for _, args := range [][]string{{"decommission", "h1"}, {"decommission", "h1", "--dry-run", "--confirm-destructive"}, {"decommission", "h1", "--yes"}} {
		env := expect(t, "decommission", sb.run(t, args...), 0)
		want(t, "decommission", env, map[string]any{"meta.effect": "would_delete", "meta.dry_run": true, "meta.confirmed": nil})
		if exists(marker) {
			t.Fatalf("%v decommissioned the host", args)
		}
	}
	env = expect(t, "decommission --confirm-destructive", sb.run(t, "decommission", "h1", "--confirm-destructive"), 0)
	want(t, "decommission --confirm-destructive", env, map[string]any{"meta.effect": "deleted", "meta.dry_run": false, "meta.confirmed": true})
	if !exists(marker) {
		t.Errorf("decommission --confirm-destructive did not decommission the host")
	}
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	want(t, "manifest", commands, map[string]any{"rollout.confirm_flag": "yes", "decommission.confirm_flag": "confirm-destructive", "publish.confirm_flag": nil})
	if got := sb.schemaOf(t, "rollout")["confirm_flag"]; got != "yes" {
		t.Errorf("rollout --schema: confirm_flag %v", got)
	}
}

// TestC002Idempotent shows REQ-C-002's idempotent: declared, it is in
// --schema and the manifest, absent elsewhere, and the command still takes
// --idempotency-key; a rerun converges.
func TestC002Idempotent(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	doc := sb.schemaOf(t, "snapshot")
	if doc["idempotent"] != true || !slices.Contains(flagNames(doc), "idempotency-key") {
		t.Errorf("snapshot --schema: idempotent %v, flags %v", doc["idempotent"], flagNames(doc))
	}
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	want(t, "manifest", commands, map[string]any{"snapshot.idempotent": true, "reset.idempotent": nil, "status.idempotent": nil})
	// The key still deduplicates one request (REQ-C-007): its replay is a noop.
	for _, effect := range []string{"updated", "noop"} {
		want(t, "snapshot --idempotency-key", expect(t, "snapshot --idempotency-key", sb.run(t, "snapshot", "--idempotency-key", "k1"), 0), map[string]any{"meta.effect": effect})
	}
	want(t, "snapshot", expect(t, "snapshot", sb.run(t, "snapshot"), 0), map[string]any{"meta.effect": "updated"})
	if got := readFile(t, sb.path("data", "e2eapp", "snapshot.json")); got != `{"healthy":true}` {
		t.Errorf("snapshot wrote %q", got)
	}
}
