//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/describe"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/internal/ptytest"
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

// TestAgentHelpIsTheSeeds: an agent's help lists meridian's commands for
// agents and nothing else — the seed's Runs, Discovery and Health, not
// Duet's built-ins such as serve and describe (issue 19, 2) — while a
// person's lists them, and an agent can still run describe.
func TestAgentHelpIsTheSeeds(t *testing.T) {
	sb := newSandbox(t)
	agent := sb.inSpace("s1")
	commands := func(help string) []string {
		_, section, _ := strings.Cut(help, "COMMANDS:\n")
		section, _, _ = strings.Cut(section, "\n\n"+"GLOBAL OPTIONS:")
		section, _, _ = strings.Cut(section, "\nOPTIONS:")
		var names []string
		for _, line := range strings.Split(section, "\n") {
			if f := strings.Fields(line); len(f) > 1 && !strings.HasSuffix(f[0], ":") {
				names = append(names, strings.TrimSuffix(f[0], ","))
			}
		}
		slices.Sort(names)
		return names
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"doctor", "help", "models", "run", "skills"}},
		{[]string{"run"}, []string{"cancel", "continue", "follow", "list", "output", "review", "show", "spawn", "stats", "wait"}},
	} {
		r := sb.run(t, agent, append(tc.args, "--help")...)
		if diff := cmp.Diff(tc.want, commands(r.stderr)); diff != "" {
			t.Errorf("agent's %v --help lists (-want +got):\n%s\n%s", tc.args, diff, r.stderr)
		}
	}
	screen, _ := sb.person(t, sb.env, "--help")
	for _, name := range []string{"serve", "describe", "start", "space"} {
		if !strings.Contains(screen, "   "+name+" ") {
			t.Errorf("a person's help does not list %s:\n%s", name, screen)
		}
	}
	var m describe.Compact
	sb.ok(t, agent, &m, "describe")
	_, spawn := m.Commands["run.spawn"]
	if _, serve := m.Commands["serve"]; !spawn || !serve {
		t.Errorf("describe for an agent lacks run.spawn or serve: %v", slices.Collect(maps.Keys(m.Commands)))
	}
}

// TestInputErrorsSayWhatToDo: an input Duet refuses says what to correct
// in other words than what was wrong — fix_required for an agent, the Next
// a person reads — not the message again (issue 19, 5).
func TestInputErrorsSayWhatToDo(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "--wait")
	agent := sb.inSpace("s1")
	for _, tc := range []struct {
		args []string
		fix  string
	}{
		{[]string{"run", "list", "--bogus"}, "remove --bogus"},
		{[]string{"run", "show"}, "give <run-id>"},
		{[]string{"run", "spawn"}, "add --prompt"},
		{[]string{"run", "list", "--status", "nope"}, "use one of: running, succeeded, failed, cancelled"},
		{[]string{"run", "list", "--limit", "x"}, "give --limit a value of its type"},
	} {
		e := sb.invalid(t, agent, tc.args...)
		if e.FixRequired != tc.fix {
			t.Errorf("%v: fix_required %q, want %q (message %q)", tc.args, e.FixRequired, tc.fix, e.Message)
		}
		screen, code := sb.person(t, sb.env, append(tc.args, "--space", "s1")...)
		screen = strings.Join(strings.Fields(plain(screen)), " ") // unwrapped
		if want := "Next: " + tc.fix; code != 2 || !strings.Contains(screen, want) {
			t.Errorf("%v as a person: exit %d, %q; want %q", tc.args, code, screen, want)
		}
	}
}

