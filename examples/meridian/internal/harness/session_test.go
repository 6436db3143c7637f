package harness

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewSessionID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewSessionID()
		if !form.MatchString(id) {
			t.Fatalf("NewSessionID() = %q, not a lower-case version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("NewSessionID() returned %q twice", id)
		}
		seen[id] = true
		if err := (Request{SessionID: id}).Validate(); err != nil {
			t.Fatalf("Validate refuses NewSessionID's %q: %v", id, err)
		}
	}
}

// The slugs are the directory names claude 2.1.197 made for these working
// directories.
func TestClaudeProjectSlug(t *testing.T) {
	tests := map[string]string{
		"/tmp/sess-exp/work dir.916h": "-tmp-sess-exp-work-dir-916h",
		"/tmp/sess-exp/dé€😀 x":        "-tmp-sess-exp-d-----x", // é and € are one UTF-16 unit each, 😀 two
		"/tmp/sess-exp/long/" + strings.Repeat("a", 60) + "/" + strings.Repeat("b", 60) + "/" + strings.Repeat("c", 60) + "/dé€😀/x": "-tmp-sess-exp-long-" + strings.Repeat("a", 60) + "-" + strings.Repeat("b", 60) + "-" + strings.Repeat("c", 59) + "-hq4u0h",
	}
	for dir, want := range tests {
		if got := claudeProjectSlug(dir); got != want {
			t.Errorf("claudeProjectSlug(%q) =\n%q, want\n%q", dir, got, want)
		}
	}
}

// A sessionFile is one file of a test's layout: path is relative to the
// test's directory, and mtime is an offset from the search's Since.
type sessionFile struct {
	path    string
	content string
	mtime   time.Duration
}

