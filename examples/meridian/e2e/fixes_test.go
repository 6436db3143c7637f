//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/run"
)

// TestModelFilterByAlias finds runs by the alias they were spawned with, as
// by the model's id: runs record the id (issue 19, 5).
func TestModelFilterByAlias(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "-m", "opus", "--wait")
	agent := sb.inSpace("s1")
	sb.ok(t, agent, nil, "run", "spawn", "-p", "two", "-m", "sonnet", "--wait")
	sb.ok(t, agent, nil, "run", "spawn", "-p", "three", "-m", "claude-opus-4-6", "--wait")
	for _, model := range []string{"opus", "claude-opus-4-6"} {
		var list []run.Summary
		sb.ok(t, agent, &list, "run", "list", "--model", model)
		var ids []string
		for _, s := range list {
			ids = append(ids, s.ID)
		}
		if strings.Join(ids, ",") != "r3,r1" {
			t.Errorf("run list --model %s: %v, want r3 and r1", model, ids)
		}
		var st run.Stats
		sb.ok(t, agent, &st, "run", "stats", "--model", model)
		if st.Runs != 2 || len(st.Models) != 1 || st.Models["claude-opus-4-6"] == nil {
			t.Errorf("run stats --model %s: %d runs, models %v; want opus's two", model, st.Runs, st.Models)
		}
	}
}

// TestPersonSeesRunsWaitedFor: a person who waits for runs reads them as run
// show shows them, and how they ended, not their JSON (issue 19, 5).
func TestPersonSeesRunsWaitedFor(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "Say hello", "--wait")
	screen, code := sb.person(t, sb.env, "run", "wait", "r1", "--space", "s1")
	screen = plain(screen)
	if code != 0 || strings.Contains(screen, `"`) || strings.Contains(screen, "{") ||
		!strings.Contains(screen, "r1  succeeded") || !strings.Contains(screen, "fake claude report: Say hello") ||
		!strings.Contains(screen, "1 succeeded, 0 failed") {
		t.Errorf("run wait r1 (exit %d) showed:\n%s", code, screen)
	}
}
