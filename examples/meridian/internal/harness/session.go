package harness

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// ErrNoSession is returned (wrapped) by FindSession when the CLI's files
// hold no session that matches the search.
var ErrNoSession = errors.New("no session found")

// NewSessionID returns a random (version 4) UUID in lower-case canonical
// form, for Request.SessionID.
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

var uuidForm = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidForm.MatchString(s) }

// SessionSearch says where a CLI ran and since when, for FindSession.
type SessionSearch struct {
	Home   string              // the CLI's $HOME
	Getenv func(string) string // the CLI's environment (CODEX_HOME, XDG_DATA_HOME, CLAUDE_CONFIG_DIR); nil: none of them set
	Dir    string              // the absolute directory it ran in
	Since  time.Time           // when it was started
}

// FindSession returns the id of the session the CLI created for an
// interactive run in s.Dir started at or after s.Since. An interactive CLI
// owns the terminal, so there is no event stream to read the id from; it is
// read from the files the CLI keeps, as upstream Meridian did:
//
//   - Claude: the newest $CLAUDE_CONFIG_DIR/projects/<slug of Dir>/*.jsonl
//     (~/.claude by default); the id is its first line's sessionId, else the
//     file's name.
//   - Codex: the newest $CODEX_HOME/sessions/**/rollout-<time>-<uuid>.jsonl
//     (~/.codex by default) whose first line is a session_meta event with
//     payload.cwd = Dir, not from `codex exec`; the id is payload.id, else
//     the uuid of the name.
//   - OpenCode: the last "created" line of a top-level session in Dir in
//     $XDG_DATA_HOME/opencode/log/*.log (~/.local/share by default).
//   - Gemini: none; Meridian gives it the id (Request.SessionID).
//
// The CLIs write these files when the first message is sent, not when they
// start, so a session left without a message is not found. A file counts
// when modified at or after s.Since less fileClockLag, truncated to the
// second for file systems that keep whole seconds. Dir also matches its path with symbolic
// links resolved, which is what the CLIs see as their working directory.
// When nothing matches, the error wraps ErrNoSession.
func (h *Harness) FindSession(s SessionSearch) (string, error) {
	if !filepath.IsAbs(s.Dir) {
		return "", fmt.Errorf("find the %s session: directory %q is not absolute", h.display, s.Dir)
	}
	q := sessionSearch{SessionSearch: s, since: s.Since.Add(-fileClockLag).Truncate(time.Second), dirs: []string{filepath.Clean(s.Dir)}}
	if real, err := filepath.EvalSymlinks(s.Dir); err == nil && real != q.dirs[0] {
		q.dirs = append(q.dirs, real)
	}
	id, err := h.findSession(q)
	if err != nil {
		return "", fmt.Errorf("find the %s session of %s since %s: %w", h.display, s.Dir, s.Since.Format(time.RFC3339), err)
	}
	return id, nil
}

// fileClockLag is how far a file's modification time can lag the clock
// that time.Now reads: Linux stamps files from its coarse clock, updated
// once a tick (1/HZ, at most 10 ms), so a file written just after a
// time.Now can be stamped a few milliseconds before it.
const fileClockLag = 10 * time.Millisecond

// sessionSearch is a SessionSearch made ready for the finders.
type sessionSearch struct {
	SessionSearch
	since time.Time
	dirs  []string // Dir, and Dir with symbolic links resolved when that differs
}

func (q sessionSearch) env(key string) string {
	if q.Getenv == nil {
		return ""
	}
	return q.Getenv(key)
}

// under is $envKey when set, else Home joined with rel.
func (q sessionSearch) under(envKey string, rel ...string) (string, error) {
	if v := q.env(envKey); v != "" {
		return v, nil
	}
	if q.Home == "" {
		return "", fmt.Errorf("neither $%s nor a home directory to look in", envKey)
	}
	return filepath.Join(append([]string{q.Home}, rel...)...), nil
}

