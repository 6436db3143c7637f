//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestFileOutsideProject: an agent's run reads the project's files only. A
// --file that leads out of the project, by .. or by a link, is refused
// before anything is written (issue 19, 4); a file of the project is read,
// and a person at the terminal may name any file.
func TestFileOutsideProject(t *testing.T) {
	sb := newSandbox(t)
	outside := filepath.Join(filepath.Dir(sb.dir), "secret.txt")
	os.WriteFile(outside, []byte("the secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(sb.dir, "link.txt"))
	os.WriteFile(filepath.Join(sb.dir, "notes.txt"), []byte("the notes\n"), 0o644)
	rel, _ := filepath.Rel(sb.dir, outside)
	for _, path := range []string{rel, outside, "link.txt", "../project/../secret.txt"} {
		e := sb.invalid(t, sb.env, "run", "spawn", "-p", "read it", "-f", path, "--wait")
		if e.Code != "PATH_OUTSIDE_PROJECT" && !strings.Contains(fmt.Sprint(e), "PATH_OUTSIDE_PROJECT") {
			t.Errorf("-f %s: %+v, want PATH_OUTSIDE_PROJECT", path, e)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.dir, ".meridian", ".spaces")); !os.IsNotExist(err) {
		t.Errorf("a refused run left a space behind: %v", err)
	}
	var d run.Detail
	sb.ok(t, sb.env, &d, "run", "spawn", "-p", "read it", "-f", "notes.txt", "--wait")
	input, _ := os.ReadFile(filepath.Join(sb.spaceDir("s1"), "runs", d.ID, "input.md"))
	if !strings.Contains(string(input), "the notes") {
		t.Errorf("input.md lacks the project's file:\n%s", input)
	}
	screen, code := sb.person(t, sb.env, "run", "spawn", "--space", "s1", "-p", "read it", "-f", outside, "--wait")
	if code != 0 || !strings.Contains(plain(screen), "succeeded") {
		t.Errorf("a person's -f %s (exit %d):\n%s", outside, code, plain(screen))
	}
}

// TestHumanOnlyRefusedToAgents: an agent (MERIDIAN_SPACE_ID set) cannot run
// the commands for people — close a space, show the config, init, start —
// even by name (issue 19, 2): exit 7, HUMAN_ONLY_COMMAND, and the space
// stays open. --human is the person's way through; a script's pipe is not
// refused.
func TestHumanOnlyRefusedToAgents(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "--wait")
	agent := sb.inSpace("s1")
	for _, args := range [][]string{{"space", "close", "s1", "--yes"}, {"config", "show"}, {"init"}, {"start"}, {"space", "list"}} {
		e := sb.fails(t, agent, "HUMAN_ONLY_COMMAND", 7, args...)
		if !strings.Contains(e.Suggestion, "person") {
			t.Errorf("%q: suggestion %q, want the next step", args, e.Suggestion)
		}
	}
	var sp struct{ Status string }
	sb.ok(t, sb.env, &sp, "space", "show", "s1")
	if sp.Status != "active" {
		t.Errorf("space s1 is %q after an agent's refused close, want active", sp.Status)
	}
	sb.ok(t, agent, nil, "space", "close", "s1", "--yes", "--human")
}
