package adapters

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// invocation is the state of one [Run]. Wrapped actions find it in their
// context through [Invoke].
type invocation struct {
	cfg   *config
	fw    Framework
	root  *schema.Command
	call  *call
	mode  envelope.Mode
	human bool // --human: show every command whatever the audience
	out   *envelope.Output
	meta  envelope.Meta
	start time.Time

	profiles *profiles   // the tool's saved profiles, when it has profileable flags
	warnings [][3]string // code, message, next: found before the answer was begun

	ran atomic.Bool // an action started; written by the command's goroutine

	taken   sync.Mutex     // guards takenBy
	takenBy chan os.Signal // the command's, while it has taken the signals (TakeSignals)
}

type invocationKey struct{}

// Run runs one invocation of a wrapped app and returns its exit code. It never
// calls os.Exit and never panics: whatever the command does, the caller gets
// one answer on stdout and an exit code.
//
// When fw remembers the options it was wrapped with (an Options method, as
// the adapters' App has), they apply first and opts after them: an extension
// given to Wrap runs whoever runs the app.
func Run(ctx context.Context, fw Framework, args []string, opts ...Option) int {
	if w, ok := fw.(interface{ Options() []Option }); ok {
		opts = append(slices.Clip(w.Options()), opts...)
	}
	inv := &invocation{cfg: newConfig(opts), fw: fw, root: fw.Tree(), start: time.Now()}
	return inv.run(ctx, args)
}

func (inv *invocation) run(ctx context.Context, args []string) int {
	cfg := inv.cfg
	c := parseCall(inv.root, args)
	inv.call = c
	if c.node.Passthrough {
		return inv.passthrough(ctx)
	}
	inv.human = c.bool(FlagHuman)
	mode, modeErr := envelope.Detect(envelope.Signals{
		Tool:      inv.root.Name,
		LookupEnv: cfg.lookupEnv,
		StdoutTTY: cfg.tty.stdout,
		StderrTTY: cfg.tty.stderr,
		StdinTTY:  cfg.tty.stdin,
		Output:    c.last(FlagOutput),
		Detector:  cfg.detector,
	})
	profileErr := inv.applyProfile()
	c.check(cfg.lookupEnv, inv.profiles.valueOf)
	if modeErr != nil && !c.has(FlagOutput) {
		e := envelope.As(modeErr)
		c.problems = append(c.problems, envelope.FieldError{Code: e.Code, Field: FlagOutput, Message: modeErr.Error(), ValidValues: e.ValidValues})
	}
	if c.node.Name == DescribeCommand && c.node.Builtin && c.bool(FlagAgentsMD) && !c.has(FlagOutput) {
		mode.Format = envelope.Text // a document asked for by name, ready for `> AGENTS.md`
	}
	inv.mode = mode
	inv.out = envelope.New(inv.settings())
	inv.meta = envelope.Meta{
		SchemaVersion: envelope.SchemaVersion,
		ToolVersion:   cfg.version,
		Command:       c.node.DotPath(),
		RequestID:     cfg.requestID(),
	}
	inv.meta.ConfigSources, inv.meta.Profile = inv.profiles.meta()
	for _, w := range inv.warnings {
		inv.out.Warn(w[0], w[1], w[2])
	}

	switch {
	case c.version:
		fmt.Fprintf(cfg.stdout, "%s version %s\n", inv.root.Name, cfg.version)
		return int(exitcode.Success)
	case profileErr != nil && !c.help:
		return inv.finish(profileErr)
	case c.bool(FlagShowConfig) && !c.help:
		return inv.showConfig()
	case len(c.problems) > 0 && !c.help:
		return inv.finish(envelope.Invalid(c.problems))
	case c.bool(FlagSchema) && !c.help:
		doc, err := c.node.Document(mode.Agent && !inv.human)
		if err != nil {
			return inv.finish(brokenDeclaration(err))
		}
		inv.out.RenderText(indentedJSON(doc))
		inv.out.Result(doc)
		return inv.finish(nil)
	case c.help || !c.node.Runnable:
		return inv.help(ctx, args)
	case c.bool(FlagValidateOnly):
		inv.meta.ValidationOnly = true
		return inv.finish(nil)
	}
	if e := inv.extension(); e != nil {
		return inv.extend(ctx, e)
	}
	if err := inv.confirm(args); err != nil {
		return inv.finish(err)
	}
	return inv.execute(ctx)
}