func (q sessionSearch) isDir(d string) bool { return slices.Contains(q.dirs, d) }

// Limits on what a search reads: the CLIs' files grow without bound.
const (
	maxFirstLine   = 1 << 20 // a codex session_meta line is about 22 KB (it holds the base instructions)
	maxCandidates  = 64      // files whose first line is read
	maxLogTail     = 8 << 20 // bytes read from the end of each opencode log
	maxLogLineSize = 1 << 20 // longer log lines are skipped
)

// candidate is a file modified at or after the search's start.
type candidate struct {
	path  string
	mtime time.Time
}

// newestFirst sorts files by modification time, newest first, and keeps
// at most maxCandidates.
func newestFirst(c []candidate) []candidate {
	slices.SortStableFunc(c, func(a, b candidate) int { return b.mtime.Compare(a.mtime) })
	return c[:min(len(c), maxCandidates)]
}

// recent reports whether the file entry e was modified at or after since.
func recent(e fs.DirEntry, since time.Time) (time.Time, bool) {
	if !e.Type().IsRegular() {
		return time.Time{}, false
	}
	info, err := e.Info()
	if err != nil {
		return time.Time{}, false // gone since the directory was read
	}
	return info.ModTime(), !info.ModTime().Before(since)
}

// firstLine is the file's first line, without its newline; ok is false
// when the file cannot be read or the line is longer than maxFirstLine.
func firstLine(path string) (line []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	line, err = bufio.NewReaderSize(io.LimitReader(f, maxFirstLine+1), 64<<10).ReadBytes('\n')
	switch {
	case err == nil:
		return bytes.TrimSuffix(line, []byte("\n")), true
	case errors.Is(err, io.EOF) && len(line) <= maxFirstLine:
		return line, true // a file of one line with no newline
	}
	return nil, false
}

// claudeProjectSlug is the name of Claude Code's directory for the project
// in dir: every UTF-16 unit that is not an ASCII letter or digit becomes
// "-", and a name longer than 200 is cut there and given a hash of dir
// (read from claude 2.1.197's bundle; checked against its directories).
func claudeProjectSlug(dir string) string {
	units := utf16.Encode([]rune(dir))
	slug := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = hash*31 + int32(u) // JavaScript's (h<<5)-h+c|0
		if u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			slug[i] = byte(u)
		} else {
			slug[i] = '-'
		}
	}
	const maxSlug = 200
	if len(slug) <= maxSlug {
		return string(slug)
	}
	abs := int64(hash)
	if abs < 0 {
		abs = -abs
	}
	return string(slug[:maxSlug]) + "-" + strconv.FormatInt(abs, 36)
}

func findClaudeSession(q sessionSearch) (string, error) {
	root, err := q.under("CLAUDE_CONFIG_DIR", ".claude")
	if err != nil {
		return "", err
	}
	var files []candidate
	seen := map[string]bool{}
	for _, d := range q.dirs {
		project := filepath.Join(root, "projects", claudeProjectSlug(d))
		if seen[project] {
			continue
		}
		seen[project] = true
		entries, err := os.ReadDir(project)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		for _, e := range entries {
			if mtime, ok := recent(e, q.since); ok && strings.HasSuffix(e.Name(), ".jsonl") {
				files = append(files, candidate{filepath.Join(project, e.Name()), mtime})
			}
		}
	}
	for _, f := range newestFirst(files) {
		var first struct {
			SessionID string `json:"sessionId"`
		}
		if line, ok := firstLine(f.path); ok {
			_ = json.Unmarshal(line, &first) // not JSON: the name says the id
		}
		return cmp.Or(first.SessionID, strings.TrimSuffix(filepath.Base(f.path), ".jsonl")), nil
	}
	return "", ErrNoSession
}

// codexRollout is the name codex gives a session's file: the session's
// start (local time) and its id.
var codexRollout = regexp.MustCompile(`^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$`)

