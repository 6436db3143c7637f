package harnesstest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/google/go-cmp/cmp"
)

func TestSessionIDs(t *testing.T) {
	bin := Install(t)
	for _, h := range harness.All() {
		t.Run(h.Name(), func(t *testing.T) {
			t.Parallel()
			exe := filepath.Join(bin, h.Name())
			id := "0199a213-81c0-7800-8aa1-bbab2a035a53"
			if h.Name() == harness.OpenCode {
				id = "ses_0a1b2c3d4e5fABCDEFGHIJKLMN"
			}
			session := func(req harness.Request) string {
				cmd, _ := h.Build(exe, req)
				r := runFake(t, h, cmd)
				if r.code != 0 {
					t.Fatalf("%q: exit %d, stderr %s", cmd.Args, r.code, r.stderr)
				}
				return r.result.SessionID
			}
			a, b := session(harness.Request{Prompt: "one"}), session(harness.Request{Prompt: "two"})
			if a == "" || a == b {
				t.Errorf("new conversations got ids %q and %q, want two fresh ones", a, b)
			}
			if got := session(harness.Request{Prompt: "again", ResumeID: id}); got != id {
				t.Errorf("resumed session id %q, want %q", got, id)
			}
			if h.Supports(harness.FieldSessionID) {
				named := harness.NewSessionID()
				if got := session(harness.Request{Prompt: "named", SessionID: named}); got != named {
					t.Errorf("session id %q, want the one given, %q", got, named)
				}
			}
			forked := session(harness.Request{Prompt: "again", ResumeID: id, Fork: true})
			if h.Supports(harness.FieldFork) {
				if forked == id || forked == "" {
					t.Errorf("forked session id %q, want a new one", forked)
				}
			} else if forked != id {
				// Without a fork flag the conversation is resumed in place.
				t.Errorf("session id %q, want the resumed %q", forked, id)
			}
		})
	}
}

// refused is each CLI's way of refusing an argument, and its exit code.
var refused = map[string]struct {
	re   *regexp.Regexp
	code int
}{
	harness.Claude:   {regexp.MustCompile(`^error: unknown option '--meridian-bogus'\n$`), 1},
	harness.Codex:    {regexp.MustCompile(`^error: unexpected argument '--meridian-bogus' found\n`), 2},
	harness.OpenCode: {regexp.MustCompile(`(?m)^Positionals:`), 1},
	harness.Gemini:   {regexp.MustCompile(`\nUnknown argument: meridian-bogus\n$`), 1},
}

func TestUnknownFlagIsRefused(t *testing.T) {
	bin := Install(t)
	for _, h := range harness.All() {
		for _, interactive := range []bool{false, true} {
			t.Run(h.Name()+"/interactive="+strconv.FormatBool(interactive), func(t *testing.T) {
				cmd, _ := h.Build(filepath.Join(bin, h.Name()), harness.Request{Prompt: "p", Interactive: interactive, Extra: []string{"--meridian-bogus"}})
				if interactive && h.Name() == harness.Codex {
					// clap takes an option after the positional prompt too.
					cmd.Args = append(cmd.Args[:1], append([]string{"--meridian-bogus"}, cmd.Args[1:]...)...)
				}
				r := runFake(t, h, cmd)
				want := refused[h.Name()]
				if r.code != want.code || !want.re.MatchString(r.stderr) || len(r.stdout) != 0 {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and stderr matching %s", cmd.Args, r.code, r.stdout, r.stderr, want.code, want.re)
				}
			})
		}
	}
}

