//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// envHook writes a hook (see `e2eapp check`) that records, one NAME=value a
// line, the variables names in file, as it sees them and as a grandchild (a
// program the hook starts) sees them, "unset" for a variable not set.
func (sb *sandbox) envHook(t *testing.T, file string, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + `=${` + n + `-unset}` + "\n")
	}
	body := "cat > " + file + " <<EOF\n" + b.String() + "EOF\n" +
		"sh -c 'cat > " + file + ".grandchild <<EOF\n" + b.String() + "EOF\n'\n"
	return sb.script(t, filepath.Base(file)+".hook", body)
}

// seen reads what an envHook recorded: the child's variables, and the
// grandchild's.
func seen(t *testing.T, file string) (child, grandchild map[string]string) {
	t.Helper()
	parse := func(path string) map[string]string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("the hook recorded nothing: %v", err)
		}
		m := map[string]string{}
		for line := range strings.Lines(string(raw)) {
			k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
			m[k] = v
		}
		return m
	}
	return parse(file), parse(file + ".grandchild")
}

// ---------------------------------------------------------------------------
// REQ-F-008 NO_COLOR and CI environment detection.

// TestF008NoColourWhereTheEnvironmentSaysSo: REQ-F-008 criteria 1 and 3. At
// a terminal, where e2eapp colours its table (stdout) and its error line
// (stderr), NO_COLOR set even empty, TERM
// set to dumb alone, CI, GITHUB_ACTIONS or JENKINS_URL leave no ANSI escape
// in anything the terminal shows. Without them both are coloured: the test
// can fail.
func TestF008NoColourWhereTheEnvironmentSaysSo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    []string
		colour bool
	}{
		{"a terminal that shows colour", nil, true},
		{"NO_COLOR empty", []string{"NO_COLOR="}, false},
		{"TERM=dumb alone", []string{"TERM=dumb"}, false},
		{"CI", []string{"CI=true"}, false},
		{"GITHUB_ACTIONS", []string{"GITHUB_ACTIONS=true"}, false},
		{"JENKINS_URL", []string{"JENKINS_URL=http://jenkins.example/"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			env := append([]string{"E2EAPP_SCOPES=repo:read"}, tt.env...)
			for _, args := range [][]string{{"repos"}, {"lookup", "no-such-key"}} {
				screen, code := sb.pty(t, env, args...).Wait(t)
				if code != 0 && code != 5 {
					t.Fatalf("%v: exit %d: %q", args, code, screen)
				}
				if ansi.MatchString(screen) != tt.colour { // repos: a table on stdout; lookup: an error line on stderr
					t.Errorf("%v: colour %v, want %v: %q", args, ansi.MatchString(screen), tt.colour, screen)
				}
				if !tt.colour && strings.Contains(screen, "\x1b") {
					t.Errorf("%v: an ESC byte on the terminal: %q", args, screen)
				}
			}
		})
	}
}

// TestF008ChildrenGetNoColor: REQ-F-008 criterion 2. A program a command
// starts — through package proc, or with os/exec as a library that knows
// nothing of Duet would — and that program's own child inherit NO_COLOR=1
// wherever colour is off: an agent reads the pipe, NO_COLOR is set even
// empty, TERM=dumb at a terminal. A NO_COLOR the caller set to a value is
// kept; a person at a colour terminal gets none (the test can fail).
func TestF008ChildrenGetNoColor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		pty  bool
		want string
	}{
		{"an agent", nil, false, "1"},
		{"an agent, NO_COLOR empty", []string{"NO_COLOR="}, false, "1"},
		{"an agent, NO_COLOR=yes kept", []string{"NO_COLOR=yes"}, false, "yes"},
		{"a person, TERM=dumb", []string{"TERM=dumb"}, true, "1"},
		{"a person at a colour terminal", nil, true, "unset"},
	}
	for _, tt := range tests {
		for _, direct := range []bool{false, true} {
			name := tt.name + map[bool]string{false: ", through proc", true: ", with os/exec"}[direct]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				sb := newSandbox(t)
				file := sb.path("seen")
				args := []string{"check", sb.envHook(t, file, "NO_COLOR")}
				if direct {
					args = append(args, "--direct")
				}
				if tt.pty {
					if screen, code := sb.pty(t, tt.env, args...).Wait(t); code != 0 {
						t.Fatalf("exit %d: %q", code, screen)
					}
				} else {
					expect(t, "check", sb.runEnv(t, tt.env, args...), 0)
				}
				child, grandchild := seen(t, file)
				if child["NO_COLOR"] != tt.want || grandchild["NO_COLOR"] != tt.want {
					t.Errorf("NO_COLOR: child %q, grandchild %q; want %q", child["NO_COLOR"], grandchild["NO_COLOR"], tt.want)
				}
			})
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-F-044 Shell argument escaping enforcement.

