package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/argsfile"
	"github.com/duet-cli/duet/proc"
)

// A Runner runs the app once with a command line, in agent mode, and returns
// what it printed on stdout — one envelope — and its exit code. When ctx is
// done it must stop the command and return. The runners of this package
// add to the command's environment what the call needs there (the JSON
// format, <TOOL>_FORMAT=json, for a command whose --format is the app's own).
type Runner interface {
	Run(ctx context.Context, args []string) (stdout []byte, exit int, err error)
}

// Exec runs the app as a child process: path with args before each command
// line. The command line reaches the child in a file (internal/argsfile),
// not on its argv, so path is a program on Duet, whose Main or Exec takes
// it. The child's stdin is empty, its stderr is discarded, and it is
// started in a process group of its own, so that a cancelled call stops it
// and whatever it started, and a finished one leaves nothing behind (see
// [ExecRunner.Run]).
func Exec(path string, args ...string) *ExecRunner {
	return &ExecRunner{Path: path, Args: args, Grace: 2 * time.Second}
}

// ExecRunner is the [Runner] [Exec] returns.
type ExecRunner struct {
	Path string
	Args []string // before each command line
	Env  []string // the child's environment; nil means this process's
	Dir  string   // the child's working directory; "" means this process's
	// Grace is how long a cancelled child has to answer after SIGTERM
	// before its process group is killed.
	Grace time.Duration
}

// Run runs one command line. When ctx is done it sends SIGTERM to the child's
// process group, and SIGKILL once Grace has passed; the child's answer to
// SIGTERM (CANCELLED, exit 130 or 143) is returned when it gives one in time.
// Once the child has exited, whatever is left in its process group is
// killed.
func (r *ExecRunner) Run(ctx context.Context, args []string) ([]byte, int, error) {
	// The command line goes in a file only this user reads, not on the
	// child's command line: every local user sees that in ps, and one
	// argument there (a long prompt, a document) cannot pass 128 KiB.
	env, remove, err := argsfile.Hand(r.Env, append(slices.Clone(r.Args), args...))
	if err != nil {
		return nil, 0, fmt.Errorf("mcp: %w", err)
	}
	defer remove()
	cmd := proc.Command(ctx, r.Path)
	cmd.Dir = r.Dir
	// The child is the app itself: its commands keep or normalise their
	// programs' locale as each declares.
	cmd.PreserveLocale = true
	var stdout bytes.Buffer
	cmd.Stdout = &stdout // stdin stays nil: /dev/null
	extra := envOf(ctx)
	if fn := progressOf(ctx); fn != nil {
		cmd.Stderr = &progressLines{fn: fn} // else nil too
		extra = append(slices.Clip(extra), envelope.ProgressEnv+"=1")
	}
	cmd.Env = append(env, extra...) // the last of a name wins
	// proc stops the child's process group when ctx is done (SIGTERM,
	// SIGKILL after Grace), kills what it left in its group when it exits,
	// and waits at most Grace for a grandchild holding stdout open. A
	// command that means to leave a process behind starts it in a session
	// of its own, as a daemon does.
	cmd.Grace = r.Grace
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("mcp: start %s: %w", r.Path, err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), 0, nil
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return stdout.Bytes(), exit.ExitCode(), nil
	case errors.As(err, &exit): // killed by a signal
		return stdout.Bytes(), -1, nil
	case errors.Is(err, exec.ErrWaitDelay):
		return stdout.Bytes(), cmd.ProcessState.ExitCode(), nil
	}
	return stdout.Bytes(), -1, fmt.Errorf("mcp: run %s: %w", r.Path, err)
}

// InProcess runs the app in this process, through the lifecycle, with opts
// (the options the app was wrapped with) and a pipe's streams: no terminal,
// empty stdin, stderr discarded. newApp makes the app anew for each call —
// a framework parses a command line into its command tree, so an app runs
// once — and calls run concurrently, each on its own: only what the app's
// commands share beyond their tree (a package variable, a file) must be
// guarded. It saves the start of a process on every call; [Exec] is the
// default all the same, because a child process can be stopped whatever it
// is doing, and a command that exits or changes the process (its working
// directory, its environment) takes the server with it.
//
// Making an app — reading its tree, checking its declarations — is a good
// part of a call, so the app for the next call is made when a call has
// answered, while the client reads the answer: newApp may run some time
// before the call its app serves, on a goroutine of its own (or, for the
// first call and calls at once, on the call's).
func InProcess(newApp func() (adapters.Framework, error), opts ...adapters.Option) Runner {
	return &inProcess{newApp: newApp, opts: opts}
}

