package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// sessionFiles writes, from interactive mode, the files in which the real
// CLI keeps a session, in the places and shapes claude 2.1.197, codex
// 0.169.0 and opencode 1.18.33 use, so that Meridian can find the id of a
// session run on a terminal as it does with them. Like them it writes
// nothing until the first message.
type sessionFiles struct {
	name    string
	getenv  func(string) string
	cwd     string // the working directory with symbolic links resolved, as the CLIs see it
	session string
	created bool      // a new session, or a fork, rather than one resumed
	started time.Time // when the CLI started
	path    string    // the file written (claude, codex), once known
	written bool
}

func newSessionFiles(h host, name, session string, created bool) *sessionFiles {
	cwd := h.cwd
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return &sessionFiles{name: name, getenv: h.getenv, cwd: cwd, session: session, created: created, started: time.Now()}
}

// home is $env when set, else $HOME joined with rel ("" when neither is).
func (s *sessionFiles) home(env string, rel ...string) string {
	if v := s.getenv(env); v != "" {
		return v
	}
	if home := s.getenv("HOME"); home != "" {
		return filepath.Join(append([]string{home}, rel...)...)
	}
	return ""
}

// message records one message of the conversation and the answer to it.
func (s *sessionFiles) message(text, answer string) error {
	first := !s.written
	s.written = true
	switch s.name {
	case "claude":
		return s.claude(first, text, answer)
	case "codex":
		return s.codex(first, text, answer)
	case "opencode":
		return s.openCode(first)
	}
	return nil // gemini: Meridian chose its id, so nothing needs to find it
}

// claude: projects/<slug of the directory>/<session>.jsonl under
// $CLAUDE_CONFIG_DIR or ~/.claude, every line carrying the sessionId; a
// resumed session's file is appended to.
func (s *sessionFiles) claude(first bool, text, answer string) error {
	root := s.home("CLAUDE_CONFIG_DIR", ".claude")
	if root == "" {
		return nil
	}
	if first {
		s.path = filepath.Join(root, "projects", claudeSlug(s.cwd), s.session+".jsonl")
	}
	var lines []obj
	if first {
		lines = append(lines, obj{"type", "mode", "mode", "normal", "sessionId", s.session})
	}
	lines = append(lines,
		obj{"type", "user", "message", obj{"role", "user", "content", text}, "uuid", newUUID(), "timestamp", isoNow(), "cwd", s.cwd, "sessionId", s.session},
		obj{"type", "assistant", "message", obj{"role", "assistant", "content", []obj{{"type", "text", "text", answer}}}, "uuid", newUUID(), "timestamp", isoNow(), "cwd", s.cwd, "sessionId", s.session})
	return appendLines(s.path, lines...)
}

// claudeSlug is claude's directory name for a project: each UTF-16 unit
// that is not an ASCII letter or digit becomes "-"; past 200 units the
// name is cut and given a base-36 hash of the path.
func claudeSlug(dir string) string {
	units := utf16.Encode([]rune(dir))
	var b strings.Builder
	var hash int32
	for _, u := range units {
		hash = (hash << 5) - hash + int32(u)
		if u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	slug := b.String()
	if len(slug) <= 200 {
		return slug
	}
	h := int64(hash)
	if h < 0 {
		h = -h
	}
	return slug[:200] + "-" + strconv.FormatInt(h, 36)
}

// codex: sessions/YYYY/MM/DD/rollout-<start, local time>-<session>.jsonl
// under $CODEX_HOME or ~/.codex, opening with a session_meta line; a
// resumed session's rollout is appended to.
func (s *sessionFiles) codex(first bool, text, answer string) error {
	root := s.home("CODEX_HOME", ".codex")
	if root == "" {
		return nil
	}
	var lines []obj
	if first {
		if !s.created {
			s.path = findRollout(filepath.Join(root, "sessions"), s.session)
		}
		if s.path == "" {
			// New, forked, or resumed from nothing the fake knows of.
			t := s.started.Local()
			s.path = filepath.Join(root, "sessions", t.Format("2006"), t.Format("01"), t.Format("02"),
				"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+s.session+".jsonl")
			lines = append(lines, obj{"timestamp", isoNow(), "ordinal", 0, "type", "session_meta", "payload", obj{
				"session_id", s.session, "id", s.session, "timestamp", isoNow(), "cwd", s.cwd, "originator", "codex-tui",
				"cli_version", "0.169.0", "source", "cli", "base_instructions", obj{"text", "You are Codex (fakeharness)."}}})
		}
	}
	lines = append(lines,
		obj{"timestamp", isoNow(), "type", "response_item", "payload", obj{"type", "message", "role", "user", "content", []obj{{"type", "input_text", "text", text}}}},
		obj{"timestamp", isoNow(), "type", "response_item", "payload", obj{"type", "message", "role", "assistant", "content", []obj{{"type", "output_text", "text", answer}}}})
	return appendLines(s.path, lines...)
}

// findRollout is the rollout file of session under dir, or "".
func findRollout(dir, session string) string {
	found := ""
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasPrefix(e.Name(), "rollout-") && strings.HasSuffix(e.Name(), "-"+session+".jsonl") {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// openCode: opencode 1.18.33 appends every process's log to
// opencode/log/opencode.log under $XDG_DATA_HOME or ~/.local/share, in
// logfmt; a session's creation is a "created" line naming its directory.
// Resuming creates nothing.
func (s *sessionFiles) openCode(first bool) error {
	root := s.home("XDG_DATA_HOME", ".local", "share")
	if root == "" || !first || !s.created {
		return nil
	}
	now := time.Now()
	run := newUUID()[:8] // hex, as opencode's run ids are
	line := []string{
		"timestamp=" + now.UTC().Format("2006-01-02T15:04:05.000Z"), "level=INFO", "run=" + run, "message=created",
		"id=" + s.session, "slug=fake-session", "version=1.18.33", "projectID=global",
		"directory=" + logfmtValue(s.cwd), "path=" + logfmtValue(strings.TrimPrefix(s.cwd, "/")),
		"workspaceID=undefined", "parentID=undefined", "title=" + logfmtValue("New session - "+now.UTC().Format(time.RFC3339Nano)),
		"time.created=" + strconv.FormatInt(now.UnixMilli(), 10),
	}
	loop := []string{"timestamp=" + now.UTC().Format("2006-01-02T15:04:05.000Z"), "level=INFO", "run=" + run, "message=loop", "session.id=" + s.session, "step=0"}
	return appendText(filepath.Join(root, "opencode", "log", "opencode.log"), strings.Join(line, " ")+"\n"+strings.Join(loop, " ")+"\n")
}

var logfmtBare = regexp.MustCompile(`^[^\s="\\]+$`)

// logfmtValue is a value as opencode logs it: bare, or JSON-quoted when it
// holds a space, quote, backslash or "=".
func logfmtValue(v string) string {
	if logfmtBare.MatchString(v) {
		return v
	}
	return string(marshal(v))
}

func appendLines(path string, lines ...obj) error {
	var b strings.Builder
	for _, l := range lines {
		b.Write(l.marshal())
		b.WriteByte('\n')
	}
	return appendText(path, b.String())
}

func appendText(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// warnSessionFile reports a session file the fake could not write.
func warnSessionFile(h host, err error) {
	fmt.Fprintf(h.stderr, "fakeharness: write session file: %v\n", err)
}
