// Package proc starts the programs a command runs, the way an agent needs
// them run: no shell, no pager, no editor nobody can use, no update banner,
// no colour where there is none, an English C locale, the invocation's trace
// id, and nothing left running when the command ends.
//
//	cmd := proc.Command(ctx, "git", "log", "--oneline", "-20")
//	out, err := cmd.Output()
//
// [Command] returns a [Cmd], an *exec.Cmd (argv only: the program gets its
// arguments verbatim, never through a shell) whose [Cmd.Start]:
//
//   - gives the program PAGER=cat, GIT_PAGER=cat, MANPAGER=cat,
//     LESS="-F -X -R" and MORE="" whatever the environment said; where
//     nobody can answer (the invocation is not interactive) EDITOR, VISUAL,
//     GIT_EDITOR and GIT_SEQUENCE_EDITOR set to true (a no-op),
//     GIT_TERMINAL_PROMPT=0, and update notifiers silenced (CI=1,
//     NO_UPDATE_NOTIFIER=1, npm_config_update_notifier=false,
//     HOMEBREW_NO_AUTO_UPDATE=1, PIP_DISABLE_PIP_VERSION_CHECK=1,
//     GH_NO_UPDATE_NOTIFIER=1); NO_COLOR=1 (and no FORCE_COLOR or
//     CLICOLOR_FORCE) where the invocation shows no colour; LC_ALL=C and
//     LC_NUMERIC=C unless the locale is kept (schema.Meta.PreserveLocale,
//     Cmd.PreserveLocale); and <TOOL>_TRACE_ID and TRACE_ID;
//   - refuses a shell command line (SHELL_STRING_PROHIBITED: "git log" as
//     the program's name, sh -c "...") and, where nobody can answer, the
//     program $EDITOR or $VISUAL names (EDITOR_REQUIRED, exit 4);
//   - starts the program in a process group of its own, tracked by the
//     invocation's [Session]: when the command's context is done the group
//     gets SIGTERM, and SIGKILL after a grace period; a SIGINT or SIGTERM
//     the invocation receives is passed on to it the same way; when the
//     program exits, what it left running in its group is killed; and when
//     the command ends, whatever is still tracked is stopped;
//   - passes the program only stdin, stdout and stderr (and ExtraFiles):
//     every file Go opens is close-on-exec, and Start marks close-on-exec
//     any other descriptor this process has (one it inherited without the
//     flag, or opened with a raw syscall).
//
// [Pipeline] runs cmd1 | cmd2 without a shell, with the shell's pipefail
// semantics: a failure of any stage fails it, naming the stage. Duet runs
// no shell pipeline of its own.
//
// Duet's lifecycle gives every command it runs a [Session] (its context
// carries it); outside one, a Cmd still gets its environment and its own
// process group, and is stopped with its context.
package proc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultGrace is how long a program has to exit after SIGTERM before it is
// killed, when neither the Cmd nor its session says.
const DefaultGrace = 2 * time.Second

// Cmd is a program to run. Set the embedded *exec.Cmd's fields (Dir, Env,
// Stdin, Stdout, Stderr, ExtraFiles, SysProcAttr, WaitDelay) as for
// os/exec; start it with Cmd's own Start, Run, Output or CombinedOutput —
// never the embedded Cmd's, which would skip all of the above.
type Cmd struct {
	*exec.Cmd

	// Grace is how long the program has to exit after SIGTERM (or a signal
	// passed on to it) before it is killed; 0 is the session's grace, else
	// DefaultGrace. It is also the WaitDelay Start sets when none is: how
	// long Wait waits for a pipe that a process which escaped the group
	// still holds.
	Grace time.Duration
	// Terminal keeps the program in this process's process group, for a
	// program given the terminal (an editor, a TUI): it reads the terminal
	// and takes the terminal's Ctrl-C itself. It is signalled alone, not as
	// a group, and what it leaves running is not killed when it exits.
	Terminal bool
	// Background starts the program in a session of its own, to outlive
	// the command (a server, a watcher): it is not stopped with the context
	// nor when the command ends, and its pid stays in the session's PID
	// file. A command that starts one must declare it
	// (schema.Meta.Background), and the program must not hold the
	// invocation's stdout or stderr, or a reader would wait for it forever.
	Background bool
	// PreserveLocale keeps the locale of the environment instead of
	// LC_ALL=C.
	PreserveLocale bool

	ctx     context.Context
	session *Session
	started bool
	gone    chan struct{} // closed once the process has exited
	done    chan struct{} // closed once the process is reaped and its I/O done
	waitErr error
	waited  atomic.Bool

	stopping sync.Once
	mu       sync.Mutex
	kill     *time.Timer // SIGKILL after the grace period, once stopping

	childEnds []*os.File // the program's ends of StdoutPipe and StderrPipe, closed here once it starts
	ourEnds   []*os.File // their readers, closed by Wait
}

// Command returns the Cmd to run the program name with args, in the session
// ctx carries, if any. As with exec.Command, a name without a path separator
// is looked up in PATH. It panics if ctx is nil.
func Command(ctx context.Context, name string, args ...string) *Cmd {
	if ctx == nil {
		panic("proc: nil Context")
	}
	return &Cmd{Cmd: exec.Command(name, args...), ctx: ctx, session: fromContext(ctx)}
}