type inProcess struct {
	newApp func() (adapters.Framework, error)
	opts   []adapters.Option
	mu     sync.Mutex
	spare  chan made // the next call's app, made or being made; nil when none is
}

// made is what one call of newApp returned.
type made struct {
	app adapters.Framework
	err error
}

// app takes the spare app, waiting for it if it is being made (it is that
// much further on than a new one), or makes one when there is none: the
// first call, or calls at once.
func (p *inProcess) app() (adapters.Framework, error) {
	p.mu.Lock()
	spare := p.spare
	p.spare = nil
	p.mu.Unlock()
	if spare == nil {
		return p.newApp()
	}
	m := <-spare
	return m.app, m.err
}

// makeSpare starts making the next call's app, unless one is on its way.
func (p *inProcess) makeSpare() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spare != nil {
		return
	}
	spare := make(chan made, 1)
	p.spare = spare
	go func() {
		app, err := p.newApp()
		spare <- made{app, err}
	}()
}

func (p *inProcess) Run(ctx context.Context, args []string) ([]byte, int, error) {
	app, err := p.app()
	if err != nil {
		return nil, 0, fmt.Errorf("mcp: make the app: %w", err)
	}
	defer p.makeSpare()
	var stdout bytes.Buffer
	var stderr io.Writer = io.Discard
	opts := slices.Clone(p.opts)
	extra := envOf(ctx)
	if fn := progressOf(ctx); fn != nil {
		stderr = &progressLines{fn: fn}
		extra = append(slices.Clip(extra), envelope.ProgressEnv+"=1")
	}
	if len(extra) > 0 {
		opts = append(opts, adapters.WithEnvOverlay(extra...))
	}
	opts = append(opts,
		adapters.WithStdio(strings.NewReader(""), &stdout, stderr),
		adapters.WithTerminal(adapters.Piped),
		adapters.WithSpecStrict(), // a pipe is an agent: the server reads the envelope
		// Signals are the server's: a call is stopped through ctx.
		adapters.WithSignals(make(chan os.Signal)),
	)
	exit := adapters.Run(ctx, app, args, opts...)
	return stdout.Bytes(), exit, nil
}

// A call's environment: variables the handler of a call has the runners
// add to the command's environment (KEY=value).
type envKey struct{}

func withEnv(ctx context.Context, kv ...string) context.Context {
	return context.WithValue(ctx, envKey{}, append(slices.Clip(envOf(ctx)), kv...))
}

func envOf(ctx context.Context) []string {
	env, _ := ctx.Value(envKey{}).([]string)
	return env
}

// A call's progress: the handler of a call whose client asked for progress
// gives its runner a function in the context, and the runners hand it each
// progress event the command writes on stderr (envelope.Output.Progress,
// one JSON line each for an agent).
type progressKey struct{}

func withProgress(ctx context.Context, fn func(envelope.ProgressEvent)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

func progressOf(ctx context.Context) func(envelope.ProgressEvent) {
	fn, _ := ctx.Value(progressKey{}).(func(envelope.ProgressEvent))
	return fn
}

// progressLines reads a command's stderr for its progress events; other
// lines are dropped, as the runners drop stderr.
type progressLines struct {
	fn   func(envelope.ProgressEvent)
	line []byte // the start of a line not ended yet
}

func (p *progressLines) Write(b []byte) (int, error) {
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			return len(b), nil
		}
		var ev envelope.ProgressEvent
		if json.Unmarshal(p.line[:i], &ev) == nil && ev.Type == "progress" {
			p.fn(ev)
		}
		p.line = append(p.line[:0], p.line[i+1:]...)
	}
}
