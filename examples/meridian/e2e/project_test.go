//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// TestInitAndConfig: init scaffolds a config.toml whose every setting is a
// comment, and never overwrites it; config show gives each key's value and
// source through the merge order built-in < config.toml < --config.
func TestInitAndConfig(t *testing.T) {
	sb := newSandbox(t)
	var got struct {
		Config  string
		Created bool
	}
	sb.ok(t, sb.env, &got, "init")
	path := filepath.Join(sb.dir, ".meridian", "config.toml")
	if !got.Created || got.Config != path {
		t.Fatalf("init = %+v", got)
	}
	scaffold, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(scaffold), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			t.Errorf("scaffold line %q is not commented out", line)
		}
	}
	for _, d := range []string{"agents", "skills"} {
		if fi, err := os.Stat(filepath.Join(sb.dir, ".meridian", d)); err != nil || !fi.IsDir() {
			t.Errorf(".meridian/%s: %v", d, err)
		}
	}
	os.WriteFile(path, append(scaffold, "\n[timeouts]\nrun = \"5m\"\n"...), 0o644)
	sb.ok(t, sb.env, &got, "init")
	if after, _ := os.ReadFile(path); got.Created || !bytes.Contains(after, []byte(`run = "5m"`)) {
		t.Errorf("a second init rewrote config.toml (created %v)", got.Created)
	}

	override := filepath.Join(sb.dir, "override.toml")
	os.WriteFile(override, []byte("[harness]\ndefault = \"codex\"\n"), 0o644)
	type setting struct {
		Key    string
		Value  any
		Source string
	}
	var settings []setting
	sb.ok(t, sb.env, &settings, "config", "show", "--config", override)
	sources := map[string]string{}
	for _, s := range settings {
		sources[s.Key] = s.Source
	}
	if sources["timeouts.run"] != path || sources["harness.default"] != override || sources["start.auto_resume"] != "built-in" {
		t.Errorf("sources %v", sources)
	}
	sb.ok(t, sb.with("MERIDIAN_CONFIG="+override), &settings, "config", "show")
	if i := slices.IndexFunc(settings, func(s setting) bool { return s.Key == "harness.default" }); i < 0 || settings[i].Value != "codex" {
		t.Errorf("MERIDIAN_CONFIG not applied: %+v", settings)
	}
	os.WriteFile(override, []byte("[harness]\ndefualt = \"codex\"\n"), 0o644)
	e := sb.fails(t, sb.env, "CONFIG_INVALID", 4, "config", "show", "--config", override)
	if !strings.Contains(e.Message, "defualt") {
		t.Errorf("CONFIG_INVALID does not name the unknown key: %q", e.Message)
	}
}

