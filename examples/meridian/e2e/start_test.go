//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/internal/ptytest"
)

// chat is a `meridian start` on a terminal.
type chat struct {
	*ptytest.Session
	sb *sandbox
}

// start runs `meridian start args...` on a pseudo-terminal and waits for
// the fake harness's banner: it knows it is on a terminal.
func (sb *sandbox) start(t *testing.T, harness string, args ...string) *chat {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"start"}, args...)...)
	cmd.Env, cmd.Dir = sb.env, sb.dir
	c := &chat{ptytest.Start(t, cmd), sb}
	c.WaitFor(t, "fake "+harness+" interactive session ")
	return c
}

// lastRecord is the fake harness's record of its latest call.
func (sb *sandbox) lastRecord(t *testing.T) harnesstest.Record {
	t.Helper()
	recs := harnesstest.Records(t, sb.record)
	if len(recs) == 0 {
		t.Fatal("the fake harness recorded no call")
	}
	return recs[len(recs)-1]
}

// TestStartChat follows a chat from start to end: the harness gets the
// terminal (typed input reaches it), its environment names the space and
// the chat, the chat's start event and lock exist while it runs and its
// stop event and no lock after.
func TestStartChat(t *testing.T) {
	sb := newSandbox(t)
	c := sb.start(t, "claude")
	lock := filepath.Join(sb.spaceDir("s1"), "sessions", "c1.lock")
	eventually(t, "the chat's lock", func() bool { alive, _ := state.Alive(lock); return alive })

	c.Write(t, "hello from the keyboard\r")
	c.WaitFor(t, "you said: hello from the keyboard")

	rec := sb.lastRecord(t)
	wantEnv := map[string]string{
		"MERIDIAN_SPACE_ID":        "s1",
		"MERIDIAN_SPACE_FS":        filepath.Join(sb.spaceDir("s1"), "fs"),
		"MERIDIAN_SESSION_ID":      "c1",
		"MERIDIAN_HARNESS_COMMAND": "claude",
	}
	// The invocation's trace id reaches the programs it starts (proc).
	if rec.Env["MERIDIAN_TRACE_ID"] == "" {
		t.Errorf("the harness did not get the invocation's trace id, MERIDIAN_TRACE_ID")
	}
	delete(rec.Env, "MERIDIAN_TRACE_ID")
	if diff := cmp.Diff(wantEnv, rec.Env); diff != "" {
		t.Errorf("the harness's MERIDIAN_* environment (-want +got):\n%s", diff)
	}
	if rec.Mode != "interactive" {
		t.Errorf("the harness ran in mode %q, want interactive (argv %q)", rec.Mode, rec.Argv)
	}
	evs := sb.chatEvents(t, "s1")
	if len(evs) != 1 || evs[0]["event"] != "start" || evs[0]["session_id"] != "c1" || evs[0]["harness"] != "claude" {
		t.Fatalf("sessions.jsonl while the chat runs = %v, want one start of c1 on claude", evs)
	}

	if out, _ := sb.person(t, sb.env, "space", "show", "s1"); !regexp.MustCompile(`c1 +claude .* running\r?\n +meridian start --space s1 --continue c1`).MatchString(plain(out)) {
		t.Errorf("space show does not list c1 as running with its continue line: %q", out)
	}

	c.Write(t, "/exit\r")
	out, code := c.Wait(t)
	if code != 0 {
		t.Fatalf("exit %d; the terminal shows %q", code, out)
	}
	if !strings.Contains(plain(out), "Chat c1 in space s1 ended") || !strings.Contains(out, "meridian start --space s1 --continue c1") {
		t.Errorf("the end of the chat is not told, with how to continue it: %q", out)
	}
	evs = sb.chatEvents(t, "s1")
	if len(evs) != 2 || evs[1]["event"] != "stop" || evs[1]["session_id"] != "c1" {
		t.Errorf("sessions.jsonl after the chat = %v, want its start and stop", evs)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the chat's lock file is still there (%v)", err)
	}

	// The next start resumes the active space, with a new chat, and says so.
	c = sb.start(t, "claude")
	c.Write(t, "/exit\r")
	out, code = c.Wait(t)
	warned := strings.Index(plain(out), "WARNING [SPACE_AUTO_RESUMED]: Resumed active space s1")
	if code != 0 || warned < 0 || warned > strings.Index(out, "fake claude interactive session") || !strings.Contains(out, "Chat c2 in space s1") {
		t.Errorf("exit %d; want chat c2 in s1, SPACE_AUTO_RESUMED shown before the harness; the terminal shows %q", code, out)
	}
	// --new makes a space whatever is active.
	c = sb.start(t, "claude", "--new")
	c.Write(t, "/exit\r")
	if out, _ := c.Wait(t); !strings.Contains(out, "Chat c1 in space s2") || strings.Contains(out, "SPACE_AUTO_RESUMED") {
		t.Errorf("--new: want chat c1 in a new space s2, no auto-resume; the terminal shows %q", out)
	}
}

