package proc

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/duet-cli/duet/envelope"
)

// Options are what a [Session] knows of the invocation it serves.
type Options struct {
	Tool      string // the tool's name: it names <TOOL>_TRACE_ID and the PID file's directory
	RequestID string // names the PID file
	TraceID   string // passed on as <TOOL>_TRACE_ID and TRACE_ID
	// Environ is the environment programs start from when their Env is
	// nil; nil is this process's.
	Environ     []string
	Interactive bool // a person can answer: editors and update notices are left alone
	Color       bool // the invocation shows colour; without, programs get NO_COLOR=1
	// PreserveLocale keeps the programs' locale (schema.Meta.PreserveLocale).
	PreserveLocale bool
	// Background allows Cmd.Background: the command declares that it
	// starts a process meant to outlive it (schema.Meta.Background).
	Background bool
	Grace      time.Duration // see Cmd.Grace; 0 is DefaultGrace
	// TempDir is the temporary directory: the PID file is
	// <TempDir>/<tool>/sessions/<request id>.pids. "" is os.TempDir().
	TempDir string
	// Log, when set, gets one line per program started, its argv as a JSON
	// array, so that the quoting shows.
	Log io.Writer
	// Started, when set, is called with the argv of each program as it
	// starts: a caller's own log of the programs (--debug's trace, which
	// redacts secrets). It must not start a program of the session.
	Started func(argv []string)
	// interactivity (issue 16: kids)

	// Alternatives are the command's flags that take an editor's place
	// (schema.Meta.Alternatives): an EDITOR_REQUIRED error lists them.
	Alternatives []envelope.Alternative
	// Piped says stdout is not a terminal: nobody reads an update notice
	// there, even where someone could answer (F-050).
	Piped bool
}

// A Session tracks the programs one invocation starts, from [Command]s
// whose context carries it (see [NewContext]): each pid is listed in the
// session's PID file while it runs; [Session.Signal] passes a signal on to
// them; [Session.End] stops what is left when the invocation ends.
type Session struct {
	opts Options

	mu         sync.Mutex
	live       []*Cmd // started and not yet exited, in start order
	background []int  // pids of background processes: they outlive the session
	file       string // the PID file, once written
	ended      bool
}

// NewSession returns a session for one invocation.
func NewSession(o Options) *Session { return &Session{opts: o} }

type sessionKey struct{}

// NewContext returns a context that carries s: the Cmds made with it are
// tracked by s.
func NewContext(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func fromContext(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// Signal passes sig on to every program the session tracks (each one's
// process group), and has them killed if they have not exited when their
// grace period has passed. Background processes are not signalled.
func (s *Session) Signal(sig os.Signal) {
	s.mu.Lock()
	live := slices.Clone(s.live)
	s.mu.Unlock()
	for _, c := range live {
		c.stop(sig)
	}
}

// End stops every program still tracked — SIGTERM to its group, SIGKILL
// once its grace period has passed — and waits for them to exit. It then
// removes the PID file, or leaves in it the background processes, which
// outlive the session, and any program that would not die. A program
// started after End is refused.
func (s *Session) End() {
	s.mu.Lock()
	s.ended = true
	live := slices.Clone(s.live)
	s.mu.Unlock()
	var longest time.Duration
	for _, c := range live {
		c.stop(syscall.SIGTERM)
		longest = max(longest, c.grace())
	}
	// SIGKILL ends them at their grace; the margin is for a process the
	// kernel is slow to let go of (one in uninterruptible sleep).
	limit := time.NewTimer(longest + time.Second)
	defer limit.Stop()
wait:
	for _, c := range live {
		select {
		case <-c.gone:
		case <-limit.C:
			break wait
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writePIDs()
}

// PIDFile returns the path of the session's PID file, or "" when the
// session started nothing. After End the file is gone unless something
// the session started may still run (a background process).
func (s *Session) PIDFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file
}

// add tracks c, which has started; s.mu is held.
func (s *Session) add(c *Cmd) {
	if c.Background {
		s.background = append(s.background, c.Process.Pid)
	} else {
		s.live = append(s.live, c)
	}
	s.writePIDs()
}

// remove stops tracking c, which has exited.
func (s *Session) remove(c *Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Background {
		s.background = slices.DeleteFunc(s.background, func(pid int) bool { return pid == c.Process.Pid })
	} else {
		s.live = slices.DeleteFunc(s.live, func(l *Cmd) bool { return l == c })
	}
	if !s.ended {
		s.writePIDs()
	}
}

// writePIDs writes the pids that may be running, one a line, or removes the
// file when there are none and the session has ended; s.mu is held. The
// file is best effort: tracking does not depend on it.
func (s *Session) writePIDs() {
	var b strings.Builder
	for _, c := range s.live {
		if !c.isGone() {
			fmt.Fprintln(&b, c.Process.Pid)
		}
	}
	for _, pid := range s.background {
		fmt.Fprintln(&b, pid)
	}
	path := s.path()
	if s.ended && b.Len() == 0 {
		if s.file != "" {
			os.Remove(path)
		}
		return
	}
	if err := writeFile(path, b.String()); err == nil {
		s.file = path
	}
}

func (s *Session) path() string {
	return filepath.Join(sessionsDir(s.opts.TempDir, s.opts.Tool), safeName(s.opts.RequestID, strconv.Itoa(os.Getpid()))+".pids")
}

// sessionsDir is where tool's sessions keep their PID files, under tempDir
// ("" is os.TempDir()).
func sessionsDir(tempDir, tool string) string {
	return filepath.Join(cmp.Or(tempDir, os.TempDir()), safeName(tool, "tool"), "sessions")
}

// safeName makes s a file name: letters, digits, '.', '-' and '_'.
func safeName(s, otherwise string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
	if strings.Trim(s, ".") == "" {
		return otherwise
	}
	return s
}

// writeFile replaces path with data, creating its directory, so that a
// reader sees the old list or the new one.
func writeFile(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// log writes argv as a JSON array to the session's log, and tells Started.
func (s *Session) log(argv []string) {
	if s.opts.Started != nil {
		s.opts.Started(slices.Clone(argv))
	}
	if s.opts.Log == nil {
		return
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as typed: <, > and & are quoting to show, not to hide
	_ = enc.Encode(argv)
	fmt.Fprintf(s.opts.Log, "run %s", b.String())
}
