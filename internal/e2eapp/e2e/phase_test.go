//go:build linux

package e2e

import (
	"os"
	"slices"
	"testing"
)

// ---------------------------------------------------------------------------
// REQ-F-015 Validate-before-execute phase order.

// TestF015ValidateBeforeExecute: REQ-F-015 criteria 1, 2 and 4, and
// criterion 3 as Duet meets it. `scale` declares --env's values and checks
// --replicas in its Validate hook; like many apps it also takes a lock in
// urfave's Before hook, the app's own code that urfave runs ahead of the
// action. Duet reads and checks the whole command line before urfave runs
// either, so every command line with problems is answered with all of them
// at once, exit 2, phase validation — and neither the lock nor the replicas
// file is written, --validate-only included. A sound command line runs the
// hook, then the action.
//
// Criterion 3 asks for a registration error when a command registers an
// execute hook that runs before its validate hooks. In Duet there is no
// such registration to refuse: the lifecycle runs phase 1 (the
// declarations, then Meta.Validate) before it hands the command line to
// the framework, so no hook of the app — Before, PreRun, the action — can
// run ahead of validation. This test is what shows it.
func TestF015ValidateBeforeExecute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		fields []string // named in error.errors, in order
	}{
		{"two bad values", []string{"--env", "staging2", "--replicas", "0"}, []string{"env", "replicas"}},
		{"two missing flags", nil, []string{"env", "replicas"}},
		{"a bad value and a missing flag", []string{"--replicas", "51"}, []string{"env", "replicas"}},
		{"two bad values, validation only", []string{"--env", "qa", "--replicas", "x", "--validate-only"}, []string{"env", "replicas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			env := expect(t, "scale", sb.run(t, append([]string{"scale"}, tt.args...)...), 2)
			want(t, "scale", env, map[string]any{"error.phase": "validation", "error.retryable": false, "data": nil})
			if fix, _ := get(env, "error.fix_required").(string); fix == "" {
				t.Error("a validation error without fix_required (REQ-C-014)")
			}
			var fields []string
			list, _ := get(env, "error.errors").([]any)
			for _, e := range list {
				f, _ := get(e, "field").(string)
				fields = append(fields, f)
			}
			slices.Sort(fields)
			if !slices.Equal(fields, tt.fields) {
				t.Errorf("error.errors name %v, want every problem at once: %v", fields, tt.fields)
			}
			if entries, _ := os.ReadDir(sb.path("data", "e2eapp")); len(entries) > 0 {
				t.Errorf("a refused command line wrote %s: a hook of the app ran before validation", entries[0].Name())
			}
		})
	}
	t.Run("a sound command line", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		expect(t, "scale --validate-only", sb.run(t, "scale", "--env", "staging", "--replicas", "3", "--validate-only"), 0)
		if exists(sb.path("data", "e2eapp")) {
			t.Error("--validate-only ran the app's Before hook")
		}
		want(t, "scale", expect(t, "scale", sb.run(t, "scale", "--env", "staging", "--replicas", "3"), 0),
			map[string]any{"data.replicas": 3.0, "meta.effect": "updated"})
		if got := readFile(t, sb.path("data", "e2eapp", "replicas-staging")); got != "3" {
			t.Errorf("replicas-staging %q, want 3", got)
		}
		if exists(sb.path("data", "e2eapp", "scale.lock")) {
			t.Error("the lock outlived the command: its After hook did not run")
		}
	})
}