// TestStartSignals: the terminal's Ctrl-C is the harness's (meridian lives
// on to record the end); a SIGTERM sent to meridian reaches the harness and
// ends the chat with 143; `space close` ends a running chat that way.
func TestStartSignals(t *testing.T) {
	t.Run("ctrl-c", func(t *testing.T) {
		sb := newSandbox(t)
		c := sb.start(t, "claude")
		c.Write(t, "\x03")
		out, code := c.Wait(t)
		if code != 0 || !strings.Contains(plain(out), "ended (claude ended by interrupt)") {
			t.Errorf("exit %d; want the harness interrupted and the chat's end told; the terminal shows %q", code, out)
		}
		if evs := sb.chatEvents(t, "s1"); len(evs) != 2 || evs[1]["event"] != "stop" {
			t.Errorf("sessions.jsonl = %v, want start and stop", evs)
		}
	})
	t.Run("sigterm", func(t *testing.T) {
		sb := newSandbox(t)
		c := sb.start(t, "claude")
		harness := sb.lastRecord(t).PID
		c.Cmd.Process.Signal(syscall.SIGTERM)
		out, code := c.Wait(t)
		if code != 143 || !strings.Contains(plain(out), "CANCELLED") {
			t.Errorf("exit %d, want 143 with CANCELLED; the terminal shows %q", code, out)
		}
		if alive(harness) {
			t.Errorf("the harness (pid %d) outlived meridian", harness)
		}
		if evs := sb.chatEvents(t, "s1"); len(evs) != 2 || evs[1]["event"] != "stop" {
			t.Errorf("sessions.jsonl = %v, want start and stop", evs)
		}
	})
	t.Run("space close", func(t *testing.T) {
		sb := newSandbox(t)
		c := sb.start(t, "claude")
		var closed struct {
			Stopped []string `json:"stopped_chats"`
			Live    []string `json:"live_chats"`
		}
		sb.ok(t, sb.env, &closed, "space", "close", "s1", "--yes")
		if diff := cmp.Diff([]string{"c1"}, closed.Stopped); diff != "" || len(closed.Live) != 0 {
			t.Errorf("stopped chats (-want +got):\n%s; still live %v", diff, closed.Live)
		}
		if _, code := c.Wait(t); code != 143 {
			t.Errorf("the chat's meridian exited %d, want 143", code)
		}
		if _, err := os.Stat(filepath.Join(sb.spaceDir("s1"), "sessions", "c1.lock")); !os.IsNotExist(err) {
			t.Errorf("the chat's lock file is still there (%v)", err)
		}
	})
}

// TestStartRefusals: what `start` refuses, before any harness runs.
func TestStartRefusals(t *testing.T) {
	sb := newSandbox(t)
	for _, args := range [][]string{nil, {"--new"}} { // c1 in s1, and c1 in s2
		c := sb.start(t, "claude", args...)
		c.Write(t, "/exit\r")
		c.Wait(t)
	}
	calls := len(harnesstest.Records(t, sb.record))
	tests := []struct {
		name string
		args []string
		exit int
		want string
	}{
		{"alias in two spaces", []string{"--continue", "c1"}, 2, "ERROR [AMBIGUOUS_SESSION]: Chat c1 exists in multiple spaces (s1, s2)"},
		{"no such chat", []string{"--space", "s1", "--continue", "c9"}, 5, "ERROR [CHAT_NOT_FOUND]"},
		{"a chat without --continue", []string{"c1"}, 2, "ERROR [CHAT_WITHOUT_CONTINUE]"},
		{"--new with --space", []string{"--new", "--space", "s1"}, 2, "ERROR [MUTUALLY_EXCLUSIVE_FLAGS]: flags --new and --space"},
		{"no such space", []string{"--space", "s9"}, 5, "ERROR [SPACE_NOT_FOUND]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := sb.person(t, sb.env, append([]string{"start"}, tt.args...)...)
			if code != tt.exit || !strings.Contains(plain(out), tt.want) {
				t.Errorf("exit %d, want %d with %q; the terminal shows %q", code, tt.exit, tt.want, out)
			}
		})
	}
	if n := len(harnesstest.Records(t, sb.record)); n != calls {
		t.Errorf("a refused start ran the harness (%d calls, want %d)", n, calls)
	}
	// Duet refuses an interactive command where nobody is at a terminal,
	// before it runs (REQ-F-047).
	t.Run("not a terminal", func(t *testing.T) {
		e := sb.fails(t, sb.env, "REPL_MODE_PROHIBITED", 4, "start")
		if e.Phase != "validation" {
			t.Errorf("phase %q, want validation", e.Phase)
		}
	})
}

