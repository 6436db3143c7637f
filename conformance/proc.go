package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Defaults for the zero values of invocationSpec's fields.
const (
	defaultTimeout   = 10 * time.Second
	defaultMaxOutput = 1 << 20
	defaultCols      = 80
	ptyRows          = 40
)

// drainWait bounds how long runInvocation keeps reading output after the target's
// process group is gone: a descendant that left the group (setsid, a daemon)
// may hold a pipe open forever, and must not hold runInvocation with it.
const drainWait = time.Second

// invocationSpec is one run of the target.
type invocationSpec struct {
	// Path is the program; without a slash it is looked up in this
	// process's PATH (not Env's), as exec.Command does.
	Path string
	Args []string
	// Env is the target's whole environment; nil means this process's.
	Env []string
	Dir string

	// Stdin is what the target reads. Under PTY stdin is the terminal,
	// which nobody types into; stdinEOF there types its end of input (^D).
	Stdin stdinMode

	// AnswerOnStderr says the target's stdout is another protocol's (a
	// manifest's stdout: "protocol", REQ-C-032): its envelope, when it
	// answers one, is the last line of stderr.
	AnswerOnStderr bool

	// PTY puts stdin, stdout and stderr on one pseudo-terminal, which is
	// also the target's controlling terminal. Stdout then holds everything
	// the terminal showed and Stderr is empty.
	PTY bool

	// CloseStdout makes stdout a pipe whose reader has gone away before the
	// target writes: writing gets SIGPIPE or EPIPE. Stdout is then empty.
	// It applies under PTY too (stdout is the pipe, the rest the terminal).
	CloseStdout bool

	Timeout   time.Duration // kill after this long; 10s when zero
	MaxOutput int           // bytes kept per stream; 1 MiB when zero
	Signals   []timedSignal // sent to the process, not its group
	Cols      int           // terminal width under PTY; 80 when zero
	// Check is the id of the check making the run (probeSandbox.id),
	// which its run tag starts with.
	Check string
	// InterruptAfter, when set, sends SIGINT to the process once its
	// stdout has shown that many lines, as the spec's kit interrupts a
	// stream mid-way (see RunProfile).
	InterruptAfter int
}

// timedSignal is a signal sent to the target After its start, or sooner
// once it has been Idle that long: a command that has started and waits
// for something has set up its handlers, and waiting longer only costs the
// check time.
type timedSignal struct {
	After  time.Duration
	Signal syscall.Signal
	// Idle, when set, sends the signal once the target has used no CPU
	// for this long, if that comes before After. Where CPU time cannot be
	// read (no /proc), After alone counts.
	Idle time.Duration
}

// send sends the signal to p After its start, or once it has been Idle,
// unless done is closed first.
func (s timedSignal) send(p *os.Process, done <-chan struct{}) {
	deadline := time.NewTimer(s.After)
	defer deadline.Stop()
	var tick <-chan time.Time
	if s.Idle > 0 {
		t := time.NewTicker(idlePoll)
		defer t.Stop()
		tick = t.C
	}
	var used time.Duration
	busy := time.Now()
	for {
		select {
		case <-done:
			return
		case <-deadline.C:
			_ = p.Signal(s.Signal)
			return
		case now := <-tick:
			cpu, ok := cpuTime(p.Pid)
			switch {
			case !ok:
				tick = nil // After alone, then
			case cpu != used:
				used, busy = cpu, now
			case now.Sub(busy) >= s.Idle:
				_ = p.Signal(s.Signal)
				return
			}
		}
	}
}

// idlePoll is how often a timedSignal with Idle looks at the target's CPU
// time.
const idlePoll = 10 * time.Millisecond

// stdinMode is what the target finds on its stdin.
type stdinMode int

const (
	// stdinNull is /dev/null.
	stdinNull stdinMode = iota
	// stdinEOF is an empty pipe whose writer is already closed.
	stdinEOF
	// stdinOpen is a pipe held open and never written: a target that
	// reads it waits until it is killed.
	stdinOpen
)

// String names the mode for a report: "null" (/dev/null), "closed" (at its
// end) or "open" (never written).
func (m stdinMode) String() string {
	switch m {
	case stdinEOF:
		return "closed"
	case stdinOpen:
		return "open"
	}
	return "null"
}

// runOutcome is what one run of the target did.
type runOutcome struct {
	Stdout, Stderr           []byte         // at most MaxOutput each
	StdoutBytes, StderrBytes int64          // total written, including what was dropped
	Exit                     int            // exit code; -1 when killed by a signal
	Signal                   syscall.Signal // the signal that killed it, or 0
	// Interrupted is how many stdout lines had been read when
	// InterruptAfter's SIGINT was sent; 0 when it was not.
	Interrupted int
	TimedOut    bool // killed by runInvocation at Timeout
	Duration    time.Duration
	// Leftovers are the processes the run left running once the target
	// had exited by itself; the run killed them.
	Leftovers []leftover
	// Tag is the run's DUET_CHECK_RUN, by which what it started is known.
	Tag string
	// Err says the target could not be started at all (not found, not
	// executable, ctx already done); the other fields are then zero but
	// Exit, which is -1. A run stopped by ctx afterwards has Err nil and is
	// killed like a timeout, without TimedOut: the caller knows its ctx.
	Err error
}

