//go:build linux

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2EIdempotentBuiltins: REQ-C-007 on Duet's own mutating built-ins,
// cleanup and profile save: the same --idempotency-key with the same input
// is not run again and answers the first call's data with meta.effect noop
// and meta.idempotency_hit true; the key with other input is refused, exit
// 6 IDEMPOTENCY_KEY_REUSED, and nothing is run.
func TestE2EIdempotentBuiltins(t *testing.T) { onEach(t, testIdempotentBuiltins) }

func testIdempotentBuiltins(t *testing.T, bin string) {
	t.Parallel()
	reused := map[string]any{"error.code": "IDEMPOTENCY_KEY_REUSED", "error.field": "idempotency-key", "error.retryable": false, "data": nil}
	hit := map[string]any{"meta.effect": "noop", "meta.idempotency_hit": true}

	t.Run("cleanup", func(t *testing.T) {
		t.Parallel()
		sb := longSandbox(t, bin)
		sb.seed(t, item("t1", "a", false))
		// A finished export leaves a job and its output for cleanup to remove.
		started := sb.expect(t, 0, map[string]any{"data.status": "running"}, "export")
		id, _ := get(started, "data.job_id").(string)
		sb.expect(t, 0, map[string]any{"data.status": "complete"}, "job", "status", id, "--wait")

		first := sb.expect(t, 0, map[string]any{"meta.effect": "deleted"}, "cleanup", "--yes", "--idempotency-key", "c1")
		if cleaned, _ := get(first, "data.cleaned").([]any); len(cleaned) == 0 {
			t.Fatalf("premise: the first cleanup removed nothing: %v", first["data"])
		}
		// There is nothing left to clean: a cleanup that ran would answer
		// an empty list.
		second := sb.expect(t, 0, hit, "cleanup", "--yes", "--idempotency-key", "c1")
		if diff := cmp.Diff(first["data"], second["data"]); diff != "" {
			t.Errorf("the repeat's data is not the first's (-first +repeat):\n%s", diff)
		}
		sb.expect(t, 6, reused, "cleanup", "--scope", "temp", "--yes", "--idempotency-key", "c1")
		// Without a key the call runs: it removes what is left, the record
		// of c1 itself.
		fresh := sb.expect(t, 0, map[string]any{"meta.effect": "deleted", "meta.idempotency_hit": nil, "data.cleaned.0.type": "cache"}, "cleanup", "--yes")
		if diff := cmp.Diff(first["data"], fresh["data"]); diff == "" {
			t.Errorf("a cleanup without a key answered the keyed call's data: %v", fresh["data"])
		}
	})

	t.Run("profile save", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t, bin)
		a, b := filepath.Join(sb.dir, "a.json"), filepath.Join(sb.dir, "b.json")
		savedFile := func() any {
			t.Helper()
			return get(sb.expect(t, 0, map[string]any{}, "profile", "show", "p1"), "data.flags.file")
		}
		first := sb.expect(t, 0, map[string]any{"meta.effect": "created", "data.flags.file": a}, "profile", "save", "p1", "--file", a, "--idempotency-key", "s1")
		// Changed since, without a key: a repeat that ran would put a back.
		sb.expect(t, 0, map[string]any{"meta.effect": "updated"}, "profile", "save", "p1", "--file", b)
		second := sb.expect(t, 0, hit, "profile", "save", "p1", "--file", a, "--idempotency-key", "s1")
		if diff := cmp.Diff(first["data"], second["data"]); diff != "" {
			t.Errorf("the repeat's data is not the first's (-first +repeat):\n%s", diff)
		}
		if got := savedFile(); got != b {
			t.Errorf("after the repeat the profile's --file is %v, want %s: the repeat ran", got, b)
		}
		for _, args := range [][]string{
			{"profile", "save", "p1", "--file", b, "--idempotency-key", "s1"}, // other input
			{"profile", "save", "p2", "--file", a, "--idempotency-key", "s1"}, // another profile
		} {
			sb.expect(t, 6, reused, args...)
			if got := savedFile(); got != b {
				t.Errorf("after the refused %q the profile's --file is %v, want %s", args, got, b)
			}
		}
		sb.expect(t, 5, map[string]any{"error.code": "PROFILE_NOT_FOUND"}, "profile", "show", "p2")
	})
}