func (inv *invocation) settings() envelope.Settings {
	c, cfg := inv.call, inv.cfg
	s := envelope.Settings{
		Mode:     inv.mode,
		Stdout:   cfg.stdout,
		Stderr:   cfg.stderr,
		Quiet:    c.bool(FlagQuiet),
		Verbose:  c.bool(FlagVerbose),
		DryRun:   c.bool(FlagDryRun),
		Fields:   c.values[FlagFields],
		MaxBytes: maxBytes(cfg.getenv(envelope.EnvName(inv.root.Name, "MAX_OUTPUT_BYTES"))),
	}
	for f := range c.node.Accepted() {
		if len(c.values[f.Name]) == 0 && len(f.Env) == 0 {
			continue // no value to keep secret
		}
		if f.Sensitive || envelope.SecretName(f.Name) {
			s.Secrets = append(s.Secrets, c.values[f.Name]...)
			for _, e := range f.Env {
				if v := cfg.getenv(e); v != "" {
					s.Secrets = append(s.Secrets, v)
				}
			}
		}
	}
	if c.node.Meta.List && !c.bool(FlagShowConfig) {
		w := &envelope.Window{Limit: DefaultLimit}
		if c.has(FlagLimit) {
			w.Limit, _ = strconv.Atoi(c.last(FlagLimit))
		}
		if c.has(FlagCursor) {
			w.Offset, _ = envelope.DecodeCursor(c.last(FlagCursor))
		}
		s.Window = w
	}
	return s
}

func maxBytes(env string) int {
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return envelope.DefaultMaxBytes
	}
	return n
}

// finish writes the one answer and returns the exit code.
func (inv *invocation) finish(fail *envelope.Error) int {
	if fail != nil {
		fail.Settle(inv.call.node.ExitCodes())
	}
	inv.meta.DurationMS = time.Since(inv.start).Milliseconds()
	reported := inv.out.Finish(inv.meta, fail) // fail, or the error rendering hit
	switch {
	case isEPIPE(inv.out.WriteErr()):
		return int(exitcode.Success) // the reader went away: that is its choice, not our failure
	case reported == nil:
		return int(exitcode.Success)
	case reported.Exit == exitcode.Success:
		return int(exitcode.GeneralError) // an error cannot succeed
	}
	return int(reported.Exit)
}

// help lets the framework print its help: to stdout for a person; for an agent
// to stderr, with a stub envelope on stdout pointing at --schema.
func (inv *invocation) help(ctx context.Context, args []string) int {
	agent := inv.mode.Agent
	streams := inv.streams()
	streams.HelpFor = inv.call.node
	if agent {
		streams.Help = inv.cfg.stderr
	}
	err := inv.fw.Execute(ctx, helpArgs(args), streams)
	if err != nil && !agent {
		return inv.finish(inv.classify(err))
	}
	if !agent {
		return int(exitcode.Success)
	}
	inv.meta.Help = true
	inv.meta.SchemaRef = strings.Join(append(append([]string{inv.root.Name}, inv.call.node.Path...), "--schema"), " ")
	return inv.finish(nil)
}

// helpArgs makes sure the framework prints help even when it was a group's
// missing action, not a flag, that led here.
func helpArgs(args []string) []string {
	for _, a := range args {
		if a == "--help" || a == "-h" || a == "help" {
			return args
		}
	}
	return append(append([]string(nil), args...), "--help")
}

func (inv *invocation) streams() Streams {
	agent, human := inv.mode.Agent, inv.human
	return Streams{
		Stdin:  inv.cfg.stdin,
		Stdout: inv.cfg.stdout,
		Stderr: inv.cfg.stderr,
		Help:   inv.cfg.stdout,
		Hide: func(c *schema.Command) bool {
			return !human && !c.VisibleTo(agent)
		},
	}
}