// TestStartContinue: a chat ended on each harness is continued with that
// harness's own resume flag and the session it had, keeps its alias and
// its first settings, and refuses another harness's model.
func TestStartContinue(t *testing.T) {
	tests := []struct {
		harness, model string
		resume         func(id string) []string // the argv a continuation must hold
	}{
		{"claude", "claude-opus-4-6", func(id string) []string { return []string{"--resume", id} }},
		{"codex", "gpt-5.3-codex", func(id string) []string { return []string{"resume", id} }},
		{"opencode", "opencode-anthropic/claude-sonnet-4-5", func(id string) []string { return []string{"--session", id} }},
		{"gemini", "gemini-2.5-pro", func(id string) []string { return []string{"--resume", id} }},
	}
	for _, tt := range tests {
		t.Run(tt.harness, func(t *testing.T) {
			sb := newSandbox(t)
			c := sb.start(t, tt.harness, "-m", tt.model, "--append-system-prompt", "be brief")
			banner := regexp.MustCompile(`interactive session (\S+)`).FindStringSubmatch(c.Output())
			// The CLIs keep a session only once it has a message.
			c.Write(t, "first message\r")
			c.WaitFor(t, "you said: first message")
			c.Write(t, "/exit\r")
			if out, code := c.Wait(t); code != 0 {
				t.Fatalf("first chat: exit %d; the terminal shows %q", code, out)
			}
			session := banner[1]

			c = sb.start(t, tt.harness, "--continue", "c1")
			c.WaitFor(t, "interactive session "+session)
			c.Write(t, "/exit\r")
			out, code := c.Wait(t)
			if code != 0 || !strings.Contains(plain(out), "Chat c1 in space s1 ended") {
				t.Fatalf("continuation: exit %d; the terminal shows %q", code, out)
			}
			argv := strings.Join(sb.lastRecord(t).Argv[1:], " ")
			if want := strings.Join(tt.resume(session), " "); !strings.Contains(argv, want) {
				t.Errorf("the continuation ran %q, which lacks %q", argv, want)
			}
			if !strings.Contains(argv, strings.TrimPrefix(tt.model, "opencode-")) {
				t.Errorf("the continuation ran %q, not with the chat's model %s", argv, tt.model)
			}
			// The first start's settings are the continuation's: Claude
			// takes --append-system-prompt, the others say they do not.
			if tt.harness == "claude" {
				if !strings.Contains(argv, "--append-system-prompt be brief") {
					t.Errorf("the continuation ran %q, without the chat's --append-system-prompt", argv)
				}
			} else if !strings.Contains(plain(out), "WARNING [UNSUPPORTED_FLAG]: --append-system-prompt is not supported by") {
				t.Errorf("no UNSUPPORTED_FLAG warning for --append-system-prompt; the terminal shows %q", out)
			}
			evs := sb.chatEvents(t, "s1")
			if len(evs) != 4 || evs[2]["event"] != "start" || evs[2]["session_id"] != "c1" || evs[2]["harness_session_id"] != session {
				t.Errorf("sessions.jsonl = %v, want c1 started, stopped, started again on session %s, stopped", evs, session)
			}

			// The harness session id finds the chat too; a model of
			// another harness is refused.
			other := "claude-opus-4-6"
			if tt.harness == "claude" {
				other = "gpt-5.3-codex"
			}
			out, code = sb.person(t, sb.env, "start", "--continue", session, "-m", other)
			if code != 2 || !strings.Contains(plain(out), "ERROR [HARNESS_MISMATCH]: Session c1 was started with") {
				t.Errorf("another harness's model: exit %d; the terminal shows %q", code, out)
			}
		})
	}
}

// TestStartAutoResumeOff: with [start].auto_resume = false, start makes a
// new space even when one is active, and --continue still finds its chat.
func TestStartAutoResumeOff(t *testing.T) {
	sb := newSandbox(t)
	c := sb.start(t, "claude")
	c.Write(t, "hello\r")
	c.WaitFor(t, "you said: hello")
	c.Write(t, "/exit\r")
	c.Wait(t)
	if err := os.WriteFile(filepath.Join(sb.dir, ".meridian", "config.toml"), []byte("[start]\nauto_resume = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = sb.start(t, "claude")
	c.Write(t, "/exit\r")
	if out, _ := c.Wait(t); !strings.Contains(out, "Chat c1 in space s2") || strings.Contains(out, "SPACE_AUTO_RESUMED") {
		t.Errorf("auto_resume off: want a new space s2, no auto-resume; the terminal shows %q", out)
	}
	c = sb.start(t, "claude", "--space", "s1", "--continue")
	c.Write(t, "/exit\r")
	if out, _ := c.Wait(t); !strings.Contains(out, "Chat c1 in space s1") {
		t.Errorf("--space s1 --continue: want chat c1 of s1 continued; the terminal shows %q", out)
	}
}