// TestStatsFromTally: run stats keeps the runs it summed in
// runs.tally.json and sums on from it (issue 19, performance): the second
// call says it used the cache and answers as the first; a run spawned
// since is counted; --no-cache and a damaged cache answer the same, from
// the log.
func TestStatsFromTally(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "-m", "opus", "--wait")
	agent := sb.inSpace("s1")
	sb.fails(t, agent, "RUN_FAILED", 1, "run", "spawn", "-p", "[fake:fail]", "-m", "sonnet", "--wait")
	stats := func(args ...string) (run.Stats, bool) {
		t.Helper()
		var st run.Stats
		e := sb.ok(t, agent, &st, append([]string{"run", "stats"}, args...)...)
		return st, e.Meta["cache_used"] == true
	}
	first, cached := stats()
	if cached || first.Runs != 2 || first.ByStatus["succeeded"] != 1 || first.ByStatus["failed"] != 1 {
		t.Fatalf("first stats = %+v, cache used %v; want 2 runs, one failed, from the log", first, cached)
	}
	if second, cached := stats(); !cached || !cmp.Equal(first, second) {
		t.Errorf("second stats used the cache: %v; differs (-first +second):\n%s", cached, cmp.Diff(first, second))
	}
	sb.ok(t, agent, nil, "run", "spawn", "-p", "three", "-m", "opus", "--wait")
	third, cached := stats()
	if !cached || third.Runs != 3 || third.Models["claude-opus-4-6"].Runs != 2 {
		t.Errorf("stats after a third run = %+v, cache used %v; want 3 runs, 2 of opus", third, cached)
	}
	if again, cached := stats("--no-cache"); cached || !cmp.Equal(third, again) {
		t.Errorf("--no-cache: cache used %v; differs (-cached +log):\n%s", cached, cmp.Diff(third, again))
	}
	if err := os.WriteFile(filepath.Join(sb.spaceDir("s1"), "runs.tally.json"), []byte(`{"v":1,"offset":9`), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, cached := stats(); cached || !cmp.Equal(third, again) {
		t.Errorf("damaged cache: cache used %v; differs (-before +after):\n%s", cached, cmp.Diff(third, again))
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
// even by name (issue 19, 2): exit 4, PERSON_REQUIRED, never retryable,
// with a suggestion that hands the command to a person and names no flag
// (REQ-C-036: --yes does not stand in), and the space stays open. --human
// is the person's way through; a script's pipe is not refused.
func TestHumanOnlyRefusedToAgents(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "--wait")
	agent := sb.inSpace("s1")
	for _, args := range [][]string{{"space", "close", "s1", "--yes"}, {"config", "show"}, {"init"}, {"start"}, {"space", "list"}} {
		e := sb.fails(t, agent, "PERSON_REQUIRED", 4, args...)
		if !strings.Contains(e.Suggestion, "person") || strings.Contains(e.Suggestion, "--") || e.Retryable {
			t.Errorf("%q: suggestion %q, retryable %v; want the command handed to a person, no flag, not retryable", args, e.Suggestion, e.Retryable)
		}
	}
	var sp struct{ Status string }
	sb.ok(t, sb.env, &sp, "space", "show", "s1")
	if sp.Status != "active" {
		t.Errorf("space s1 is %q after an agent's refused close, want active", sp.Status)
	}
	sb.ok(t, agent, nil, "space", "close", "s1", "--yes", "--human")
}

// TestChatLivesWithItsHarness: a chat is alive while its harness is, not
// its meridian start (the seed: the flock is held by each harness process;
// issue 19, 1). With meridian start killed by SIGKILL the lock stays held,
// doctor leaves the chat and its space alone, and space close stops the
// harness itself and records the chat's end.
func TestChatLivesWithItsHarness(t *testing.T) {
	sb := newSandbox(t)
	// As in a terminal multiplexer: a shell leads the terminal's session,
	// so that meridian start's death hangs nothing up.
	cmd := exec.Command("sh", "-c", `"$0" start; sleep 60`, bin)
	cmd.Env, cmd.Dir = sb.env, sb.dir
	ptytest.Start(t, cmd).WaitFor(t, "fake claude interactive session ")
	lock := filepath.Join(sb.spaceDir("s1"), "sessions", "c1.lock")
	eventually(t, "the chat's lock", func() bool { held, _ := state.Alive(lock); return held })
	harness := sb.lastRecord(t).PID
	eventually(t, "the harness's pid in sessions.jsonl", func() bool {
		for _, ev := range sb.sessionEvents(t, "s1") {
			if ev["harness_pid"] == float64(harness) {
				return true
			}
		}
		return false
	})
	start := int(sb.sessionEvents(t, "s1")[0]["pid"].(float64))
	if err := syscall.Kill(start, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "meridian start to die", func() bool { return !alive(start) })
	if !alive(harness) {
		t.Fatal("the harness died with meridian start: the test shows nothing")
	}
	if held, err := state.Alive(lock); !held {
		t.Errorf("the chat's lock is free (%v) while its harness lives", err)
	}
	sb.ok(t, sb.env, nil, "doctor")
	var shown struct {
		Status string
		Chats  []struct {
			ID    string
			Alive bool
		}
	}
	sb.ok(t, sb.env, &shown, "space", "show", "s1")
	if shown.Status != "active" || len(shown.Chats) != 1 || !shown.Chats[0].Alive {
		t.Errorf("after doctor: space %+v, want it active with c1 alive", shown)
	}
	for _, ev := range sb.sessionEvents(t, "s1") {
		if ev["event"] == "stop" {
			t.Errorf("doctor recorded the end of a chat whose harness lives: %v", ev)
		}
	}
	var closed struct {
		Stopped []string `json:"stopped_chats"`
	}
	sb.ok(t, sb.env, &closed, "space", "close", "s1", "--yes")
	if len(closed.Stopped) != 1 || closed.Stopped[0] != "c1" {
		t.Errorf("space close stopped %v, want c1", closed.Stopped)
	}
	eventually(t, "the harness to end", func() bool { return !alive(harness) })
	evs := sb.sessionEvents(t, "s1")
	if last := evs[len(evs)-1]; last["event"] != "stop" {
		t.Errorf("sessions.jsonl ends with %v, want the chat's end", last)
	}
}

// TestRunChanges: a run records what it changed in the project's tree, by
// a real git — the files, with how, and the diff, untracked files included
// and what was there before the run left out — shown by run show and kept
// as artifacts; runs that worked in the tree at the same time are named, as
// their edits may be in each other's diff; outside a repository the run
// succeeds and says why there is no diff (Agent Mesh, issue 19).
func TestRunChanges(t *testing.T) {
	sb := newSandbox(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", sb.dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = sb.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(sb.dir, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(sb.dir, "b.txt"), []byte("keep\n"), 0o644)
	git("add", "a.txt", "b.txt")
	git("commit", "-qm", "init")
	os.WriteFile(filepath.Join(sb.dir, "before.txt"), []byte("untracked before the run\n"), 0o644)
	os.WriteFile(filepath.Join(sb.dir, "data.bin"), make([]byte, 2<<20), 0o644) // over the cap: never copied into git

	var d run.Detail
	sb.ok(t, sb.env, &d, "run", "spawn", "-p", `[fake-write:a.txt=one\ntwo\n][fake-write:new/c.txt=hello\n][fake-delete:b.txt] edit`, "--wait")
	sb.ok(t, sb.inSpace("s1"), &d, "run", "show", d.ID)
	ch := d.Changes
	if ch == nil {
		t.Fatalf("run show has no changes: %+v", d)
	}
	want := []run.FileChange{{Path: "a.txt", Status: "modified"}, {Path: "b.txt", Status: "deleted"}, {Path: "new/c.txt", Status: "added"}}
	if diff := cmp.Diff(want, ch.Files); diff != "" || ch.Note != "" || ch.LargeUntracked != 1 {
		t.Errorf("files (-want +got):\n%s\nnote %q, %d large untracked", diff, ch.Note, ch.LargeUntracked)
	}
	sizes, err := exec.Command("git", "-C", sb.dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectsize)").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(sizes)) {
		if n, _ := strconv.Atoi(f); n >= 2<<20 {
			t.Errorf("an object of %d bytes is in the repository: the large untracked file was copied", n)
		}
	}
	// The normalized result of Agent Mesh carries the diff, once.
	res := d.Result
	if res == nil || !res.OK || res.Cwd != sb.dir || res.DurationMS == nil || res.Usage.InputTokens == nil || ch.Diff != "" ||
		!slices.Equal(res.Artifacts.FilesWritten, []string{"a.txt", "new/c.txt"}) {
		t.Errorf("result %+v, changes' diff %q", res, ch.Diff)
	}
	if diff := res.Artifacts.GitDiff; !strings.Contains(diff, "+two") || !strings.Contains(diff, "+hello") || !strings.Contains(diff, "-keep") || strings.Contains(diff, "before.txt") {
		t.Errorf("diff:\n%s", diff)
	}
	if !slices.Contains(d.Artifacts, "output/diff.patch") || !slices.Contains(d.Artifacts, "output/changes.json") || len(ch.Concurrent) != 0 {
		t.Errorf("artifacts %q, concurrent %q", d.Artifacts, ch.Concurrent)
	}

	// Two runs at once in one tree: each may hold the other's edits.
	agent := sb.inSpace("s1")
	var r2, r3 run.Detail
	sb.ok(t, agent, &r2, "run", "spawn", "-p", `[fake:sleep=1s][fake-write:x.txt=x] one`)
	sb.ok(t, agent, &r3, "run", "spawn", "-p", `[fake:sleep=1s][fake-write:y.txt=y] two`, "--wait")
	sb.ok(t, agent, nil, "run", "wait", r2.ID)
	for _, pair := range [][2]string{{r2.ID, r3.ID}, {r3.ID, r2.ID}} {
		var shown run.Detail
		sb.ok(t, agent, &shown, "run", "show", pair[0])
		if shown.Changes == nil || !slices.Contains(shown.Changes.Concurrent, "s1/"+pair[1]) {
			t.Errorf("run %s's changes %+v do not name %s, which ran meanwhile", pair[0], shown.Changes, pair[1])
		}
	}

	// Outside a repository: no diff, and the run succeeds all the same.
	plainDir := newSandbox(t)
	var p run.Detail
	plainDir.ok(t, plainDir.env, &p, "run", "spawn", "-p", `[fake-write:z.txt=z] edit`, "--wait")
	if p.Status != "succeeded" || p.Changes == nil || !strings.Contains(p.Changes.Note, "git") {
		t.Errorf("a run outside a repository: status %s, changes %+v", p.Status, p.Changes)
	}
}

// TestReviewPipeline: Agent Mesh's review pipeline with the fake harness
// playing both roles, against a real git. One run implements, its change is
// taken from git, another reviews it read-only and answers a structured
// review; each stage that fails says which, with the runs so far.
func TestReviewPipeline(t *testing.T) {
	sb := newSandbox(t)
	cmd := exec.Command("git", "init", "-q", sb.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	var rv run.Reviewed
	sb.ok(t, sb.env, &rv, "run", "review", "-p", `[fake-write:hello.py=print("hello")\n] add a hello.py`, "-m", "opus", "--review-model", "codex")
	if rv.Stage != "done" || rv.Verdict != "approve" || rv.Implement == nil || rv.Review == nil ||
		rv.Implement.Model != "claude-opus-4-6" || rv.Review.Model != "gpt-5.3-codex" {
		t.Fatalf("review = %+v", rv)
	}
	want := []run.Issue{{Severity: "low", File: "hello.py", Line: 1, Message: "fake review: added hello.py"}}
	if diff := cmp.Diff(want, rv.Issues); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
	if r := rv.Implement.Result; r == nil || !r.OK || !slices.Equal(r.Artifacts.FilesWritten, []string{"hello.py"}) || !strings.Contains(r.Artifacts.GitDiff, `+print("hello")`) {
		t.Errorf("the implementer's result %+v", r)
	}
	// The reviewer was given the diff, read-only.
	recs := harnesstest.Records(t, sb.record)
	last := recs[len(recs)-1]
	if !strings.Contains(last.Stdin, `+print("hello")`) || !strings.Contains(strings.Join(last.Argv, " "), "read-only") {
		t.Errorf("the reviewer got argv %q and prompt:\n%s", last.Argv, last.Stdin)
	}

	agent := sb.inSpace("s1")
	for _, tc := range []struct {
		prompt, code, stage string
	}{
		{"[fake:fail] break", "IMPLEMENT_FAILED", "implement"},
		{"change nothing", "NO_CHANGES", "diff"},
		{"[fake-write:x.txt=x][fake-review:garbage] write x", "REVIEW_NOT_STRUCTURED", "review"},
	} {
		e, r := sb.agent(t, agent, "run", "review", "-p", tc.prompt)
		var got run.Reviewed
		json.Unmarshal(e.Data, &got)
		if e.OK || r.code != 1 || e.Error == nil || e.Error.Code != tc.code || got.Stage != tc.stage || got.Implement == nil {
			t.Errorf("review of %q: exit %d, error %+v, stage %q; want %s at stage %s with the runs so far", tc.prompt, r.code, e.Error, got.Stage, tc.code, tc.stage)
		}
	}
}

// TestStartNamesSpace: start --name names the space the chat is in, a new
// one or the one it resumes; space.json, space list and the resumed
// warning say it (issue 19, 7). A name of several lines is refused.
func TestStartNamesSpace(t *testing.T) {
	sb := newSandbox(t)
	c := sb.start(t, "claude", "--new", "--name", "feature-auth")
	c.Write(t, "/exit\r")
	if _, code := c.Wait(t); code != 0 {
		t.Fatalf("start --new --name: exit %d", code)
	}
	var spaces []struct{ ID, Name string }
	sb.ok(t, sb.env, &spaces, "space", "list")
	if len(spaces) != 1 || spaces[0].Name != "feature-auth" {
		t.Errorf("space list = %+v, want s1 named feature-auth", spaces)
	}
	c = sb.start(t, "claude", "--name", "auth-v2") // resumes s1, named anew
	c.Write(t, "/exit\r")
	out, _ := c.Wait(t)
	if !strings.Contains(plain(out), `Resumed active space s1 ("auth-v2")`) {
		t.Errorf("the resumed warning does not name the space:\n%s", plain(out))
	}
	screen, code := sb.person(t, sb.env, "start", "--name", "two\nlines")
	if code != 2 || !strings.Contains(plain(screen), "INVALID_SPACE_NAME") {
		t.Errorf("a name of two lines: exit %d\n%s", code, plain(screen))
	}
}

// TestStartSkills: start --skills gives the harness the skills in its
// system prompt, as a run gives them in its prompt (issue 19, 7).
func TestStartSkills(t *testing.T) {
	sb := newSandbox(t)
	skill := filepath.Join(sb.dir, ".meridian", "skills", "go", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\ndescription: Go style\n---\nKeep packages small.\n"), 0o644)
	c := sb.start(t, "claude", "--skills", "go", "--append-system-prompt", "be brief")
	c.Write(t, "/exit\r")
	if _, code := c.Wait(t); code != 0 {
		t.Fatalf("start --skills go: exit %d", code)
	}
	argv := strings.Join(sb.lastRecord(t).Argv, "\x00")
	if !strings.Contains(argv, "--append-system-prompt\x00be brief\n\n# Skill: go\n\nKeep packages small.") {
		t.Errorf("the harness's argv %q lacks the skill in its system prompt", sb.lastRecord(t).Argv)
	}
	screen, code := sb.person(t, sb.env, "start", "--skills", "nope")
	if code != 5 || !strings.Contains(plain(screen), "nope") {
		t.Errorf("start --skills nope: exit %d\n%s", code, plain(screen))
	}
}

// TestWarningsOnStderr: an agent's warnings reach stderr as well as the
// envelope: in the envelope an object {code, message} whose message reads
// "what. Next: step", on stderr the line a person reads, "WARNING [CODE]:
// what. Next: step" (issue 19, 3); --quiet keeps stderr empty.
func TestWarningsOnStderr(t *testing.T) {
	sb := newSandbox(t)
	e, r := sb.agent(t, sb.env, "run", "spawn", "-p", "hello")
	if len(e.Warnings) != 1 || e.Warnings[0].Code != "SPACE_AUTO_CREATED" || !strings.Contains(e.Warnings[0].Message, ". Next: ") {
		t.Fatalf("warnings %+v, want one SPACE_AUTO_CREATED saying what to do next", e.Warnings)
	}
	if want := "WARNING [SPACE_AUTO_CREATED]: " + e.Warnings[0].Message + "\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	_, r = sb.agent(t, sb.env, "run", "spawn", "-p", "again", "--quiet")
	if r.stderr != "" {
		t.Errorf("stderr with --quiet: %q", r.stderr)
	}
	sb.ok(t, sb.inSpace("s1"), nil, "run", "wait")
	sb.ok(t, sb.inSpace("s2"), nil, "run", "wait")
}

// TestMCPInstall registers meridian's MCP server with each MCP client in
// one command, in the project's configuration and in the user's, and the
// client's own CLI — the real one, installed from npm
// ($MERIDIAN_REAL_HARNESS_BIN, as .ci/run sets it) — lists it; registering
// again changes nothing; uninstall gives each file back byte for byte as
// it was, or removes the one install made (issue 20). Cursor, VS Code and
// Claude Desktop have no CLI to ask: their files are read as their
// documentation lays them out.
func TestMCPInstall(t *testing.T) {
	sb := newSandbox(t)
	existing := map[string]string{ // what a person had written
		filepath.Join(sb.dir, "opencode.json"):                                    `{"$schema": "https://opencode.ai/config.json",  "theme": "dark"}`,
		filepath.Join(sb.home, ".gemini", "settings.json"):                        "{\n  \"theme\": \"GitHub\"\n}\n",
		filepath.Join(sb.home, ".codex", "config.toml"):                           "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n",
		filepath.Join(sb.dir, ".vscode", "mcp.json"):                              "{\n  \"servers\": {\n    \"other\": {\"type\": \"stdio\", \"command\": \"x\"}\n  }\n}\n",
		filepath.Join(sb.home, ".config", "Claude", "claude_desktop_config.json"): "{\"mcpServers\": {}}",
	}
	for path, doc := range existing {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The configuration files, as mcp list names them.
	var configs []string
	for _, line := range strings.Split(strings.TrimSpace(sb.run(t, sb.env, "mcp", "list").stdout), "\n")[1:] {
		f := strings.Fields(line)
		configs = append(configs, f[len(f)-1])
	}
	if len(configs) != 12 {
		t.Fatalf("mcp list names %d configuration files, want 12: %q", len(configs), configs)
	}
	snapshot := func() map[string]string {
		files := map[string]string{}
		for _, path := range configs {
			if b, err := os.ReadFile(path); err == nil {
				files[path] = string(b)
			}
		}
		return files
	}
	before := snapshot()
	for _, tc := range []struct{ client, scope string }{
		{"claude", "project"}, {"claude", "user"}, {"codex", "user"}, {"gemini", "project"}, {"gemini", "user"},
		{"opencode", "project"}, {"opencode", "user"}, {"cursor", "project"}, {"cursor", "user"},
		{"vscode", "project"}, {"vscode", "user"}, {"claude-desktop", "user"},
	} {
		args := []string{"mcp", "install", tc.client, "--scope", tc.scope}
		dry := sb.run(t, sb.env, append(args, "--dry-run")...)
		if dry.code != 0 || !strings.Contains(dry.stdout, "+++ ") || !cmp.Equal(before, snapshot()) {
			t.Fatalf("%v --dry-run: exit %d, changed files %v\n%s%s", args, dry.code, !cmp.Equal(before, snapshot()), dry.stdout, dry.stderr)
		}
		r := sb.run(t, sb.env, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Registered meridian") {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		after := snapshot()
		path := changed(before, after)
		if path == "" {
			t.Fatalf("%v changed no file", args)
		}
		// The dry run showed exactly this edit: patch(1) makes it.
		patched := filepath.Join(t.TempDir(), "config")
		os.WriteFile(patched, []byte(before[path]), 0o644)
		diff := dry.stdout[strings.Index(dry.stdout, "--- "):]
		p := exec.Command("patch", "-s", patched)
		p.Stdin = strings.NewReader(diff)
		if out, err := p.CombinedOutput(); err != nil {
			t.Errorf("%v: the dry run's diff does not apply: %v\n%s\n%s", args, err, out, diff)
		} else if got, _ := os.ReadFile(patched); string(got) != after[path] {
			t.Errorf("%v: the dry run's diff makes\n%s\nwhere install wrote\n%s", args, got, after[path])
		}
		if old, ok := before[path]; ok && !strings.HasPrefix(after[path], strings.TrimRight(old, "}\n")[:len(strings.TrimRight(old, "}\n"))/2]) {
			t.Errorf("%v: %s lost what it began with:\n%s", args, path, after[path])
		}
		if again := sb.run(t, sb.env, args...); again.code != 0 || !strings.Contains(again.stdout, "already") || !cmp.Equal(after, snapshot()) {
			t.Errorf("%v again: exit %d, %q", args, again.code, again.stdout)
		}
		if l := sb.run(t, sb.env, "mcp", "list"); !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tc.client) + `\s+` + tc.scope + `\s+registered\s`).MatchString(l.stdout) {
			t.Errorf("mcp list after %v:\n%s", args, l.stdout)
		}
		if !slices.Contains([]string{"claude", "codex", "gemini", "opencode"}, tc.client) {
			checkDocumented(t, tc.client, after[path])
		}
		if r := sb.run(t, sb.env, "mcp", "uninstall", tc.client, "--scope", tc.scope); r.code != 0 || !strings.Contains(r.stdout, "Removed meridian") {
			t.Fatalf("uninstall %s: exit %d\n%s%s", tc.client, r.code, r.stdout, r.stderr)
		}
		if diff := cmp.Diff(before, snapshot()); diff != "" {
			t.Errorf("after uninstall %s %s, the files are not as they were (-before +after):\n%s", tc.client, tc.scope, diff)
		}
	}
	// The clients' own CLIs list what was registered (they write files of
	// their own in HOME, ~/.claude.json among them, so this comes after
	// the byte-for-byte checks).
	dir := os.Getenv("MERIDIAN_REAL_HARNESS_BIN")
	if dir == "" {
		t.Skip("MERIDIAN_REAL_HARNESS_BIN is not set: the coding agents' own CLIs did not list what was registered")
	}
	for _, tc := range []struct{ client, scope string }{
		{"claude", "project"}, {"claude", "user"}, {"codex", "user"}, {"gemini", "project"}, {"gemini", "user"}, {"opencode", "project"}, {"opencode", "user"},
	} {
		if r := sb.run(t, sb.env, "mcp", "install", tc.client, "--scope", tc.scope); r.code != 0 {
			t.Fatalf("install %s --scope %s: exit %d, %s", tc.client, tc.scope, r.code, r.stderr)
		}
		cmd := exec.Command(filepath.Join(dir, tc.client), "mcp", "list")
		cmd.Dir, cmd.Env = sb.dir, sb.with("NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		// Each lists it, with the command it runs (Claude Code awaits the
		// person's approval of a project's server; Gemini CLI lists those
		// of an untrusted folder as disabled; OpenCode connects to it).
		if err != nil || !strings.Contains(string(out), "meridian") || !strings.Contains(string(out), "serve") {
			t.Errorf("%s mcp list, registered in the %s's configuration: %v\n%s", tc.client, tc.scope, err, out)
		}
		if r := sb.run(t, sb.env, "mcp", "uninstall", tc.client, "--scope", tc.scope); r.code != 0 {
			t.Fatalf("uninstall %s --scope %s: exit %d, %s", tc.client, tc.scope, r.code, r.stderr)
		}
	}
}

// changed returns the one file whose content differs between two snapshots.
func changed(before, after map[string]string) string {
	for path, b := range after {
		if a, ok := before[path]; !ok || a != b {
			return path
		}
	}
	return ""
}

// checkDocumented reads a client's configuration as its documentation
// lays it out: Cursor's and Claude Desktop's mcpServers, VS Code's servers,
// each server a command with its args.
func checkDocumented(t *testing.T, client, doc string) {
	t.Helper()
	var cfg map[string]map[string]struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal([]byte(doc), &cfg); err != nil {
		t.Fatalf("%s: %v\n%s", client, err, doc)
	}
	parent := map[string]string{"vscode": "servers"}[client]
	if parent == "" {
		parent = "mcpServers"
	}
	s, ok := cfg[parent]["meridian"]
	if !ok || !filepath.IsAbs(s.Command) || !slices.Equal(s.Args, []string{"serve"}) || client == "vscode" && s.Type != "stdio" {
		t.Errorf("%s: %s.meridian = %+v\n%s", client, parent, s, doc)
	}
}

// TestMCPInstallRefusesBroken: a configuration that does not parse is
// reported and left as it is; a scope the client lacks is refused; an agent
// is refused the command.
func TestMCPInstallRefusesBroken(t *testing.T) {
	sb := newSandbox(t)
	path := filepath.Join(sb.dir, ".mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {`), 0o644)
	r := sb.run(t, sb.env, "mcp", "install", "claude")
	if got, _ := os.ReadFile(path); r.code != 4 || !strings.Contains(r.stderr, "CONFIG_INVALID") || string(got) != `{"mcpServers": {` {
		t.Errorf("install over a broken .mcp.json: exit %d, %q; file now %q", r.code, r.stderr, got)
	}
	if r := sb.run(t, sb.env, "mcp", "install", "claude-desktop", "--scope", "project"); r.code != 2 || !strings.Contains(r.stderr, "SCOPE_UNSUPPORTED") {
		t.Errorf("claude-desktop --scope project: exit %d, %q", r.code, r.stderr)
	}
	// A person's command: an agent is refused it, as every command for people.
	sb.fails(t, sb.inSpace("s1"), "PERSON_REQUIRED", 4, "mcp", "install", "codex")
	if _, err := os.Stat(filepath.Join(sb.home, ".codex", "config.toml")); err == nil {
		t.Error("an agent's mcp install wrote Codex's configuration")
	}
}

// TestStartSystemPrompt: start --system-prompt gives Claude Code its system
// prompt; a harness without one is told so, and starts all the same
// (UNSUPPORTED_FLAG, issue 19, 7).
func TestStartSystemPrompt(t *testing.T) {
	sb := newSandbox(t)
	c := sb.start(t, "claude", "--system-prompt", "You review code.")
	c.Write(t, "/exit\r")
	if _, code := c.Wait(t); code != 0 {
		t.Fatalf("start --system-prompt: exit %d", code)
	}
	if argv := strings.Join(sb.lastRecord(t).Argv, "\x00"); !strings.Contains(argv, "--system-prompt\x00You review code.") {
		t.Errorf("claude's argv %q lacks the system prompt", sb.lastRecord(t).Argv)
	}
	c = sb.start(t, "codex", "--new", "-m", "codex", "--system-prompt", "You review code.")
	c.Write(t, "/exit\r")
	out, code := c.Wait(t)
	if code != 0 || !strings.Contains(plain(out), "WARNING [UNSUPPORTED_FLAG]: --system-prompt is not supported by Codex") {
		t.Errorf("codex with --system-prompt: exit %d\n%s", code, plain(out))
	}
}