// confirm guards a command that needs confirmation: refused where nobody can
// be asked, asked at a terminal, skipped with --yes or --dry-run.
func (inv *invocation) confirm(args []string) *envelope.Error {
	c := inv.call
	if !c.node.NeedsConfirmation() || c.bool(FlagYes) || c.bool(FlagDryRun) {
		return nil
	}
	line := inv.root.Name + " " + commandLine(args)
	if !inv.mode.Interactive {
		return envelope.Validationf("CONFIRMATION_REQUIRED", "%q is %s and needs confirmation, and nobody can be asked", c.node.DotPath(), c.node.Danger()).
			WithFix("pass --yes to confirm; first see what would change with --dry-run", line+" --dry-run").
			WithSuggestion("run '%s --dry-run' to see what would change, then '%s --yes'", line, line)
	}
	inv.awaitSignals()
	fmt.Fprintf(inv.cfg.stderr, "%s is %s. Continue? [y/N] ", line, c.node.Danger())
	answers := make(chan string, 1)
	go func() {
		answer, _ := bufio.NewReader(inv.cfg.stdin).ReadString('\n')
		answers <- answer
	}()
	var answer string
	for answer == "" {
		select {
		case answer = <-answers:
			answer = cmp.Or(answer, "\n") // EOF is a no
		case s := <-inv.cfg.signals:
			if s == syscall.SIGPIPE {
				continue
			}
			fmt.Fprintln(inv.cfg.stderr)
			return cancelled(s)
		}
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return envelope.Errorf(exitcode.Precondition, "CONFIRMATION_DECLINED", "not confirmed: nothing was changed").
		WithPhase(envelope.Validation).
		WithSuggestion("answer y to proceed, or pass --yes")
}

// errSignal marks a context cancelled by SIGINT or SIGTERM.
type errSignal struct{ sig os.Signal }

func (e errSignal) Error() string { return "received " + e.sig.String() }

// execute runs the command with its timeout, its signals and its grace period.
func (inv *invocation) execute(parent context.Context) int {
	timeout := inv.call.node.Timeout()
	if inv.call.has(FlagTimeout) {
		timeout, _ = time.ParseDuration(inv.call.last(FlagTimeout))
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if timeout > 0 {
		ms := timeout.Milliseconds()
		inv.meta.TimeoutMS = &ms
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, timeout)
		defer stop()
	}
	ctx = envelope.NewContext(ctx, inv.out)
	ctx = context.WithValue(ctx, invocationKey{}, inv)

	sigs, stop := inv.signals()
	defer stop()

	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- inv.panicked(r)
			}
		}()
		if inv.call.node.Builtin { // Duet's own: the framework has no part in it
			done <- Invoke(ctx, nil)
			return
		}
		done <- inv.fw.Execute(ctx, inv.call.forward, inv.streams())
	}()

	var got os.Signal
	var grace <-chan time.Time
	ctxDone := ctx.Done()
	for {
		select {
		case err := <-done:
			return inv.finish(inv.outcome(err, got))
		case s := <-sigs:
			if s == syscall.SIGPIPE {
				continue // not a request to stop; a WithSignals channel may carry it
			}
			if inv.handOver(s) {
				continue // the command took the signals: they are its to handle
			}
			if got != nil {
				return inv.finish(cancelled(got)) // a second signal: answer now
			}
			got = s
			cancel(errSignal{s})
			grace = time.After(inv.cfg.grace)
		case <-ctxDone:
			ctxDone = nil
			if grace == nil {
				grace = time.After(inv.cfg.grace)
			}
		case <-grace:
			// The command did not return in time: answer without it.
			if got != nil {
				return inv.finish(cancelled(got))
			}
			return inv.finish(inv.outcome(context.Cause(ctx), nil))
		}
	}
}

// outcome maps what Execute returned to the invocation's error. Timeouts and
// cancellation are recognised first: they may strike before any action starts
// (in a Before hook), and are never usage errors.
func (inv *invocation) outcome(err error, sig os.Signal) *envelope.Error {
	switch {
	case err == nil:
		return nil
	case sig != nil && errors.Is(err, context.Canceled):
		return cancelled(sig)
	case errors.Is(err, context.DeadlineExceeded):
		e := envelope.As(err)
		if e.Code == "TIMEOUT" {
			e.Message = "timed out"
			if t := inv.meta.TimeoutMS; t != nil {
				e.Message = fmt.Sprintf("timed out after %s", time.Duration(*t)*time.Millisecond)
			}
			e.Suggestion = "raise --timeout, or narrow the work"
		}
		return e
	case !inv.ran.Load():
		return inv.classify(err)
	}
	return envelope.As(err)
}

// classify maps an error the framework returned before any action ran.
func (inv *invocation) classify(err error) *envelope.Error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e
	}
	if e = inv.fw.Classify(err); e != nil {
		return e
	}
	return envelope.Validationf("USAGE_ERROR", "%s", err.Error())
}

func cancelled(sig os.Signal) *envelope.Error {
	code := exitcode.Interrupted
	if sig == syscall.SIGTERM {
		code = exitcode.Terminated
	}
	return envelope.Errorf(code, "CANCELLED", "cancelled by %s before it finished", sigName(sig)).
		WithSuggestion("inspect the state before running it again")
}

func sigName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