// TestAudiences: with MERIDIAN_SPACE_ID set, help lists only what an agent
// uses (and goes to stderr, with a JSON stub on stdout); --human shows all;
// a person sees everything, as text.
func TestAudiences(t *testing.T) {
	sb := newSandbox(t)
	human := []string{"space", "init", "config"}
	agentCmds := []string{"run", "skills", "models", "doctor"}

	e, r := sb.agent(t, sb.inSpace("s1"), "--help")
	if e.Meta["help"] != true {
		t.Errorf("agent help stub meta %v", e.Meta)
	}
	for _, c := range agentCmds {
		if !strings.Contains(r.stderr, "  "+c) {
			t.Errorf("agent help lacks %s:\n%s", c, r.stderr)
		}
	}
	for _, c := range human {
		if strings.Contains(r.stderr, "  "+c+" ") {
			t.Errorf("agent help shows the human command %s:\n%s", c, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "--human") {
		t.Errorf("agent help mentions --human:\n%s", r.stderr)
	}
	_, r = sb.agent(t, sb.inSpace("s1"), "--help", "--human")
	for _, c := range append(human, agentCmds...) {
		if !strings.Contains(r.stderr, "  "+c) {
			t.Errorf("--human help lacks %s:\n%s", c, r.stderr)
		}
	}

	screen, code := sb.person(t, sb.env, "--help")
	if code != 0 || strings.Contains(screen, `"ok"`) {
		t.Errorf("a person's help (exit %d) is not text:\n%s", code, screen)
	}
	for _, c := range append(human, agentCmds...) {
		if !strings.Contains(screen, "  "+c) {
			t.Errorf("a person's help lacks %s:\n%s", c, screen)
		}
	}
	// describe follows the audience too.
	var m struct{ Commands map[string]any }
	sb.ok(t, sb.inSpace("s1"), &m, "describe")
	for path := range m.Commands {
		if strings.HasPrefix(path, "space") || path == "init" || strings.HasPrefix(path, "config") {
			t.Errorf("an agent's describe lists %s", path)
		}
	}
	if m.Commands["run.spawn"] == nil {
		t.Errorf("an agent's describe lacks run.spawn")
	}
}

// TestPerson: at a terminal, without MERIDIAN_SPACE_ID, meridian answers in
// text — a warning as WARNING [CODE], a list as a table, an error as ERROR
// [CODE] with its next step — and an agent's variable alone turns on JSON.
func TestPerson(t *testing.T) {
	sb := newSandbox(t)
	screen, code := sb.person(t, sb.env, "run", "spawn", "-p", "hello", "--wait")
	screen = plain(screen)
	if code != 0 || !strings.Contains(screen, "WARNING [SPACE_AUTO_CREATED]") || !strings.Contains(screen, "r1  succeeded") ||
		!strings.Contains(screen, "hello") || strings.Contains(screen, `"ok"`) {
		t.Errorf("spawn at a terminal (exit %d):\n%s", code, screen)
	}
	screen, code = sb.person(t, sb.env, "run", "list", "--space", "s1")
	if code != 0 || !strings.Contains(screen, "r1") || !strings.Contains(screen, "succeeded") || strings.Contains(screen, `"ok"`) {
		t.Errorf("list at a terminal (exit %d):\n%s", code, screen)
	}
	screen, code = sb.person(t, sb.env, "run", "list")
	screen = plain(screen)
	if code != 4 || !strings.Contains(screen, "ERROR [SPACE_REQUIRED]") || !strings.Contains(screen, "Next:") {
		t.Errorf("list without a space at a terminal (exit %d):\n%s", code, screen)
	}
	screen, _ = sb.person(t, sb.inSpace("s1"), "run", "list")
	if !strings.Contains(screen, `"ok":true`) {
		t.Errorf("MERIDIAN_SPACE_ID at a terminal should mean JSON:\n%s", screen)
	}
}

// TestCatalog: agent profiles and skills from the project and from ~/.meridian
// (the project's win), composed into the prompt; names that try to leave
// their directory are refused as input; models resolve by alias, and an
// unknown one is not found with the catalog's names.
func TestCatalog(t *testing.T) {
	sb := newSandbox(t)
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	project, user := filepath.Join(sb.dir, ".meridian"), filepath.Join(sb.home, ".meridian")
	write(filepath.Join(project, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: reviews code\nmodel: gpt-5.3-codex\nskills: [go]\nsandbox: read-only\n---\nYou review code. Be specific.\n")
	write(filepath.Join(user, "agents", "reviewer.md"), "---\nname: reviewer\nmodel: opus\n---\nThe user's reviewer.\n")
	write(filepath.Join(user, "agents", "writer.md"), "---\nname: writer\ndescription: writes docs\n---\nYou write docs.\n")
	write(filepath.Join(project, "skills", "go", "SKILL.md"), "---\nname: go\ndescription: Go style\ntags: [lang]\n---\nKeep packages small.\n")
	write(filepath.Join(user, "skills", "sql", "SKILL.md"), "---\nname: sql\ndescription: SQL style\n---\nUse CTEs.\n")
	write(filepath.Join(sb.dir, "notes.txt"), "the notes\n")

	var skills []struct{ Name, Scope string }
	sb.ok(t, sb.env, &skills, "skills", "list")
	if len(skills) != 2 || skills[0].Name != "go" || skills[1].Name != "sql" {
		t.Errorf("skills list = %+v", skills)
	}
	var skill struct{ Name, Content string }
	sb.ok(t, sb.env, &skill, "skills", "show", "go")
	if !strings.Contains(skill.Content, "Keep packages small.") {
		t.Errorf("skills show = %+v", skill)
	}
	sb.invalid(t, sb.env, "skills", "show", "../x")
	sb.fails(t, sb.env, "SKILL_NOT_FOUND", 5, "skills", "show", "nope")

	var d run.Detail
	sb.ok(t, sb.env, &d, "run", "spawn", "-a", "reviewer", "-s", "sql", "-f", "notes.txt", "-p", "Review src/", "--wait")
	if d.Harness != "codex" || d.Model != "gpt-5.3-codex" || d.Agent != "reviewer" || !slices.Equal(d.Skills, []string{"sql", "go"}) {
		t.Errorf("run with the project's reviewer = %+v", d)
	}
	stdin := harnesstest.Records(t, sb.record)[0].Stdin
	for _, part := range []string{"# Skill: sql\n\nUse CTEs.", "# Skill: go\n\nKeep packages small.", "# Agent Profile\n\nYou review code.", "# Reference: notes.txt\n\nthe notes", "Review src/"} {
		if !strings.Contains(stdin, part) {
			t.Errorf("the composed prompt lacks %q:\n%s", part, stdin)
		}
	}
	if strings.Contains(stdin, "The user's reviewer") {
		t.Error("the user's profile was used over the project's")
	}
	sb.invalid(t, sb.env, "run", "spawn", "-a", "../x", "-p", "x")
	sb.invalid(t, sb.env, "run", "spawn", "-a", "/etc/passwd", "-p", "x")
	e := sb.fails(t, sb.env, "AGENT_NOT_FOUND", 5, "run", "spawn", "-a", "nobody", "-p", "x")
	if !slices.Contains(e.ValidValues, "writer") || !slices.Contains(e.ValidValues, "reviewer") {
		t.Errorf("AGENT_NOT_FOUND valid values %q", e.ValidValues)
	}
	sb.fails(t, sb.env, "SKILL_NOT_FOUND", 5, "run", "spawn", "-s", "nope", "-p", "x")
	sb.fails(t, sb.env, "FILE_NOT_FOUND", 2, "run", "spawn", "-f", "missing.txt", "-p", "x")

	var models []struct {
		ID      string
		Aliases []string
		Harness string
	}
	sb.ok(t, sb.env, &models, "models", "list")
	harnesses := map[string]bool{}
	for _, m := range models {
		harnesses[m.Harness] = true
	}
	if len(harnesses) != 4 {
		t.Errorf("models list covers harnesses %v, want all four", harnesses)
	}
	var m struct{ ID, Harness string }
	sb.ok(t, sb.env, &m, "models", "show", "opus")
	if m.ID != "claude-opus-4-6" || m.Harness != "claude" {
		t.Errorf("models show opus = %+v", m)
	}
	e = sb.fails(t, sb.env, "MODEL_NOT_FOUND", 5, "run", "spawn", "-m", "opsu", "-p", "x")
	if !strings.Contains(e.Message+e.Suggestion, "opus") {
		t.Errorf("MODEL_NOT_FOUND for opsu does not suggest opus: %+v", e)
	}
	// Nothing refused above created a space; only the one run did.
	entries, _ := os.ReadDir(filepath.Join(project, ".spaces"))
	if n := len(entries); n != 2 { // .lock and s1
		t.Errorf(".spaces holds %d entries, want .lock and s1", n)
	}
}

// TestHarnessNotInstalled: a harness missing from PATH is a precondition
// naming how to install it, found before anything is written.
func TestHarnessNotInstalled(t *testing.T) {
	sb := newSandbox(t)
	env := sb.with("PATH=/usr/bin:/bin")
	e := sb.fails(t, env, "HARNESS_NOT_INSTALLED", 4, "run", "spawn", "-p", "x", "-m", "codex")
	if !strings.Contains(e.Suggestion, "npm install -g @openai/codex") || e.Phase != "validation" {
		t.Errorf("suggestion %q does not say how to install Codex, or phase %q is not validation", e.Suggestion, e.Phase)
	}
	if _, err := os.Stat(filepath.Join(sb.dir, ".meridian")); err == nil {
		t.Error("a refused spawn created .meridian")
	}
	var rep struct {
		Harnesses []struct {
			Name      string
			Installed bool
		}
	}
	sb.ok(t, env, &rep, "doctor")
	for _, h := range rep.Harnesses {
		if h.Installed {
			t.Errorf("doctor says %s is installed with no harness on PATH", h.Name)
		}
	}
}

// TestSpacesAndDoctor: space list/show/close; a corrupt space.json is
// reported and never rewritten; a chat whose process died is cleaned up;
// a closed space in which a chat lives is marked active, and an active one
// with nothing running left as it is.
func TestSpacesAndDoctor(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "one", "--wait")
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "two", "--wait")

	var spaces []struct{ ID, Status string }
	sb.ok(t, sb.env, &spaces, "space", "list")
	if len(spaces) != 2 || spaces[0].ID != "s2" || spaces[1].ID != "s1" {
		t.Errorf("space list = %+v, want s2, s1", spaces)
	}
	// A chat that died: started in this process, released without a stop.
	ss := state.Sessions{Dir: sb.spaceDir("s1")}
	chat, hold, err := ss.Start(t.Context(), state.SessionEvent{Harness: "claude", Model: "claude-opus-4-6", StartedAt: "2026-02-28T10:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	var show struct {
		Runs  map[string]int
		Chats []struct {
			ID       string
			Alive    bool
			Continue string
		}
	}
	sb.ok(t, sb.env, &show, "space", "show", "s1")
	if show.Runs["succeeded"] != 1 || len(show.Chats) != 1 || !show.Chats[0].Alive || show.Chats[0].Continue != "meridian start --space s1 --continue "+chat {
		t.Errorf("space show = %+v", show)
	}
	hold.Release()

	corrupt := filepath.Join(sb.spaceDir("s2"), "space.json")
	os.WriteFile(corrupt, []byte(`{"schema_version":1,"id":"s2","sta`), 0o644)
	sb.fails(t, sb.inSpace("s2"), "SPACE_CORRUPT", 4, "run", "list")

	var rep struct {
		OK       bool
		Repaired []struct{ Kind, Space, ID string }
		Problems []struct{ Kind, Message string }
	}
	e := sb.ok(t, sb.env, &rep, "doctor")
	kinds := map[string]bool{}
	for _, r := range rep.Repaired {
		kinds[r.Kind+" "+r.Space+"/"+r.ID] = true
	}
	// An active space with nothing running is not stale: spaces outlive
	// their chats, and closing one is a person's call.
	if !kinds["stale_session_lock s1/"+chat] || kinds["stale_space_status s1/"] {
		t.Errorf("doctor repaired %+v", rep.Repaired)
	}
	if rep.OK || len(rep.Problems) != 1 || rep.Problems[0].Kind != "corrupt_space" || !hasWarning(e.Warnings, "CORRUPT_SPACE") {
		t.Errorf("doctor problems %+v, warnings %q", rep.Problems, e.Warnings)
	}
	if raw, _ := os.ReadFile(corrupt); string(raw) != `{"schema_version":1,"id":"s2","sta` {
		t.Errorf("doctor rewrote the corrupt space.json: %q", raw)
	}
	if _, err := os.Stat(ss.LockPath(chat)); err == nil {
		t.Error("the dead chat's lock file is still there")
	}

	// close asks for confirmation where nobody can answer; --yes closes.
	sb.invalid(t, sb.env, "space", "close", "s1")
	var closed struct{ Status string }
	sb.ok(t, sb.env, &closed, "space", "close", "s1", "--yes")
	if closed.Status != "closed" {
		t.Errorf("space close = %+v", closed)
	}
	// A run in a closed space reopens it, and says so.
	e = sb.ok(t, sb.inSpace("s1"), nil, "run", "spawn", "-p", "three")
	if !hasWarning(e.Warnings, "SPACE_REOPENED") {
		t.Errorf("spawn into a closed space: warnings %q", e.Warnings)
	}
	raw, _ := os.ReadFile(filepath.Join(sb.spaceDir("s1"), "space.json"))
	var sp state.Space
	json.Unmarshal(raw, &sp)
	if sp.Status != "active" || sp.FinishedAt != nil {
		t.Errorf("space.json after the reopening spawn: %s", raw)
	}
	// Let the run end before the test's directory is removed under it.
	sb.ok(t, sb.inSpace("s1"), nil, "run", "wait")

	// A closed space a chat lives in is stale: doctor, a person's or an
	// agent's, marks it active and says so.
	sb.ok(t, sb.env, nil, "space", "close", "s1", "--yes")
	_, hold, err = ss.Start(t.Context(), state.SessionEvent{Harness: "claude", Model: "claude-opus-4-6", StartedAt: "2026-02-28T11:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	rep.Repaired = nil
	sb.ok(t, sb.inSpace("s1"), &rep, "doctor")
	if len(rep.Repaired) != 1 || rep.Repaired[0].Kind != "stale_space_status" || rep.Repaired[0].Space != "s1" {
		t.Errorf("doctor of a closed space with a live chat repaired %+v", rep.Repaired)
	}
	raw, _ = os.ReadFile(filepath.Join(sb.spaceDir("s1"), "space.json"))
	if json.Unmarshal(raw, &sp); sp.Status != "active" {
		t.Errorf("space.json after doctor: %s", raw)
	}
}

// TestBadInput: input meridian cannot act on is refused with a structured
// error, before anything is written — no space, no run, no .meridian.
func TestBadInput(t *testing.T) {
	sb := newSandbox(t)
	os.Mkdir(filepath.Join(sb.dir, "adir"), 0o755)
	syscall.Mkfifo(filepath.Join(sb.dir, "afifo"), 0o644) // never done reading, and inside the project
	tests := []struct {
		code string // "" for any validation failure
		exit int
		args []string
	}{
		{"MISSING_REQUIRED_FLAG", 2, []string{"run", "spawn"}},
		{"EMPTY_PROMPT", 2, []string{"run", "spawn", "-p", ""}},
		{"EMPTY_PROMPT", 2, []string{"run", "spawn", "-p", " \n\t"}},
		{"FILE_NOT_REGULAR", 2, []string{"run", "spawn", "-p", "x", "-f", "afifo"}},
		{"FILE_NOT_REGULAR", 2, []string{"run", "spawn", "-p", "x", "-f", "adir"}},
		{"", 2, []string{"run", "spawn", "-p", "x", "-f", "nope.txt", "-f", "/dev/null"}},
		{"PATH_OUTSIDE_PROJECT", 2, []string{"run", "spawn", "-p", "x", "-f", "/dev/zero"}},
		{"INVALID_ENUM_VALUE", 2, []string{"run", "spawn", "-p", "x", "--sandbox", "bogus"}},
		{"INVALID_FLAG_VALUE", 2, []string{"run", "spawn", "-p", "x", "--run-timeout", "soon"}},
		{"", 2, []string{"run", "spawn", "-p", "x", "--space", "../s1"}},
		{"SPACE_NOT_FOUND", 5, []string{"run", "spawn", "-p", "x", "--space", "s4"}},
		{"INVALID_MODEL_NAME", 2, []string{"run", "spawn", "-p", "x", "-m", "a b"}},
		{"", 2, []string{"run", "show", "--space", "s1", "../r1"}},
		{"", 2, []string{"space", "show", "s1/../.."}},
		{"", 2, []string{"skills", "show", ""}},
		{"UNKNOWN_FLAG", 2, []string{"run", "list", "--bogus"}},
		{"", 2, []string{"run", "bogus"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var e *errorObject
			if tc.code == "" {
				e = sb.invalid(t, sb.env, tc.args...)
			} else {
				e = sb.fails(t, sb.env, tc.code, tc.exit, tc.args...)
			}
			if e.Phase != "validation" {
				t.Errorf("phase %q, want validation", e.Phase)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(sb.dir, ".meridian")); err == nil {
		t.Error("refused input created .meridian")
	}
}