// Start starts the program (see the package documentation); it sets the
// embedded Env to the environment the program gets.
func (c *Cmd) Start() error {
	if c.started {
		return errors.New("proc: already started")
	}
	defer func() {
		// The program has its own copies of its pipe ends, or none.
		for _, f := range c.childEnds {
			f.Close()
		}
		if !c.started {
			for _, f := range c.ourEnds {
				f.Close()
			}
		}
	}()
	if err := c.ctx.Err(); err != nil {
		return err
	}
	if err := c.guard(); err != nil {
		return err
	}
	c.Env = c.Environ()
	c.SysProcAttr = c.attr()
	if c.WaitDelay == 0 {
		c.WaitDelay = c.grace()
	}
	s := c.session
	if s != nil {
		// A signal passed on while the program starts waits for it, so
		// that it reaches the program too.
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.ended {
			return errEnded(c.Path)
		}
		s.log(c.Args)
	}
	closeOnExec()
	if err := c.Cmd.Start(); err != nil {
		return err
	}
	c.started = true
	c.gone, c.done = make(chan struct{}), make(chan struct{})
	if s != nil {
		s.add(c)
	}
	go c.reap()
	if !c.Background {
		go c.watch()
	}
	return nil
}

// Wait waits for the program to exit and its I/O to finish, as
// exec.Cmd.Wait does.
func (c *Cmd) Wait() error {
	if !c.started {
		return errors.New("proc: not started")
	}
	if c.waited.Swap(true) {
		return errors.New("proc: Wait was already called")
	}
	<-c.done
	for _, f := range c.ourEnds {
		f.Close()
	}
	return c.waitErr
}

// StdoutPipe returns a pipe that will be connected to the program's
// standard output, as exec.Cmd.StdoutPipe does: Wait closes it, so read
// all of it first. (The program is reaped as soon as it exits, whoever
// waits: what it wrote stays readable until Wait.)
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) {
	if c.Stdout != nil {
		return nil, errors.New("proc: Stdout already set")
	}
	r, w, err := c.pipe()
	c.Stdout = w
	return r, err
}

// StderrPipe is StdoutPipe for standard error.
func (c *Cmd) StderrPipe() (io.ReadCloser, error) {
	if c.Stderr != nil {
		return nil, errors.New("proc: Stderr already set")
	}
	r, w, err := c.pipe()
	c.Stderr = w
	return r, err
}

func (c *Cmd) pipe() (*os.File, *os.File, error) {
	if c.started {
		return nil, nil, errors.New("proc: pipe after the program started")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	c.childEnds = append(c.childEnds, w)
	c.ourEnds = append(c.ourEnds, r)
	return r, w, nil
}

// Run starts the program and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the program and returns its standard output. A program that
// ran and failed returns an [*ExitError]: unless Stderr is set, what the
// program wrote on stderr is in its Stderr, and a command that returns it
// answers with the tail of it, as external context.
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("proc: Stdout already set")
	}
	var stdout, stderr bytes.Buffer
	c.Stdout = &stdout
	keepErr := c.Stderr == nil
	if keepErr {
		c.Stderr = &stderr
	}
	err := c.Run()
	var exit *exec.ExitError
	if keepErr && errors.As(err, &exit) {
		exit.Stderr = stderr.Bytes()
	}
	return stdout.Bytes(), c.exitError(err)
}

// CombinedOutput runs the program and returns its standard output and
// standard error together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil || c.Stderr != nil {
		return nil, errors.New("proc: Stdout or Stderr already set")
	}
	var b bytes.Buffer // exec writes to one writer given as both from one goroutine at a time
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// reap waits for the process, kills what it left in its group, and
// releases whoever waits.
func (c *Cmd) reap() {
	early := awaitExit(c.Process.Pid) // exited, not yet reaped: its group id cannot be reused yet
	if early {
		c.exited()
	}
	err := c.Cmd.Wait()
	if !early {
		c.exited()
	}
	c.waitErr = err
	close(c.done)
}

// exited runs once the process has exited.
func (c *Cmd) exited() {
	if !c.Terminal && !c.Background {
		signalGroup(c.Process, syscall.SIGKILL) // what it left running
	}
	close(c.gone)
	c.mu.Lock()
	if c.kill != nil {
		c.kill.Stop()
	}
	c.mu.Unlock()
	if c.session != nil {
		c.session.remove(c)
	}
}

// watch stops the program when its context is done.
func (c *Cmd) watch() {
	select {
	case <-c.ctx.Done():
		c.stop(syscall.SIGTERM)
	case <-c.gone:
	}
}

// stop sends sig, once, and SIGKILL when the grace period has passed.
func (c *Cmd) stop(sig os.Signal) {
	c.stopping.Do(func() {
		if c.isGone() {
			return
		}
		c.signal(sig)
		c.mu.Lock()
		c.kill = time.AfterFunc(c.grace(), func() {
			if !c.isGone() {
				c.signal(syscall.SIGKILL)
			}
		})
		c.mu.Unlock()
	})
}

func (c *Cmd) isGone() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// signal sends sig to the program's group, or to the program alone when it
// shares this process's group.
func (c *Cmd) signal(sig os.Signal) {
	if c.Terminal {
		_ = c.Process.Signal(sig)
		return
	}
	signalGroup(c.Process, sig)
}

func (c *Cmd) grace() time.Duration {
	switch {
	case c.Grace > 0:
		return c.Grace
	case c.session != nil && c.session.opts.Grace > 0:
		return c.session.opts.Grace
	}
	return DefaultGrace
}