// newRepo makes a git repository with two commits in the sandbox.
func (sb *sandbox) newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := sb.path("repo")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
		cmd.Env = sb.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	for i, msg := range []string{"first commit", "second commit"} {
		if err := os.WriteFile(filepath.Join(repo, "file.txt"), []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "file.txt")
		git("commit", "-q", "-m", msg)
	}
	return repo
}

// gitOut runs git in the sandbox's environment and returns its output.
func (sb *sandbox) gitOut(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = sb.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestF044ArgumentsVerbatim: REQ-F-044 criteria 1 and 3. `tag` passes its
// <name> (marked Subprocess) and --message (free text) to git through
// proc. A message holding `; touch …`, `$(…)` and backquotes reaches git
// as one argument, verbatim, and nothing it names runs; a name holding
// `; touch …` or a newline is refused before anything runs: exit 2,
// SHELL_METACHARACTER, phase validation, naming the field — and no tag
// exists.
func TestF044ArgumentsVerbatim(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	repo := sb.newRepo(t)
	injected := sb.path("INJECTED")
	message := "ship it; touch " + injected + " $(touch " + injected + "2) `touch " + injected + "3` | rm -rf /"

	env := expect(t, "tag with a hostile message", sb.run(t, "tag", "v1", "--repo", repo, "--message", message), 0)
	want(t, "tag", env, map[string]any{"data.tag": "v1", "meta.effect": "created"})
	if got := strings.TrimSuffix(sb.gitOut(t, "-C", repo, "for-each-ref", "refs/tags/v1", "--format=%(contents)"), "\n"); got != message+"\n" {
		t.Errorf("git stored the message %q, want it verbatim: %q", got, message)
	}

	for _, tt := range []struct {
		name, arg, char string
	}{
		{"a command after ;", "v2; touch " + injected, "';'"},
		{"a newline", "v3\ntouch " + injected, `'\n' (newline)`},
		{"a command substitution", "v4$(touch " + injected + ")", "'$'"},
	} {
		r := sb.run(t, "tag", tt.arg, "--repo", repo, "--message", "x")
		env := expect(t, tt.name, r, 2)
		want(t, tt.name, env, map[string]any{"error.code": "SHELL_METACHARACTER", "error.phase": "validation", "error.field": "name", "data": nil})
		if msg, _ := get(env, "error.message").(string); !strings.Contains(msg, tt.char) {
			t.Errorf("%s: the message %q does not name %s", tt.name, msg, tt.char)
		}
	}
	if tags := strings.Fields(sb.gitOut(t, "-C", repo, "tag")); !cmp.Equal(tags, []string{"v1"}) {
		t.Errorf("tags %q, want v1 alone: a refused name reached git", tags)
	}
	for _, f := range []string{injected, injected + "2", injected + "3"} {
		if exists(f) {
			t.Errorf("%s exists: an injected command ran", f)
		}
	}
}

// TestF044ShellStringRefused: REQ-F-044 criterion 2, as far as Go allows.
// `alias-run` hands a command line to `sh -c` through proc, the way a tool
// runs a "!"-alias: proc refuses it before anything starts (exit 1,
// SHELL_STRING_PROHIBITED), and the line never runs. Go has no shell=True
// to see at registration: the refusal is at the start of the program, not
// when the app is wrapped (the report counts this a deviation).
func TestF044ShellStringRefused(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	marker := sb.path("RAN")
	env := expect(t, "alias-run", sb.run(t, "alias-run", "--line", "touch "+marker), 1)
	want(t, "alias-run", env, map[string]any{"error.code": "SHELL_STRING_PROHIBITED", "error.phase": "execution", "meta.effect": nil})
	if exists(marker) {
		t.Error("the shell line ran")
	}
}

// TestF044Documented: REQ-F-044 criterion 4 (documentation, not behaviour):
// the command author's guide (README.md) says which metacharacters are
// refused, with what exit code and error code.
func TestF044Documented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	i := strings.Index(readme, "shell metacharacter")
	if i < 0 {
		t.Fatal("README.md does not document the shell metacharacter refusal")
	}
	section := readme[i:min(len(readme), i+600)]
	for _, s := range []string{"`;`", "`|`", "`&`", "`$`", "newline", "exit 2", "SHELL_METACHARACTER", "Subprocess"} {
		if !strings.Contains(section, s) && !strings.Contains(readme[max(0, i-400):i], s) {
			t.Errorf("README.md's shell metacharacter section does not mention %s:\n%s", s, section)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-F-046 Pager environment variable suppression.

// hostPagers is a host environment that asks for pagers everywhere.
func hostPagers(pager string) []string {
	return []string{"PAGER=" + pager, "GIT_PAGER=" + pager, "MANPAGER=" + pager, "LESS=-S", "MORE=-d"}
}

// TestF046PagersSuppressed: REQ-F-046 criteria 1, 3 and 4. Whatever the host
// says (PAGER=less and the rest), a hook `check` starts through proc — and
// the program that hook starts — see PAGER, GIT_PAGER and MANPAGER set to
// cat, LESS="-F -X -R" and MORE empty, for an agent and for a person at a
// terminal alike; the commands declare nothing about pagers (criterion 4).
func TestF046PagersSuppressed(t *testing.T) {
	t.Parallel()
	wantEnv := map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat", "LESS": "-F -X -R", "MORE": ""}
	for _, atTerminal := range []bool{false, true} {
		t.Run(map[bool]string{false: "an agent", true: "a person"}[atTerminal], func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			file := sb.path("seen")
			hook := sb.envHook(t, file, "PAGER", "GIT_PAGER", "MANPAGER", "LESS", "MORE")
			if atTerminal {
				if screen, code := sb.pty(t, hostPagers("less"), "check", hook).Wait(t); code != 0 {
					t.Fatalf("exit %d: %q", code, screen)
				}
			} else {
				expect(t, "check", sb.runEnv(t, hostPagers("less"), "check", hook), 0)
			}
			child, grandchild := seen(t, file)
			if diff := cmp.Diff(wantEnv, child); diff != "" {
				t.Errorf("the child's pagers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantEnv, grandchild); diff != "" {
				t.Errorf("the grandchild's pagers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestF046GitLogDoesNotPage: REQ-F-046 criterion 2. `history` runs
// `git --paginate log` through proc — --paginate makes git start its pager
// even with no terminal. With the host's pagers set to one that records
// that it ran and then waits half a minute, history answers at once with
// the commits, and the host's pager never ran.
func TestF046GitLogDoesNotPage(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	repo := sb.newRepo(t)
	marker := sb.path("PAGED")
	pager := sb.script(t, "pager", "echo paged >> "+marker+"\nsleep 30\n")
	r := sb.runEnv(t, hostPagers(pager), "history", "--repo", repo)
	env := expect(t, "history", r, 0)
	commits, _ := get(env, "data.commits").([]any)
	if len(commits) != 2 || !strings.HasSuffix(commits[0].(string), "second commit") {
		t.Errorf("commits %v, want the two, newest first", commits)
	}
	if r.took > 15*time.Second || exists(marker) {
		t.Errorf("history took %v and the host's pager ran: %v", r.took, exists(marker))
	}
}

// ---------------------------------------------------------------------------
// REQ-F-053 Stdout unbuffering in non-TTY mode.

// TestF053LinesArriveAsWritten: REQ-F-053 criterion 1. `events --stream`
// turns each line a service writes to a named pipe into an item on stdout.
// The test is the service: it writes a line, then reads that line's item
// from e2eapp's stdout while it still holds the pipe open — e2eapp cannot
// have ended, so the item was not flushed at exit — and only then writes
// the next. Before the first event, the opt-in heartbeats (--heartbeat-ms)
// arrive the same way, each {"status":"running","heartbeat":true,
// "elapsed_ms":N}.
func TestF053LinesArriveAsWritten(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	fifo := sb.mkfifo(t, "events")
	cmd := sb.command(sb.dir, nil, "events", "--source", fifo, "--stream", "--heartbeat-ms", "20")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	watchdog := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // a hang ends the stream: next fails
	defer watchdog.Stop()
	lines := bufio.NewScanner(stdout)
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("stdout ended early: %v", lines.Err())
		}
		var obj map[string]any
		if err := json.Unmarshal(lines.Bytes(), &obj); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", lines.Text(), err)
		}
		return obj
	}
	isBeat := func(obj map[string]any) bool {
		_, n := obj["elapsed_ms"].(float64)
		return cmp.Equal([]string{"elapsed_ms", "heartbeat", "status"}, keys(obj)) && obj["status"] == "running" && obj["heartbeat"] == true && n
	}
	// Heartbeats come while e2eapp waits for its pipe to have a writer.
	for beats := 0; beats < 2; beats++ {
		if obj := next(); !isBeat(obj) {
			t.Fatalf("before any event, a line that is not a heartbeat: %v", obj)
		}
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for n, event := range []string{"deploy started", "deploy finished"} {
		if _, err := w.WriteString(event + "\n"); err != nil {
			t.Fatal(err)
		}
		for {
			obj := next()
			if isBeat(obj) {
				continue
			}
			if obj["event"] != event || obj["n"] != float64(n+1) {
				t.Fatalf("item %v, want event %q", obj, event)
			}
			break
		}
	}
	w.Close() // the service is done: the stream ends with its summary
	var last map[string]any
	for lines.Scan() {
		json.Unmarshal(lines.Bytes(), &last)
	}
	if last["_summary"] != true || last["total"] != 2.0 {
		t.Errorf("the last line %v, want the summary of 2 items", last)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("events: %v", err)
	}
}

// TestF053ChildrenUnbuffered: REQ-F-053 criterion 2. PYTHONUNBUFFERED=1 is in
// e2eapp's environment before its command runs, where stdout is a pipe: a
// program the command starts with os/exec (no proc) has it, as does one
// started through proc. A value the caller set is kept.
func TestF053ChildrenUnbuffered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  []string
		want string
	}{
		{"unset", nil, "1"},
		{"the caller's", []string{"PYTHONUNBUFFERED=x"}, "x"},
	} {
		for _, direct := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: ", through proc", true: ", with os/exec"}[direct], func(t *testing.T) {
				t.Parallel()
				sb := newSandbox(t)
				file := sb.path("seen")
				args := []string{"check", sb.envHook(t, file, "PYTHONUNBUFFERED")}
				if direct {
					args = append(args, "--direct")
				}
				expect(t, "check", sb.runEnv(t, tt.env, args...), 0)
				if child, _ := seen(t, file); child["PYTHONUNBUFFERED"] != tt.want {
					t.Errorf("PYTHONUNBUFFERED = %q, want %q", child["PYTHONUNBUFFERED"], tt.want)
				}
			})
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-F-055 $EDITOR and $VISUAL no-op in non-TTY mode.

// hostEditors is a host environment whose editors are editor.
func hostEditors(editor string) []string {
	return []string{"EDITOR=" + editor, "VISUAL=" + editor, "GIT_EDITOR=" + editor}
}

// TestF055GitCommitOpensNoEditor: REQ-F-055 criterion 1, and criterion 4's
// other half. `reword` runs `git commit --amend` through proc, which opens
// the commit message in an editor. Where nobody can answer, with the host's
// editors set to one that records that it ran and then waits half a
// minute, reword answers at once and the editor never ran (git got
// GIT_EDITOR=true, and so did programs started with os/exec). At a
// terminal the person's editor runs (it records, and returns).
func TestF055GitCommitOpensNoEditor(t *testing.T) {
	t.Parallel()
	t.Run("an agent", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		repo := sb.newRepo(t)
		marker := sb.path("EDITED")
		editor := sb.script(t, "editor", "echo \"$@\" >> "+marker+"\nsleep 30\n")
		r := sb.runEnv(t, hostEditors(editor), "reword", "--repo", repo)
		expect(t, "reword", r, 0)
		if r.took > 15*time.Second || exists(marker) {
			t.Errorf("reword took %v; the host's editor ran: %v", r.took, exists(marker))
		}
		file := sb.path("seen")
		expect(t, "check --direct", sb.runEnv(t, hostEditors(editor), "check", sb.envHook(t, file, "EDITOR", "VISUAL", "GIT_EDITOR"), "--direct"), 0)
		if child, _ := seen(t, file); !cmp.Equal(child, map[string]string{"EDITOR": "true", "VISUAL": "true", "GIT_EDITOR": "true"}) {
			t.Errorf("a program started with os/exec sees the editors %v, want true", child)
		}
	})
	t.Run("a person", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		repo := sb.newRepo(t)
		marker := sb.path("EDITED")
		editor := sb.script(t, "editor", "echo \"$@\" >> "+marker+"\n")
		if screen, code := sb.pty(t, hostEditors(editor), "reword", "--repo", repo).Wait(t); code != 0 {
			t.Fatalf("exit %d: %q", code, screen)
		}
		if !strings.Contains(readFile(t, marker), "COMMIT_EDITMSG") {
			t.Errorf("at a terminal git did not open the person's editor: %q", readFile(t, marker))
		}
	})
}

// TestF055EditorCommandNeedsAnAlternative: REQ-F-055 criteria 2, 3 and 4.
// `notes add` declares that it opens $VISUAL/$EDITOR unless --message or
// --from-file is given. Where nobody can answer it exits 4, EDITOR_REQUIRED,
// with alternatives[] naming both flags and their descriptions, and adds
// nothing; --message adds the note. At a terminal the person's editor opens
// and what they type is added.
func TestF055EditorCommandNeedsAnAlternative(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	notes := sb.path("notes.txt")
	marker := sb.path("EDITED")
	editor := sb.script(t, "editor", "echo ran >> "+marker+"\necho 'typed in the editor' > \"$1\"\n")

	env := expect(t, "notes add", sb.runEnv(t, hostEditors(editor), "notes", "add", "--file", notes), 4)
	want(t, "notes add", env, map[string]any{
		"error.code": "EDITOR_REQUIRED",
		"error.alternatives": []any{
			map[string]any{"flag": "--message", "description": "the note's text"},
			map[string]any{"flag": "--from-file", "description": "read the note's text from a file"},
		},
	})
	if exists(marker) || exists(notes) {
		t.Errorf("refused, yet the editor ran (%v) or a note was added (%v)", exists(marker), exists(notes))
	}
	expect(t, "notes add --message", sb.runEnv(t, hostEditors(editor), "notes", "add", "--file", notes, "--message", "from the flag"), 0)

	if screen, code := sb.pty(t, hostEditors(editor), "notes", "add", "--file", notes).Wait(t); code != 0 {
		t.Fatalf("at a terminal: exit %d: %q", code, screen)
	}
	if got := readFile(t, notes); got != "from the flag\ntyped in the editor\n" {
		t.Errorf("notes %q, want the flag's note then the editor's", got)
	}
	if !exists(marker) {
		t.Error("at a terminal the person's editor did not run")
	}
}

// TestF055UndeclaredEditorLaunch: REQ-F-055 criterion 2 for a command that
// declares no editor and starts the one $EDITOR names itself (`notes
// edit`), through proc. Where nobody can answer it exits 4,
// EDITOR_REQUIRED, and the host's editor never runs — although Duet has
// set EDITOR=true in the process's own environment for the children it
// does not start (so the command reads "true" and starts that on the file:
// proc's guard counts it as the editor launch it is).
func TestF055UndeclaredEditorLaunch(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	notes := sb.path("notes.txt")
	if err := os.WriteFile(notes, []byte("first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := sb.path("EDITED")
	editor := sb.script(t, "editor", "echo ran >> "+marker+"\n")
	for name, env := range map[string][]string{
		"the host's editor": hostEditors(editor),
		"no editor (vi)":    {"EDITOR=", "VISUAL=", "GIT_EDITOR="},
	} {
		r := sb.runEnv(t, env, "notes", "edit", "--file", notes)
		want(t, name, expect(t, name, r, 4), map[string]any{"error.code": "EDITOR_REQUIRED", "data": nil})
	}
	if exists(marker) {
		t.Fatal("the host's editor ran where nobody can use it")
	}
	if got := readFile(t, notes); got != "first\n" {
		t.Errorf("notes %q: changed by a refused edit", got)
	}
}

// ---------------------------------------------------------------------------
// REQ-F-065 Pipeline exit code propagation.

// TestF065Pipefail: REQ-F-065 criteria 1 to 3. `count` runs `cat <file> |
// wc -l` (or `| grep -c`) with proc.Pipeline. Where cat fails and wc
// succeeds, the command fails — exit 1, cat's own code, with the stage, its
// program and its exit code in error.context — rather than answering a
// count of 0; where the last stage fails, that fails it too.
func TestF065Pipefail(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	file := sb.path("lines.txt")
	if err := os.WriteFile(file, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want map[string]any
	}{
		{"both stages succeed", []string{"count", file}, 0, map[string]any{"data.count": 3.0}},
		{"cat fails, wc succeeds", []string{"count", sb.path("missing.txt")}, 1, map[string]any{
			"error.code": "PIPELINE_FAILED", "error.context.stage": 1.0, "error.context.program": "cat", "error.context.stage_exit_code": 1.0, "data": nil}},
		{"the last stage fails", []string{"count", file, "--pattern", "zzz"}, 1, map[string]any{
			"error.code": "PIPELINE_FAILED", "error.context.stage": 2.0, "error.context.program": "grep", "error.context.stage_exit_code": 1.0}},
	} {
		want(t, tt.name, expect(t, tt.name, sb.run(t, tt.args...), tt.code), tt.want)
	}
}

// TestF065PipefailWarning: REQ-F-065 criterion 4, as far as a process can
// see its shell. Run by bash that exports its options (SHELLOPTS) without
// pipefail, e2eapp warns PIPEFAIL_UNSET; with pipefail it does not. A shell
// that exports nothing says nothing a process can read, and no warning is
// given (the report notes the limit).
func TestF065PipefailWarning(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	sb := newSandbox(t)
	for _, tt := range []struct {
		name string
		opts []string
		line string
		warn bool
	}{
		{"bash without pipefail", nil, `export SHELLOPTS; "$0" status`, true},
		{"bash with pipefail", []string{"-o", "pipefail"}, `export SHELLOPTS; "$0" status`, false},
		{"bash exporting nothing", nil, `"$0" status`, false},
	} {
		cmd := exec.Command("bash", append(tt.opts, "-c", tt.line, e2eapp)...)
		cmd.Env, cmd.Dir = sb.env, sb.dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		env := expect(t, tt.name, result{stdout: string(out)}, 0)
		if got := strings.Join(warningCodes(env), ","); (got == "PIPEFAIL_UNSET") != tt.warn || (!tt.warn && got != "") {
			t.Errorf("%s: warnings %q, want PIPEFAIL_UNSET: %v", tt.name, got, tt.warn)
		}
	}
}