func findCodexSession(q sessionSearch) (string, error) {
	root, err := q.under("CODEX_HOME", ".codex")
	if err != nil {
		return "", err
	}
	var files []candidate
	// sessions/YYYY/MM/DD/: a walk lists every day's files, but reads
	// only their directory entries; first lines are read below, for the
	// recent ones only.
	err = filepath.WalkDir(filepath.Join(root, "sessions"), func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if mtime, ok := recent(e, q.since); ok && codexRollout.MatchString(e.Name()) {
			files = append(files, candidate{path, mtime})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	for _, f := range newestFirst(files) {
		line, ok := firstLine(f.path)
		if !ok {
			continue
		}
		var meta struct {
			Type    string `json:"type"`
			Payload struct {
				ID     string `json:"id"`
				Cwd    string `json:"cwd"`
				Source string `json:"source"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &meta) != nil || meta.Type != "session_meta" || !q.isDir(meta.Payload.Cwd) {
			continue
		}
		if meta.Payload.Source == "exec" {
			continue // a `codex exec` run in the same directory (the TUI's source is "cli")
		}
		return cmp.Or(meta.Payload.ID, codexRollout.FindStringSubmatch(filepath.Base(f.path))[1]), nil
	}
	return "", ErrNoSession
}

func findOpenCodeSession(q sessionSearch) (string, error) {
	data, err := q.under("XDG_DATA_HOME", ".local", "share")
	if err != nil {
		return "", err
	}
	logDir := filepath.Join(data, "opencode", "log")
	entries, err := os.ReadDir(logDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var files []candidate
	for _, e := range entries {
		if mtime, ok := recent(e, q.since); ok && strings.HasSuffix(e.Name(), ".log") {
			files = append(files, candidate{filepath.Join(logDir, e.Name()), mtime})
		}
	}
	// The newest creation wins, by the time on its line: opencode 1.18
	// appends every process's lines to one opencode.log, older ones wrote
	// a file per process.
	var found openCodeSession
	for _, f := range newestFirst(files) {
		if s := lastOpenCodeSession(f.path, q); s.id != "" && !s.created.Before(found.created) {
			found = s
		}
	}
	if found.id == "" {
		return "", ErrNoSession
	}
	return found.id, nil
}

// openCodeSession is a session creation read from opencode's log.
type openCodeSession struct {
	id      string
	created time.Time
}

// lastOpenCodeSession is the newest session created in q's directory
// since q.since that the log file at path records, reading at most its
// last maxLogTail bytes.
func lastOpenCodeSession(path string, q sessionSearch) openCodeSession {
	var found openCodeSession
	f, err := os.Open(path)
	if err != nil {
		return found
	}
	defer f.Close()
	skipFirst := false
	if info, err := f.Stat(); err == nil && info.Size() > maxLogTail {
		if _, err := f.Seek(-maxLogTail, io.SeekEnd); err != nil {
			return found
		}
		skipFirst = true // the tail starts mid-line
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLogLineSize)
	sc.Split(linesDroppingLong())
	for sc.Scan() {
		if skipFirst {
			skipFirst = false
			continue
		}
		if s := openCodeCreated(sc.Text(), q); s.id != "" && !s.created.Before(found.created) {
			found = s
		}
	}
	return found
}

// linesDroppingLong is bufio.ScanLines, except that a line longer than
// maxLogLineSize is dropped instead of ending the scan.
func linesDroppingLong() bufio.SplitFunc {
	dropping := false
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			if dropping {
				dropping = false
				return i + 1, nil, nil
			}
			return i + 1, bytes.TrimSuffix(data[:i], []byte("\r")), nil
		}
		switch {
		case atEOF && len(data) > 0 && !dropping:
			return len(data), data, nil
		case atEOF:
			return len(data), nil, nil
		case len(data) >= maxLogLineSize:
			dropping = true
			return len(data), nil, nil
		}
		return 0, nil, nil
	}
}

// openCodeCreated reads one opencode log line and returns the id of the
// top-level session it records the creation of, when that session is in
// q's directory and was created since q.since. Two formats:
//
//	timestamp=2026-11-23T13:08:51.185Z level=INFO run=6698fd2b message=created id=ses_… slug=… projectID=global directory="/a b" … parentID=undefined …
//	INFO  2025-06-18T09:36:37 +1ms service=session id=ses_… version=… projectID=… directory=/a b title=… time={…} created
//
// The first is opencode 1.18.33's (logfmt; a value is JSON-quoted when it
// has a space, quote, backslash or "="); the second is older opencode's,
// which upstream Meridian read. A session with a parent is a subagent's
// (the task tool), not the conversation.
func openCodeCreated(line string, q sessionSearch) openCodeSession {
	var none openCodeSession
	if strings.HasPrefix(line, "timestamp=") {
		kv := logfmt(line)
		if kv["message"] != "created" || !strings.HasPrefix(kv["id"], "ses_") || !q.isDir(kv["directory"]) {
			return none
		}
		if p := kv["parentID"]; p != "" && p != "undefined" {
			return none
		}
		t, err := time.Parse(time.RFC3339Nano, kv["timestamp"])
		if err != nil || t.Before(q.since) {
			return none
		}
		return openCodeSession{kv["id"], t}
	}
	if !strings.Contains(line, " service=session ") || !strings.HasSuffix(strings.TrimRight(line, " "), " created") ||
		strings.Contains(line, " parentID=ses_") {
		return none
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return none
	}
	t, err := time.Parse("2006-01-02T15:04:05", f[1]) // UTC, to the second
	if err != nil || t.Before(q.since) {
		return none
	}
	// The old format does not quote: a directory may hold spaces, so
	// the value must be one of q's directories followed by the next
	// key=value or by the message.
	inDir := false
	for _, d := range q.dirs {
		i := strings.Index(line, " directory="+d+" ")
		if i < 0 {
			continue
		}
		rest := line[i+len(" directory="+d+" "):]
		if oldLogKey.MatchString(rest) || strings.TrimRight(rest, " ") == "created" {
			inDir = true
		}
	}
	m := oldLogID.FindStringSubmatch(line)
	if !inDir || m == nil {
		return none
	}
	return openCodeSession{m[1], t}
}

var (
	oldLogKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*=`)
	oldLogID  = regexp.MustCompile(` service=session id=(\S+)`)
)

// logfmt splits a line of key=value pairs; a value in double quotes is a
// JSON string. Words without "=" are skipped; parsing stops at a value it
// cannot read (a line cut short).
func logfmt(line string) map[string]string {
	kv := map[string]string{}
	for {
		line = strings.TrimLeft(line, " ")
		if line == "" {
			return kv
		}
		eq, sp := strings.IndexByte(line, '='), strings.IndexByte(line, ' ')
		if eq < 0 || sp >= 0 && sp < eq {
			if sp < 0 {
				return kv
			}
			line = line[sp:]
			continue
		}
		key, rest := line[:eq], line[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			end := quotedEnd(rest)
			if end < 0 || json.Unmarshal([]byte(rest[:end]), &val) != nil {
				return kv
			}
			rest = rest[end:]
		} else if sp := strings.IndexByte(rest, ' '); sp >= 0 {
			val, rest = rest[:sp], rest[sp:]
		} else {
			val, rest = rest, ""
		}
		if _, dup := kv[key]; !dup {
			kv[key] = val
		}
		line = rest
	}
}

// quotedEnd is the index just past the closing quote of the JSON string
// s starts with, or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// findGeminiSession finds nothing: Meridian chooses Gemini's session id
// (--session-id), so there is nothing to look up.
func findGeminiSession(sessionSearch) (string, error) {
	return "", fmt.Errorf("gemini's session id is the one Meridian gives it with --session-id: %w", ErrNoSession)
}