func (inv *invocation) panicked(r any) error {
	if inv.call.bool(FlagVerbose) {
		fmt.Fprintf(inv.cfg.stderr, "panic: %v\n%s", r, debug.Stack())
	}
	inv.ran.Store(true)
	return envelope.Errorf(exitcode.GeneralError, "INTERNAL_ERROR", "internal error: %v", r).
		WithSuggestion("this is a bug in the tool; rerun with --verbose for a stack trace on stderr and report it")
}

// passthrough lets the framework answer a command outside the contract (see
// schema.Command.Passthrough): its output goes to stdout as the framework
// writes it, an error to stderr with exit code 1.
func (inv *invocation) passthrough(ctx context.Context) int {
	cfg := inv.cfg
	inv.awaitSignals()
	err := inv.fw.Execute(ctx, inv.call.forward, Streams{
		Stdin: cfg.stdin, Stdout: cfg.stdout, Stderr: cfg.stderr, Help: cfg.stdout,
		Hide:     func(*schema.Command) bool { return false },
		Complete: true,
	})
	if err != nil {
		fmt.Fprintf(cfg.stderr, "%s: %v\n", inv.root.Name, err)
		return int(exitcode.GeneralError)
	}
	return int(exitcode.Success)
}

// brokenDeclaration is the answer when the app's own declarations fail where
// they are used, as a declared output schema of a type encoding/json cannot
// encode does under --schema and describe.
func brokenDeclaration(err error) *envelope.Error {
	return envelope.Errorf(exitcode.GeneralError, "INVALID_DECLARATION", "%v", err).
		WithSuggestion("this is a bug in the tool's declarations; adaptertest.AssertDeclarations finds it in a test")
}

func isEPIPE(err error) bool { return err != nil && errors.Is(err, syscall.EPIPE) }

// newRequestID returns 16 random hex digits. A request id correlates logs; it
// guards nothing, so the runtime-seeded math/rand/v2 serves, sparing every
// start the crypto/rand set-up.
func newRequestID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

func indentedJSON(v any) func(io.Writer) error {
	return func(w io.Writer) error {
		raw, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(raw, '\n'))
		return err
	}
}

// Main wraps the app with wrap, runs one invocation with the process's
// arguments and exits with its code; a wrap error is printed on stderr with
// exit code 1. It takes SIGPIPE so that a write to a closed stdout fails with
// EPIPE instead of killing the process (`tool list | head` exits 0), and
// SIGINT and SIGTERM for the lifecycle (a running command is cancelled, a
// confirmation prompt answers CANCELLED).
//
// Enabling a signal waits on the runtime's signal thread, a hand-off between
// threads that costs a short-lived process a noticeable part of its run. Main
// enables SIGINT and SIGTERM on a goroutine while it wraps the app, and no
// app code runs (nor is a prompt shown) before they are in place; help,
// --schema and usage errors, which run none, do not wait for them.
//
// wrap is the adapter's Wrap of the app; it runs once.
func Main[F Framework](wrap func() (F, error), opts ...Option) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGPIPE)
	ready := make(chan struct{})
	go func() {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		close(ready)
	}()
	fw, err := wrap()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts = append([]Option{WithSignals(sigs), func(c *config) { c.signalsReady = ready }}, opts...)
	os.Exit(Run(context.Background(), fw, os.Args[1:], opts...))
}

// WrapAndRun wraps the app with wrap and runs one invocation with args,
// returning its exit code; a declaration that does not hold is reported on
// stderr with exit code 1. It is each adapter's Run.
func WrapAndRun[F Framework](ctx context.Context, wrap func() (F, error), args []string, opts ...Option) int {
	fw, err := wrap()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return int(exitcode.GeneralError)
	}
	return Run(ctx, fw, args, opts...)
}

// signals returns where SIGINT and SIGTERM arrive: WithSignals' channel, or
// one of the process's, which stop releases.
func (inv *invocation) signals() (<-chan os.Signal, func()) {
	if inv.cfg.signals != nil {
		return inv.cfg.signals, func() {}
	}
	// SIGPIPE too, as Main does: a write to a closed stdout then fails
	// with EPIPE instead of killing the process (the lifecycle ignores it).
	ch := make(chan os.Signal, 3)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	return ch, func() { signal.Stop(ch) }
}

// awaitSignals waits until Main's SIGINT and SIGTERM handling is in place.
// It is called before the app's hooks and actions run and before a prompt,
// long after Main started it, so it rarely waits at all.
func (inv *invocation) awaitSignals() {
	if inv.cfg.signalsReady != nil {
		<-inv.cfg.signalsReady
	}
}