// TestRefusalsOfTheRealCLIs: the fake refuses what the real CLIs refuse when
// a flag Build relies on is missing.
func TestRefusalsOfTheRealCLIs(t *testing.T) {
	bin := Install(t)
	tests := []struct {
		harness, drop, stderr string
		code                  int
	}{
		{harness.Claude, "--verbose", "Error: When using --print, --output-format=stream-json requires --verbose\n", 1},
		{harness.Codex, "--skip-git-repo-check", "Not inside a trusted directory and --skip-git-repo-check was not specified.\n", 1},
		{harness.Gemini, "--skip-trust", "Gemini CLI is not running in a trusted directory.", 55},
	}
	for _, tt := range tests {
		t.Run(tt.harness, func(t *testing.T) {
			h, _ := harness.Lookup(tt.harness)
			cmd, _ := h.Build(filepath.Join(bin, h.Name()), harness.Request{Prompt: "p"})
			i := slicesIndex(cmd.Args, tt.drop)
			if i < 0 {
				t.Fatalf("%q has no %s", cmd.Args, tt.drop)
			}
			cmd.Args = append(cmd.Args[:i:i], cmd.Args[i+1:]...)
			r := runFake(t, h, cmd)
			if r.code != tt.code || !strings.HasPrefix(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d, %q", r.code, r.stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestClaudeSessionIDFlag: the fake's claude takes --session-id as the real
// one does (claude 2.1.197: a UUID only; with --resume only when forking).
func TestClaudeSessionIDFlag(t *testing.T) {
	bin := Install(t)
	h, _ := harness.Lookup(harness.Claude)
	const old, named = "0199a213-81c0-7800-8aa1-bbab2a035a53", "3b241101-e2bb-4255-8caf-4136c566a962"
	tests := []struct {
		name    string
		args    []string
		code    int
		stderr  string
		session string
	}{
		{"not a uuid", []string{"--session-id", "chat-1"}, 1, "Error: Invalid session ID. Must be a valid UUID.\n", ""},
		{"with resume", []string{"--resume", old, "--session-id", named}, 1, "Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.\n", ""},
		{"with continue", []string{"--continue", "--session-id", named}, 1, "Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.\n", ""},
		{"forking into it", []string{"--resume", old, "--fork-session", "--session-id", named}, 0, "", named},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, _ := h.Build(filepath.Join(bin, "claude"), harness.Request{Prompt: "p", Extra: tt.args})
			r := runFake(t, h, cmd)
			if r.code != tt.code || r.stderr != tt.stderr || r.result.SessionID != tt.session {
				t.Errorf("exit %d, stderr %q, session %q; want %d, %q, %q", r.code, r.stderr, r.result.SessionID, tt.code, tt.stderr, tt.session)
			}
		})
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestCodexWritesReportPath(t *testing.T) {
	bin := Install(t)
	h, _ := harness.Lookup(harness.Codex)
	report := filepath.Join(t.TempDir(), "report.md")
	cmd, _ := h.Build(filepath.Join(bin, h.Name()), harness.Request{Prompt: "Write it down", ReportPath: report})
	r := runFake(t, h, cmd)
	got, err := os.ReadFile(report)
	if err != nil || r.code != 0 {
		t.Fatalf("exit %d, read report: %v", r.code, err)
	}
	if string(got) != r.result.Report || r.result.Report != "fake codex report: Write it down" {
		t.Errorf("report file %q, stream report %q", got, r.result.Report)
	}
}

func TestRecords(t *testing.T) {
	bin := Install(t)
	rec := t.TempDir()
	h, _ := harness.Lookup(harness.Claude)
	exe := filepath.Join(bin, h.Name())
	ok, _ := h.Build(exe, harness.Request{Prompt: "first"})
	bad, _ := h.Build(exe, harness.Request{Prompt: "second", Extra: []string{"--meridian-bogus"}})
	runFake(t, h, ok, "FAKE_HARNESS_RECORD="+rec, "MERIDIAN_SPACE_ID=s7", "OTHER_VAR=x")
	runFake(t, h, bad, "FAKE_HARNESS_RECORD="+rec, "MERIDIAN_SPACE_ID=s7")

	got := Records(t, rec)
	if len(got) != 2 {
		t.Fatalf("%d records, want 2: %+v", len(got), got)
	}
	for _, r := range got {
		if r.PID == 0 || r.PGID != r.PID || r.Cwd == "" || r.Time.IsZero() || r.ChildPID != 0 {
			t.Errorf("record %+v: want pid, its own group (runFake starts one), cwd, time, no child", r)
		}
	}
	type summary struct {
		Harness string
		Argv    []string
		Stdin   string
		Env     map[string]string
		Mode    string
	}
	var sums []summary
	for _, r := range got {
		sums = append(sums, summary{r.Harness, r.Argv, r.Stdin, r.Env, r.Mode})
	}
	want := []summary{
		{"claude", ok.Args, "first", map[string]string{"MERIDIAN_SPACE_ID": "s7"}, "success"},
		{"claude", bad.Args, "", map[string]string{"MERIDIAN_SPACE_ID": "s7"}, ""},
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(rec, ".tmp-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestHangLeavesAChildInItsGroup: a hanging fake prints its first event,
// then sleeps with a child in its process group; killing the group ends
// both.
func TestHangLeavesAChildInItsGroup(t *testing.T) {
	bin := Install(t)
	for _, h := range harness.All() {
		t.Run(h.Name(), func(t *testing.T) {
			rec := t.TempDir()
			cmd, _ := h.Build(filepath.Join(bin, h.Name()), harness.Request{Prompt: "[fake:hang] wait"})
			c := exec.Command(cmd.Args[0], cmd.Args[1:]...)
			c.Dir = t.TempDir()
			c.Env = append(inherited(), "FAKE_HARNESS_RECORD="+rec)
			c.Stdin = strings.NewReader(cmd.Stdin)
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdout, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := c.Process.Pid
			t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })

			p := h.NewParser()
			br := bufio.NewReader(stdout)
			deadline := time.AfterFunc(20*time.Second, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
			defer deadline.Stop()
			session := ""
			for session == "" {
				line, err := br.ReadBytes('\n')
				session = p.Feed(line)
				if err != nil {
					t.Fatalf("stream ended before a session id: %v", err)
				}
			}

			recs := Records(t, rec)
			if len(recs) != 1 || recs[0].ChildPID == 0 || recs[0].Mode != "hang" {
				t.Fatalf("records %+v, want one hang record with a child", recs)
			}
			child := recs[0].ChildPID
			childGroup, err := syscall.Getpgid(child)
			if err != nil || childGroup != pgid {
				t.Fatalf("child %d is in group %d (%v), want %d", child, childGroup, err, pgid)
			}
			if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = c.Wait()
			io.Copy(io.Discard, br)
			if !gone(child, 5*time.Second) {
				t.Errorf("child %d outlived its killed group", child)
			}
		})
	}
}

// gone waits for pid to stop existing (a dead child of an exited parent is
// reaped by init).
func gone(pid int, within time.Duration) bool {
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			// A zombie waiting for init counts as gone.
			if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return true
			}
		}
	}
	return false
}