func TestFindSession(t *testing.T) {
	since := time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return since.Add(d).Format("2006-01-02T15:04:05.000Z") }
	const (
		id1 = "01a20884-e433-7493-b55f-1cec82ea7718"
		id2 = "3b241101-e2bb-4255-8caf-4136c566a962"
	)
	// Paths use {slug} for the claude project of the work directory, which
	// is {dir} (unresolved) in file contents; {real} is it with symbolic
	// links resolved.
	rollout := func(id string) string {
		return ".codex/sessions/2026/11/23/rollout-2026-11-23T13-00-05-" + id + ".jsonl"
	}
	meta := func(id, cwd string) string {
		return `{"timestamp":"2026-11-23T13:00:05.000Z","ordinal":0,"type":"session_meta","payload":{"session_id":"` + id + `","id":"` + id + `","cwd":"` + cwd + `","originator":"codex-tui","cli_version":"0.169.0","base_instructions":{"text":"You are Codex."}}}` + "\n" +
			`{"timestamp":"2026-11-23T13:00:06.000Z","type":"response_item","payload":{"type":"message","role":"user"}}` + "\n"
	}
	created := func(when time.Duration, id, dir, extra string) string {
		return "timestamp=" + at(when) + " level=INFO run=6698fd2b message=created id=" + id + " slug=playful-cabin version=1.18.33 projectID=global directory=" + dir + " path=x workspaceID=undefined " + extra + ` title="New session - x" agent=build time.created=1795439331185` + "\n"
	}
	const ocLog = ".local/share/opencode/log/opencode.log"
	// filler is about n bytes of log lines that record no session.
	filler := func(n int) string {
		line := "timestamp=" + at(time.Minute) + " level=INFO run=1 message=filler x=" + strings.Repeat("x", 1000) + "\n"
		return strings.Repeat(line, n/len(line)+1)
	}
	tests := []struct {
		name    string
		harness string
		env     map[string]string
		files   []sessionFile
		dir     string        // the search's Dir, relative to the test's directory: "work" or "link"
		at      time.Duration // the search's Since, an offset from since; 0: 300 ms
		want    string
		wantErr error
	}{
		{name: "claude: the newest file's first sessionId", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", `{"type":"mode","mode":"normal","sessionId":"` + id1 + `"}` + "\n{}\n", time.Minute},
			{".claude/projects/{slug}/" + id2 + ".jsonl", `{"type":"mode","mode":"normal","sessionId":"` + id2 + `"}` + "\n", 2 * time.Minute},
			{".claude/projects/{slug}/memory/x.jsonl", "{}\n", 3 * time.Minute},
			{".claude/projects/{slug}/notes.txt", "", 3 * time.Minute},
		}, want: id2},
		{name: "claude: the first line's sessionId over the file's name", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/agent-a1b2c3.jsonl", `{"sessionId":"` + id1 + `","isSidechain":true}` + "\n", time.Minute},
		}, want: id1},
		{name: "claude: the file's name without a sessionId", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", `{"type":"file-history-snapshot"}` + "\n", time.Minute},
		}, want: id1},
		{name: "claude: the file's name when the first line is not JSON", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", "{torn", time.Minute},
		}, want: id1},
		{name: "claude: an empty file", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", "", time.Minute},
		}, want: id1},
		{name: "claude: modified in the second Since falls in", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", "", 0},
		}, want: id1},
		{name: "claude: stamped by the file clock just before a Since early in its second", harness: Claude, at: 2 * time.Millisecond, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", "", -3 * time.Millisecond},
		}, want: id1},
		{name: "claude: only older sessions", harness: Claude, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", `{"sessionId":"` + id1 + `"}` + "\n", -time.Second},
		}, wantErr: ErrNoSession},
		{name: "claude: another directory's session", harness: Claude, files: []sessionFile{
			{".claude/projects/-elsewhere/" + id1 + ".jsonl", `{"sessionId":"` + id1 + `"}` + "\n", time.Minute},
		}, wantErr: ErrNoSession},
		{name: "claude: no ~/.claude", harness: Claude, wantErr: ErrNoSession},
		{name: "claude: CLAUDE_CONFIG_DIR", harness: Claude, env: map[string]string{"CLAUDE_CONFIG_DIR": "{root}/config"}, files: []sessionFile{
			{".claude/projects/{slug}/" + id1 + ".jsonl", "", 2 * time.Minute},
			{"config/projects/{slug}/" + id2 + ".jsonl", "", time.Minute},
		}, want: id2},
		{name: "claude: a directory reached through a symbolic link", harness: Claude, dir: "link", files: []sessionFile{
			{".claude/projects/{realslug}/" + id1 + ".jsonl", "", time.Minute},
		}, want: id1},

		{name: "codex: the newest rollout in the directory", harness: Codex, files: []sessionFile{
			{rollout(id1), meta(id1, "{dir}"), time.Minute},
			{rollout(id2), meta(id2, "{dir}"), 2 * time.Minute},
		}, want: id2},
		{name: "codex: a newer rollout elsewhere is passed over", harness: Codex, files: []sessionFile{
			{rollout(id1), meta(id1, "{dir}"), time.Minute},
			{rollout(id2), meta(id2, "/elsewhere"), 2 * time.Minute},
		}, want: id1},
		{name: "codex: a newer codex exec run is passed over", harness: Codex, files: []sessionFile{
			{rollout(id1), meta(id1, "{dir}"), time.Minute},
			{rollout(id2), strings.Replace(meta(id2, "{dir}"), `"originator":"codex-tui"`, `"originator":"codex_exec","source":"exec"`, 1), 2 * time.Minute},
		}, want: id1},
		{name: "codex: the id from the name when the payload has none", harness: Codex, files: []sessionFile{
			{rollout(id1), `{"type":"session_meta","payload":{"cwd":"{dir}"}}` + "\n", time.Minute},
		}, want: id1},
		{name: "codex: the first line must be session_meta", harness: Codex, files: []sessionFile{
			{rollout(id1), `{"type":"response_item","payload":{"id":"x","cwd":"{dir}"}}` + "\n", time.Minute},
		}, wantErr: ErrNoSession},
		{name: "codex: a first line over 1 MiB is not read", harness: Codex, files: []sessionFile{
			{rollout(id1), `{"type":"session_meta","payload":{"id":"` + id1 + `","cwd":"{dir}","pad":"` + strings.Repeat("x", maxFirstLine) + `"}}` + "\n", time.Minute},
		}, wantErr: ErrNoSession},
		{name: "codex: other names are not rollouts", harness: Codex, files: []sessionFile{
			{".codex/sessions/2026/11/23/" + id1 + ".jsonl", meta(id1, "{dir}"), time.Minute},
			{".codex/sessions/2026/11/23/rollout-" + id1 + ".jsonl", meta(id1, "{dir}"), time.Minute},
		}, wantErr: ErrNoSession},
		{name: "codex: only older sessions", harness: Codex, files: []sessionFile{
			{rollout(id1), meta(id1, "{dir}"), -time.Minute},
		}, wantErr: ErrNoSession},
		{name: "codex: no ~/.codex", harness: Codex, wantErr: ErrNoSession},
		{name: "codex: CODEX_HOME", harness: Codex, env: map[string]string{"CODEX_HOME": "{root}/ch"}, files: []sessionFile{
			{rollout(id1), meta(id1, "{dir}"), 2 * time.Minute},
			{"ch/sessions/2026/11/23/rollout-2026-11-23T13-00-05-" + id2 + ".jsonl", meta(id2, "{dir}"), time.Minute},
		}, want: id2},
		{name: "codex: the resolved directory", harness: Codex, dir: "link", files: []sessionFile{
			{rollout(id1), meta(id1, "{real}"), time.Minute},
		}, want: id1},

		{name: "opencode: the last session created in the directory", harness: OpenCode, files: []sessionFile{
			{ocLog, "timestamp=" + at(-time.Hour) + " level=INFO run=1 message=init\n" +
				created(-time.Hour, "ses_old", "{qdir}", "parentID=undefined") +
				created(time.Minute, "ses_first", "{qdir}", "parentID=undefined") +
				created(2*time.Minute, "ses_child", "{qdir}", "parentID=ses_first") +
				created(3*time.Minute, "ses_elsewhere", "/elsewhere", "parentID=undefined") +
				"timestamp=" + at(3*time.Minute) + " level=INFO run=1 message=created id=prt_1 directory={qdir}\n" +
				created(4*time.Minute, "ses_second", "{qdir}", "parentID=undefined") +
				"timestamp=" + at(5*time.Minute) + " level=INFO run=1 message=loop session.id=ses_second step=0\n" +
				"timestamp=" + at(5*time.Minute) + " level=INFO run=1 message=created id=prt_2 directory={qdir}\n" +
				`timestamp=` + at(6*time.Minute) + ` level=INFO run=1 message=created id=ses_torn directory="{dir}`, 6 * time.Minute},
		}, want: "ses_second"},
		{name: "opencode: a subagent's session is not the conversation", harness: OpenCode, files: []sessionFile{
			{ocLog, created(time.Minute, "ses_first", "{qdir}", "parentID=undefined") +
				created(2*time.Minute, "ses_child", "{qdir}", "parentID=ses_first"), 2 * time.Minute},
		}, want: "ses_first"},
		{name: "opencode: only the last 8 MiB of a log are read", harness: OpenCode, files: []sessionFile{
			{ocLog, created(time.Minute, "ses_early", "{qdir}", "") + filler(maxLogTail), 5 * time.Minute},
		}, wantErr: ErrNoSession},
		{name: "opencode: a session near the end of a long log", harness: OpenCode, files: []sessionFile{
			{ocLog, filler(maxLogTail) + created(time.Minute, "ses_late", "{qdir}", "") + filler(1000), 5 * time.Minute},
		}, want: "ses_late"},
		{name: "opencode: only sessions created before Since, in a log written since", harness: OpenCode, files: []sessionFile{
			{ocLog, created(-time.Second, "ses_old", "{qdir}", "") +
				"timestamp=" + at(time.Minute) + " level=INFO run=1 message=bootstrapping directory={qdir}\n", time.Minute},
		}, wantErr: ErrNoSession},
		{name: "opencode: the newest creation across log files", harness: OpenCode, files: []sessionFile{
			{".local/share/opencode/log/a.log", created(3*time.Minute, "ses_a", "{qdir}", ""), 5 * time.Minute},
			{".local/share/opencode/log/b.log", created(2*time.Minute, "ses_b", "{qdir}", ""), 4 * time.Minute},
			{".local/share/opencode/log/c.txt", created(6*time.Minute, "ses_c", "{qdir}", ""), 6 * time.Minute},
		}, want: "ses_a"},
		{name: "opencode: older opencode's format", harness: OpenCode, files: []sessionFile{
			{".local/share/opencode/log/2026-11-23T130100.log",
				"INFO  " + at(time.Minute)[:19] + " +12ms service=session id=ses_old1 version=0.3.1 projectID=p directory={dir} title=t time={\"created\":1} created\n" +
					"INFO  " + at(2 * time.Minute)[:19] + " +1ms service=session id=ses_old2 version=0.3.1 projectID=p directory={dir} parentID=ses_old1 title=t created\n" +
					"INFO  " + at(3 * time.Minute)[:19] + " +1ms service=session id=ses_old3 version=0.3.1 projectID=p directory={dir} sub title=t created\n" +
					"INFO  " + at(3 * time.Minute)[:19] + " +1ms service=bus type=session.updated publishing\n", 3 * time.Minute},
		}, want: "ses_old1"},
		{name: "opencode: a log not written since Since", harness: OpenCode, files: []sessionFile{
			{ocLog, created(time.Minute, "ses_1", "{qdir}", ""), -time.Minute},
		}, wantErr: ErrNoSession},
		{name: "opencode: XDG_DATA_HOME", harness: OpenCode, env: map[string]string{"XDG_DATA_HOME": "{root}/data"}, files: []sessionFile{
			{ocLog, created(2*time.Minute, "ses_home", "{qdir}", ""), 2 * time.Minute},
			{"data/opencode/log/opencode.log", created(time.Minute, "ses_xdg", "{qdir}", ""), time.Minute},
		}, want: "ses_xdg"},
		{name: "opencode: no log", harness: OpenCode, wantErr: ErrNoSession},

		{name: "gemini: Meridian gives the id", harness: Gemini, files: []sessionFile{
			{".gemini/tmp/work/chats/session-2026-11-23T13-00-" + id1[:8] + ".jsonl", `{"sessionId":"` + id1 + `"}` + "\n", time.Minute},
		}, wantErr: ErrNoSession},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A directory name with a space, a quote and a backslash:
			// opencode quotes it, claude's slug flattens it.
			root := t.TempDir()
			dir := filepath.Join(root, `a "work\ dir`)
			real := filepath.Join(root, "real")
			if err := os.Mkdir(real, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
			if tt.dir != "link" {
				// The directory itself, not a link to one.
				os.Remove(dir)
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				real = dir
			}
			jsonDir := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(dir)
			fill := strings.NewReplacer("{root}", root, "{slug}", claudeProjectSlug(dir), "{realslug}", claudeProjectSlug(real),
				"{qdir}", `"`+jsonDir+`"`, "{dir}", jsonDir, "{real}", real)
			for _, f := range tt.files {
				p := filepath.Join(root, fill.Replace(f.path))
				content := fill.Replace(f.content)
				if strings.Contains(f.content, "INFO  ") {
					// Older opencode does not quote or escape.
					content = strings.ReplaceAll(f.content, "{dir}", dir)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				mtime := since.Add(f.mtime)
				if err := os.Chtimes(p, mtime, mtime); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = fill.Replace(v)
			}
			at := tt.at
			if at == 0 {
				at = 300 * time.Millisecond // compared to the second
			}
			h, _ := Lookup(tt.harness)
			got, err := h.FindSession(SessionSearch{
				Home:   root,
				Getenv: func(k string) string { return env[k] },
				Dir:    dir,
				Since:  since.Add(at),
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("FindSession() error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FindSession() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindSessionRefusesBadSearches(t *testing.T) {
	for _, h := range All() {
		if _, err := h.FindSession(SessionSearch{Home: t.TempDir(), Dir: "work"}); err == nil || errors.Is(err, ErrNoSession) {
			t.Errorf("%s: relative Dir: error %v, want one that is not ErrNoSession", h.Name(), err)
		}
		if h.Name() == Gemini {
			continue
		}
		if _, err := h.FindSession(SessionSearch{Dir: t.TempDir()}); err == nil || errors.Is(err, ErrNoSession) {
			t.Errorf("%s: no home: error %v, want one that is not ErrNoSession", h.Name(), err)
		}
	}
}

func TestLogfmt(t *testing.T) {
	got := logfmt(`timestamp=2026-11-23T13:09:18.908Z level=INFO  bare message=created directory="/tmp/we\"ird\\ d=x y" path="tmp/we\"ird/ d=x y" id=ses_1 id=ses_2 empty= torn="abc`)
	want := map[string]string{
		"timestamp": "2026-11-23T13:09:18.908Z", "level": "INFO", "message": "created",
		"directory": `/tmp/we"ird\ d=x y`, "path": `tmp/we"ird/ d=x y`, "id": "ses_1", "empty": "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("logfmt (-want +got):\n%s", diff)
	}
}