// runInvocation runs inv to its end and reports what it did. The target leads a
// process group of its own (a session, under PTY), which is killed with
// SIGKILL on Timeout, when ctx is done, and once the target has exited, so
// that nothing it started outlives the run.
func runInvocation(ctx context.Context, inv invocationSpec) runOutcome {
	inv = inv.withDefaults()
	if err := ctx.Err(); err != nil {
		return runOutcome{Exit: -1, Err: fmt.Errorf("run %s: %w", inv.Path, err)}
	}
	//duetvet:allow rawexec -- the black-box checker must not import Duet's packages
	cmd := exec.Command(inv.Path, inv.Args...)
	tag := newRunTag()
	if inv.Check != "" {
		tag = inv.Check + "." + tag
	}
	cmd.Env = append(slices.Clone(inv.Env), runTagEnv+"="+tag)
	cmd.Dir = inv.Dir

	p, err := inv.plumb(cmd)
	if err != nil {
		return runOutcome{Exit: -1, Err: fmt.Errorf("run %s: %w", inv.Path, err)}
	}
	defer p.closeAll()

	start := time.Now()
	err = cmd.Start()
	// The child has its own copies; ours must go, or the readers would
	// never see EOF (and, under PTY, the terminal never hang up).
	p.closeChildEnds()
	if err != nil {
		return runOutcome{Exit: -1, Err: fmt.Errorf("run %s: %w", inv.Path, err)}
	}
	pgid := cmd.Process.Pid // Setpgid or Setsid: the target leads its group
	if inv.InterruptAfter > 0 {
		p.stdout.onLines(inv.InterruptAfter, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
	}
	for _, r := range p.readers {
		go r.read()
	}

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	done := make(chan struct{})
	defer close(done)
	for _, s := range inv.Signals {
		go s.send(cmd.Process, done)
	}
	timer := time.NewTimer(inv.Timeout)
	defer timer.Stop()

	// Wait's error says no more than ProcessState does: stdio is all files,
	// so there is no copying that could fail.
	o := runOutcome{Tag: tag}
	select {
	case <-exited:
		// What it started and left running, its group included, is its
		// own doing (F-030).
		o.Leftovers = leftovers(tag)
	case <-timer.C:
		o.TimedOut = true
		killGroup(pgid)
		<-exited
	case <-ctx.Done():
		killGroup(pgid)
		<-exited
	}
	o.Duration = time.Since(start)
	// Whatever the target left running in its group goes with it, and
	// what it started outside the group once it was stopped.
	killGroup(pgid)
	if o.TimedOut || ctx.Err() != nil {
		leftovers(tag)
	}

	p.drain()
	o.Stdout, o.StdoutBytes = p.stdout.result()
	o.Stderr, o.StderrBytes = p.stderr.result()
	o.Exit, o.Signal = exitStatus(cmd.ProcessState)
	o.Interrupted = p.stdout.fired
	return o
}

func (inv invocationSpec) withDefaults() invocationSpec {
	if inv.Timeout <= 0 {
		inv.Timeout = defaultTimeout
	}
	if inv.MaxOutput <= 0 {
		inv.MaxOutput = defaultMaxOutput
	}
	if inv.Cols <= 0 {
		inv.Cols = defaultCols
	}
	if inv.Env == nil {
		// Isolate's note is the checker's own, not the target's: a
		// target that is itself a checker would think it isolated.
		inv.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return envKey(kv) == isolationEnv })
	}
	return inv
}

// plumbing is the files a run's stdio is made of.
type plumbing struct {
	stdout, stderr *capture
	readers        []*reader
	childEnds      []*os.File // the child's ends, closed once it started
	ourEnds        []*os.File // closed when runInvocation returns
}

// plumb sets up cmd's stdio and process attributes as inv asks.
func (inv invocationSpec) plumb(cmd *exec.Cmd) (_ *plumbing, err error) {
	p := &plumbing{stdout: &capture{max: inv.MaxOutput}, stderr: &capture{max: inv.MaxOutput}}
	defer func() {
		if err != nil {
			p.closeChildEnds()
			p.closeAll()
		}
	}()

	if inv.CloseStdout {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("stdout pipe: %w", err)
		}
		r.Close() // the reader went away before the target started
		p.childEnds = append(p.childEnds, w)
		cmd.Stdout = w
	}

	if inv.PTY {
		master, tty, err := pty.Open()
		if err != nil {
			return nil, fmt.Errorf("open a pty: %w", err)
		}
		p.ourEnds = append(p.ourEnds, master)
		p.childEnds = append(p.childEnds, tty)
		if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(inv.Cols), Rows: ptyRows}); err != nil {
			return nil, fmt.Errorf("size the pty: %w", err)
		}
		cmd.Stdin, cmd.Stderr = tty, tty
		if cmd.Stdout == nil {
			cmd.Stdout = tty
		}
		if inv.Stdin == stdinEOF {
			// Typed before the target starts: the terminal's end of
			// input (^D), as from a person who has nothing to type.
			if _, err := master.Write([]byte{4}); err != nil {
				return nil, fmt.Errorf("type ^D on the pty: %w", err)
			}
		}
		// A session of its own, with the terminal (its fd 0) as the
		// controlling one, as a login shell would have it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		nest(cmd.SysProcAttr)
		p.readers = append(p.readers, &reader{f: master, c: &terminal{shown: p.stdout, keyboard: master}, done: make(chan struct{})})
		return p, nil
	}

	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	nest(cmd.SysProcAttr)
	switch inv.Stdin {
	case stdinEOF, stdinOpen:
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("stdin pipe: %w", err)
		}
		p.childEnds = append(p.childEnds, r)
		if inv.Stdin == stdinEOF {
			w.Close()
		} else {
			p.ourEnds = append(p.ourEnds, w) // held open until runInvocation returns
		}
		cmd.Stdin = r
	}
	// Pipes of our own rather than exec's copying goroutines: cmd.Wait then
	// returns as soon as the target exits, so its group can be killed at
	// once, before a grandchild holding the pipe is waited for.
	streams := []struct {
		dst *io.Writer
		c   *capture
	}{{&cmd.Stdout, p.stdout}, {&cmd.Stderr, p.stderr}}
	for _, s := range streams {
		if *s.dst != nil {
			continue // CloseStdout's pipe
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("output pipe: %w", err)
		}
		p.ourEnds = append(p.ourEnds, r)
		p.childEnds = append(p.childEnds, w)
		*s.dst = w
		p.readers = append(p.readers, &reader{f: r, c: s.c, done: make(chan struct{})})
	}
	return p, nil
}

func (p *plumbing) closeChildEnds() {
	for _, f := range p.childEnds {
		f.Close()
	}
	p.childEnds = nil
}

func (p *plumbing) closeAll() {
	for _, f := range p.ourEnds {
		f.Close()
	}
	p.ourEnds = nil
}

// drain waits for the readers to reach the end of their output, or
// drainWait, whichever comes first.
func (p *plumbing) drain() {
	deadline := time.Now().Add(drainWait)
	for _, r := range p.readers {
		// Our pipes and the pty master are pollable, so the deadline
		// interrupts a read blocked on a writer that never closes.
		_ = r.f.SetReadDeadline(deadline)
	}
	for _, r := range p.readers {
		<-r.done
	}
}

// reader copies one output stream into a capture until its end.
type reader struct {
	f    *os.File
	c    io.Writer
	done chan struct{}
}

func (r *reader) read() {
	defer close(r.done)
	// Any error ends the stream: EOF on a pipe, EIO on a pty master once
	// the terminal hung up, a deadline from drain.
	_, _ = io.Copy(r.c, r.f)
}

// capture keeps the first max bytes written to it and counts the rest, so
// a target printing without end costs neither memory nor a blocked writer.
type capture struct {
	mu  sync.Mutex
	max int
	buf []byte
	n   int64

	// A call once the output has shown a number of lines (onLines).
	lines, after, fired int
	fire                func()
}

// onLines calls fire once the output has shown after lines in all, and
// notes how many it had then in fired.
func (c *capture) onLines(after int, fire func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after, c.fire = after, fire
}

func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += int64(len(b))
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, b[:min(room, len(b))]...)
	}
	if c.fire != nil && c.fired == 0 {
		if c.lines += bytes.Count(b, []byte{'\n'}); c.lines >= c.after {
			c.fired = c.lines
			c.fire()
		}
	}
	return len(b), nil
}

func (c *capture) result() ([]byte, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf, c.n
}

// killGroup sends SIGKILL to the process group pgid.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH: nobody left
}

// exitStatus turns how the target ended into an exit code, -1 for a signal,
// and that signal.
func exitStatus(ps *os.ProcessState) (int, syscall.Signal) {
	if ps == nil {
		return -1, 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return ps.ExitCode(), 0
}

// CommandLine renders the invocation as a shell would take it, for
// evidence.
func (inv invocationSpec) CommandLine() string {
	words := make([]string, 0, 1+len(inv.Args))
	for _, w := range append([]string{inv.Path}, inv.Args...) {
		words = append(words, shellQuote(w))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes w for a POSIX shell, leaving plain words as they are.
func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	plain := strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r))
	}) < 0
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
