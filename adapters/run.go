package adapters

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/internal/argsfile"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// invocation is the state of one [Run]. Wrapped actions find it in their
// context through [Invoke].
type invocation struct {
	cfg          *config
	fw           Framework
	root         *schema.Command
	call         *call
	mode         envelope.Mode
	human        bool   // --human: show every command whatever the audience
	format       string // the format the command line asks for (readFormat), read once
	legacyFormat string // a format given to --output under WithLegacyOutput
	out          *envelope.Output
	meta         envelope.Meta
	start        time.Time

	profiles *profiles   // the tool's saved profiles, when it has profileable flags
	warnings [][3]string // code, message, next: found before the answer was begun

	sigs     <-chan os.Signal // SIGINT, SIGTERM and SIGPIPE, when the invocation answers
	stopSigs func()

	unread   bool     // the command line was left to the framework unread (see plain)
	appMain  bool     // the app's own main reports a faithful run's error (Exec)
	appErr   error    // what the framework returned to it
	capture  *capture // what the command writes to stdout itself, for an agent's envelope
	protocol bool     // the command serves its protocol on stdout: the lifecycle answers on stderr (protocol.go)

	// refusal is the CONFIRMATION_REQUIRED answer of a command run
	// unconfirmed where nobody can be asked; when the command implements
	// --dry-run, it runs as a dry run first so the refusal shows what a
	// confirmed run would change.
	refusal *envelope.Error

	ran atomic.Bool // an action started; written by the command's goroutine

	args []string // discovery: the command line, for the next page's (meta.truncation_hint)

	taken   sync.Mutex     // guards takenBy
	takenBy chan os.Signal // the command's, while it has taken the signals (TakeSignals)
	// releases carries TakeSignals' releases to the loop that reads the
	// signals, which hands over what came before it lets go; loopDone is
	// closed once that loop has ended.
	releases chan signalRelease
	loopDone chan struct{}

	// child processes (proc)
	session *proc.Session // tracks the programs the running command starts
	watch   watched       // what the running command changed that the lifecycle sees (changes.go)
	// input: the payload the command reads (package input), and why it cannot have it.
	payload  *input.Source
	inputErr *envelope.Error
	work     workState // long work: steps, cleanup, jobs
	// features (feature.go): how many began, and what they keep for the run
	begun         int
	featureValues map[any]any
	obs           observed // seeing what happened (observe.go)
	// answering is the failure finish hands the Output, for the audit
	// entry written as the answer settles (auditBefore); audited says it
	// was written.
	answering *envelope.Error
	ownExit   bool // the answer's exit code is the app's own (appExit)
	// printedIsResult: the command ended with one of its ResultExits, and
	// what it printed is the answer's data (appExit, endCapture).
	printedIsResult bool
	helpAll         bool  // --help-all: help lists every option (helpAllAsked)
	cmdErr          error // what the framework's run returned, when Duet answered it (Exec's ExitError)
	audited         bool
	// Auth, trust and safety (issue 16): see trust.go.
	trust trustState
	deleg delegation // a passthrough command's forwarded tokens and answer (delegate.go)
}

type invocationKey struct{}

// Run runs one invocation of a wrapped app and returns its exit code. It
// never calls os.Exit (an exit handler the app gave urfave may) and never
// panics: an agent gets one answer on stdout whatever the command does, and
// a person or a script what the app gives them.
//
// The options fw was wrapped with (its Options) apply first, and opts after
// them: an extension given to Wrap runs whoever runs the app.
func Run(ctx context.Context, fw Framework, args []string, opts ...Option) int {
	inv := newInvocation(fw, opts)
	defer inv.restoreCapture()
	return inv.afterRun(inv.run(ctx, args))
}

func newInvocation(fw Framework, opts []Option) *invocation {
	opts = append(slices.Clip(fw.Options()), opts...)
	return &invocation{cfg: newConfig(opts), fw: fw, start: time.Now()}
}

// Exec runs one invocation for an app that keeps its own main: a drop-in
// for the framework's own cmd.Run(ctx, os.Args) (urfave) or cmd.Execute()
// (cobra). Like them it keeps nothing from one call to the next and never
// exits the process, so an app's tests can call it again and again.
//
// A command that runs as the app would without Duet — an unported command
// for a person or a script — returns what the framework returns, for the
// app's main to report as it always has. When Duet answers instead (an
// agent, a ported command, a Duet built-in) the answer is already written;
// a non-zero exit comes back as an *ExitError, which the main turns into
// the exit code with ExitCode:
//
//	if err := duetcobra.Exec(root); err != nil {
//		os.Exit(adapters.ExitCode(err)) // was os.Exit(1)
//	}
//
// wrap is the adapter's Wrap of the app; a declaration that does not hold is
// returned.
func Exec[F Framework](ctx context.Context, wrap func() (F, error), args []string, opts ...Option) error {
	args, err := handedOver(args)
	if err != nil {
		return &ExitError{Code: int(exitcode.ArgError), Err: err}
	}
	fw, err := wrap()
	if err != nil {
		return err
	}
	inv := newInvocation(fw, opts)
	inv.appMain = true
	code := inv.afterRun(inv.run(ctx, args))
	inv.restoreCapture()
	if inv.appErr != nil || code == 0 {
		return inv.appErr
	}
	exit := &ExitError{Code: code, Err: inv.cmdErr}
	if exit.Err == nil && inv.answering != nil {
		exit.Err = inv.answering
	}
	return exit
}

// ExitError is what Exec returns when Duet answered the invocation with a
// non-zero exit code: the answer — the envelope, or a person's error text —
// is written, and only the code is left for the app's main to use. Err is
// why: the error the app's command (or its framework) returned, else the
// *envelope.Error Duet answered with — so that a test of the app that
// looks at the error's text reads the app's own words, an agent answered
// or not.
type ExitError struct {
	Code int
	Err  error
}

// Error is Err's text, or "exit status N" without one.
func (e *ExitError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return "exit status " + strconv.Itoa(e.Code)
}

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode returns e.Code. It makes an ExitError an ExitCoder to urfave/cli,
// whose HandleExitCoder exits with it.
func (e *ExitError) ExitCode() int { return e.Code }

// ExitCode is the exit code err stands for: 0 for nil, the code of an error
// that carries one (an *ExitError from Exec, urfave's ExitCoder, an
// *exec.ExitError), else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) && coded.ExitCode() >= 0 {
		return coded.ExitCode()
	}
	return int(exitcode.GeneralError)
}

// run runs one invocation. The app's own commands run below it: as few
// bytes of stack as possible stay under them (the answering lifecycle's
// large frame is gone before a faithful run starts), or the app's stack
// grows a size further than it would without Duet, and every start pays for
// the fresh pages.
func (inv *invocation) run(ctx context.Context, args []string) int {
	if inv.plain(args) {
		inv.root = &schema.Command{Name: toolName(inv.cfg.toolName, inv.fw.Name())} // the tree is not built
		inv.call, inv.unread = &call{node: inv.root}, true
		return inv.faithful(ctx, args)
	}
	args, read := inv.read(args)
	switch {
	case inv.call.node.Passthrough && !inv.scriptForAgent():
		return inv.passthrough(ctx, args)
	case !inv.answers():
		return inv.faithful(ctx, args)
	}
	return inv.answer(ctx, args, read)
}

// hiddenFlags is which of Duet's built-in flags this run's help leaves
// out. A person at a terminal gets the command's own flags, the Duet flags a
// person uses (--dry-run, --yes, --limit …) and those the CLI Agent Spec
// wants in every command's --help (--validate-only, --no-config,
// --no-update-check, --no-injection-protection), and the --help-all line
// for the rest, unless --help-all asked for every one. An agent and a
// script get them all — only not the --help-all line, which would list
// nothing more.
func (inv *invocation) hiddenFlags() func(*schema.Flag) bool {
	if inv.helpAll || !inv.mode.Terminal || inv.mode.Agent && !inv.human {
		return func(f *schema.Flag) bool { return f.Name == flagname.HelpAll }
	}
	// One of Duet's own commands (mcp, doctor …) lists its own flags: they
	// are what it is about.
	own := map[string]bool{}
	if n := inv.call.node; n.Builtin {
		for _, f := range n.Flags {
			own[f.Name] = true
		}
	}
	return func(f *schema.Flag) bool {
		switch f.Name {
		case flagname.HelpAll, flagname.DryRun, flagname.Yes, flagname.Limit, flagname.Cursor, flagname.Version,
			flagname.ValidateOnly, flagname.NoConfig, flagname.NoUpdateCheck, flagname.NoInjectionProtection:
			return false
		}
		return !own[f.Name]
	}
}

// helpAllAsked reads --help-all, before any --, as --help that lists every
// option (see Streams.HideFlag) — unless the app has a flag of that name.
func helpAllAsked(root *schema.Command, args []string) ([]string, bool) {
	i := slices.Index(args, "--"+flagname.HelpAll)
	if i < 0 || slices.Contains(args[:i], "--") {
		return args, false
	}
	own := false
	root.Walk(func(n *schema.Command) {
		for _, f := range n.Flags {
			own = own || f.Name == flagname.HelpAll && !f.Builtin
		}
	})
	if own {
		return args, false
	}
	args = slices.Clone(args)
	args[i] = "--help"
	return args, true
}

// readLine is what read learns from the command line for answer.
type readLine struct {
	format  string // --format, or what a stream asks for
	modeErr error  // a <TOOL>_FORMAT that names no format
}

// read builds the tree, reads args as the framework does and finds the
// audience.
func (inv *invocation) read(args []string) ([]string, readLine) {
	cfg := inv.cfg
	inv.root = inv.fw.Tree()
	// A passthrough command's tokens after its path are the tool's: read
	// only what comes before (delegate.go).
	args, inv.deleg.forwarded, inv.deleg.on = delegatedLine(inv.root, args)
	args = hoisted(inv.root, args)
	args, inv.helpAll = helpAllAsked(inv.root, args)
	inv.args = args
	c := inv.parse(args)
	inv.call = c
	if c.node.Passthrough && c.node.Meta.Protocol != ShellCompletion {
		return args, readLine{}
	}
	c.version = c.version || c.on(flagname.Version) && c.node.Parent == nil
	inv.human = c.on(flagname.Human)
	inv.format = inv.readFormat() // once: under WithLegacyOutput it warns
	format := inv.streamOutput(inv.format)
	mode, modeErr := envelope.Detect(envelope.Signals{
		Tool:      inv.root.Name,
		LookupEnv: cfg.lookupEnv,
		StdoutTTY: cfg.tty.stdout,
		StderrTTY: cfg.tty.stderr,
		StdinTTY:  cfg.tty.stdin,
		Format:    format,
		Formats:   cfg.featured.formats,
		LegacyEnv: cfg.legacyOutput,
		Detector:  cfg.detector,
		Strict:    cfg.strict,
	})
	inv.mode = mode
	return args, readLine{format: format, modeErr: modeErr}
}

// answer is the lifecycle of a command Duet answers: built-ins, ported
// commands and every command an agent runs.
func (inv *invocation) answer(ctx context.Context, args []string, read readLine) int {
	cfg, c, mode, output, modeErr := inv.cfg, inv.call, inv.mode, read.format, read.modeErr
	inv.sigs, inv.stopSigs = inv.signals()
	defer inv.stopSigs()
	if mode.Agent {
		inv.warnDeprecated()
	}
	inv.announceDeprecation()
	profileErr := inv.applyProfile()
	args, c = inv.rewrite(args, c) // input: --raw-payload, ids piped as -, JSON flags, rule defaults
	c.check(inv.classify, cfg.lookupEnv, inv.profiles.valueOf)
	inv.warnings = append(inv.warnings, c.warnings...)
	inv.observe()
	inv.checkDiscovery(args)
	inv.checkBudget()
	inv.checkAuditSetting()
	inv.checkTrust()
	inv.checkWidth()
	if modeErr != nil && output == "" { // a bad --format is refused as the flag's enum, and a bad <TOOL>_FORMAT alike
		valid := envelope.FormatNames(cfg.featured.formats...)
		name := envelope.EnvName(inv.root.Name, "FORMAT")
		v, ok := cfg.lookupEnv(name)
		if !ok && cfg.legacyOutput {
			name = envelope.EnvName(inv.root.Name, "OUTPUT")
			v, _ = cfg.lookupEnv(name)
		}
		c.problems = append(c.problems, envelope.FieldError{Code: errcode.InvalidEnumValue, Field: flagname.Format, ValidValues: valid,
			Message: fmt.Sprintf("%s (the default of --format) must be one of %s, not %q", name, strings.Join(valid, ", "), v)})
	}
	c.problems = append(c.problems, inv.checkOutputPath()...)
	if c.node.Name == describeCommand && c.node.Builtin && c.on(flagname.AgentsMD) && output == "" {
		mode.Format = envelope.Text // a document asked for by name, ready for `> AGENTS.md`
		inv.mode = mode
	}
	inv.refusal = inv.inputRequired(inv.unconfirmed(args))
	inv.protocol = inv.servesProtocol()
	stdout := cfg.stdout
	switch {
	case inv.deleg.on: // stdout is the delegated tool's once phase 1 passes
		stdout = delegatedStdout{inv: inv, stdout: stdout}
	case inv.protocol: // stdout is the protocol's from the first byte, never captured
		stdout = cfg.stderr
	case mode.Agent && inv.extension() == nil: // an extension owns the streams
		inv.capture = inv.startCapture()
		stdout = inv.capture.out
	}
	inv.out = inv.output(stdout)
	inv.meta = envelope.Meta{
		SchemaVersion: commandSchemaVersion(c.node),
		ToolVersion:   cfg.version,
		Command:       c.node.DotPath(),
		RequestID:     cfg.requestID(),
		// O-009: a validation's answer says so, passed or refused
		ValidationOnly: c.on(flagname.ValidateOnly) && !c.help && !c.on(flagname.Schema) && c.node.Runnable,
	}
	inv.meta.ConfigSources, inv.meta.Profile = inv.profiles.meta()
	for _, w := range inv.warnings {
		inv.out.Warn(w[0], w[1], w[2])
	}
	inv.readPayload() // input: stdin, whole and within its cap, before the command writes anything
	// The command's own checks, last of phase 1: they see the payload and
	// the Output, as the command would, with --validate-only too.
	validateErr := inv.validate(ctx)
	inv.traceStart()

	switch {
	case c.version:
		inv.endCapture(false)
		inv.printVersion(stdout)
		return int(exitcode.Success)
	case profileErr != nil && !c.help:
		return inv.finish(profileErr)
	case c.on(flagname.ShowConfig) && !c.help:
		return inv.showConfig()
	case len(c.problems) > 0 && !c.help:
		return inv.finish(cursorFix(envelope.Invalid(c.problems)))
	case validateErr != nil:
		return inv.finish(validateErr)
	case inv.inputErr != nil && !c.help:
		return inv.finish(inv.inputErr)
	case inv.schemaAsked() && !c.help:
		return inv.answerSchema()
	case c.on(flagname.Schema) && !c.help:
		doc, err := c.node.Document(mode.Agent && !inv.human)
		if err != nil {
			return inv.finish(describe.DeclarationError(err))
		}
		inv.out.RenderText(indentedJSON(doc))
		inv.out.Result(doc)
		return inv.finish(nil)
	case c.help || !c.node.Runnable:
		return inv.help(ctx, args)
	case c.on(flagname.ValidateOnly):
		inv.meta.ValidationOnly = true
		return inv.finish(nil)
	}
	inv.handOverStdout()
	// A command for people is refused to an agent, an extension's too.
	if err := inv.needsPerson(); err != nil {
		return inv.finish(err)
	}
	if e := inv.extension(); e != nil {
		return inv.extend(ctx, e)
	}
	if err := inv.guard(ctx); err != nil {
		return inv.finish(err)
	}
	if err := inv.confirm(args); err != nil {
		return inv.finish(err)
	}
	if err := inv.attest(); err != nil {
		return inv.finish(err)
	}
	inv.meta.Confirmed = c.node.NeedsConfirmation() && inv.refusal == nil && !inv.out.DryRun()
	if code, done := inv.beforeWork(ctx, args); done {
		return code
	}
	return inv.execute(ctx, args)
}

// plain reports whether the command line is plainly the app's alone, so
// that it runs as without Duet, unread: nothing in the app is declared to
// Duet, the environment names no agent, and no word of it is Duet's (a
// built-in flag or command). That is an app on the day it adopts Duet,
// which then pays for nothing more than the wrapping. (An environment given
// with WithEnv is Duet's to hand to the framework's flags: that needs the
// tree.)
func (inv *invocation) plain(args []string) bool {
	if inv.fw.Declared() || inv.cfg.envGiven {
		return false
	}
	mode, _ := envelope.Detect(envelope.Signals{
		Tool: toolName(inv.cfg.toolName, inv.fw.Name()), LookupEnv: inv.cfg.lookupEnv, StdoutTTY: inv.cfg.tty.stdout,
		Detector: inv.cfg.detector, Strict: inv.cfg.strict, Formats: inv.cfg.featured.formats,
	})
	if mode.Agent {
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if inv.duetWord(a) {
			return false
		}
	}
	return true
}

// duetWord reports whether arg may be one of Duet's built-in flags or
// commands: -name, --name or --name=value, or the name of a built-in
// command. It may be the app's own too: the command line is then read.
func (inv *invocation) duetWord(arg string) bool {
	if name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "="); strings.HasPrefix(arg, "-") {
		return isBuiltinFlag(name) || arg == "-"+versionShort
	}
	if arg == describeCommand || arg == profileCommand || isDiscoveryCommand(arg) || arg == checkPermissionsCommand && inv.cfg.permissions != nil || inv.cfg.featureCommand(arg) {
		return true
	}
	for _, e := range inv.cfg.extensions {
		if e.Command.Name == arg {
			return true
		}
	}
	return false
}

// parse reads args as the framework does. The framework stops at the first
// flag it does not know; to find every problem at once, the command line is
// read again without it, as long as there is one.
func (inv *invocation) parse(args []string) *call {
	p := inv.fw.Parse(args)
	var refused []error
	for range maxRereads {
		if p.Err == nil {
			break
		}
		at := strayFlag(args, inv.classify(p.Err))
		if at < 0 {
			break
		}
		refused = append(refused, p.Err)
		args = slices.Delete(slices.Clone(args), at, at+1)
		p = inv.fw.Parse(args)
	}
	c := newCall(p)
	c.refused = append(refused, c.refused...)
	return c
}

// maxRereads bounds how many unknown flags one command line is read for.
const maxRereads = 16

// strayFlag returns where in args the unknown flag e names is, or -1.
func strayFlag(args []string, e *envelope.Error) int {
	if e == nil || len(e.Errors) != 1 || e.Errors[0].Code != errcode.UnknownFlag || e.Errors[0].Field == "" {
		return -1
	}
	name := strings.TrimLeft(e.Errors[0].Field, "-")
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, dashes := range []string{"-", "--"} {
			if a == dashes+name || strings.HasPrefix(a, dashes+name+"=") {
				return i
			}
		}
	}
	return -1
}

// answers reports whether the lifecycle answers this invocation itself: for
// an agent, for a ported command or one of Duet's own, and when a Duet flag
// was given. Otherwise the app runs as it would without Duet.
func (inv *invocation) answers() bool {
	c := inv.call
	if inv.mode.Agent || c.node.Declared || c.node.Builtin {
		return true
	}
	for name := range c.values {
		if f := c.flags[name]; f != nil && f.Builtin && asksDuet(name) {
			return true
		}
	}
	return false
}

// asksDuet reports whether Duet's flag name asks for Duet's answer by
// name — a format, a schema, the version Duet adds — and so makes Duet
// answer a command nobody ported. Duet's other words given to such a
// command by a person or a script are the framework's to refuse, as
// without Duet: `yq '.a' f.yaml --output json` is yq's own unknown-flag
// error, not a file named json.
func asksDuet(name string) bool {
	switch name {
	case flagname.Format, flagname.Stream, flagname.Schema, flagname.PrintSchema, flagname.OutputSchema, flagname.Version:
		return true
	}
	return false
}

// warnDeprecated tells an agent, in the envelope, that the command or a
// flag it gave is deprecated (the framework tells a person on stderr).
func (inv *invocation) warnDeprecated() {
	c := inv.call
	if n := c.node; n.Deprecated != "" {
		inv.warn("DEPRECATED", fmt.Sprintf("command %q is deprecated", n.DotPath()), n.Deprecated)
	}
	for _, name := range slices.Sorted(maps.Keys(c.flags)) {
		if f := c.flags[name]; f.Deprecated != "" {
			inv.warn("DEPRECATED", fmt.Sprintf("flag --%s is deprecated", f.Name), f.Deprecated)
		}
	}
}

// ownStreams reports whether the invocation's streams are the process's
// own, as Main runs, rather than ones given with WithStdio.
func (inv *invocation) ownStreams() bool { return inv.cfg.stdout == os.Stdout }

// version is the tool's version: WithVersion's, else the app's own.
func (inv *invocation) version() string {
	if inv.cfg.version == "" {
		return cmp.Or(inv.root.Version, "dev")
	}
	return inv.cfg.version
}

// faithful runs a command nobody ported, for a person or a script, as the
// app would run without Duet: the framework parses and runs it, prints its
// own errors and usage, and the exit code is the app's — no time limit, no
// signal handling, nothing written that the app did not write. A command
// that answers through envelope.Output all the same, or returns an
// *envelope.Error, is shown as a ported one is. The signals Main caught
// early are the app's again.
func (inv *invocation) faithful(ctx context.Context, args []string) (exit int) {
	inv.letEarlyGo()
	defer inv.appPanic(&exit)
	return inv.faithfulExit(inv.fw.Execute(inv.faithfulContext(ctx), args, inv.streams()))
}

// appPanic reports the app's own panic as the Go runtime would, but without
// taking down a caller of Run, and makes the exit code 2.
func (inv *invocation) appPanic(exit *int) {
	if r := recover(); r != nil {
		fmt.Fprintf(inv.cfg.stderr, "panic: %v\n\n%s", r, debug.Stack())
		*exit = 2
	}
}

// faithfulExit is the exit code of a faithful run that returned err.
func (inv *invocation) faithfulExit(err error) int {
	var typed *envelope.Error
	if inv.out.Used() || errors.As(err, &typed) {
		// Unread, the id is made only for an answer: it costs the
		// random generator's set-up.
		inv.meta.RequestID = cmp.Or(inv.meta.RequestID, inv.cfg.requestID())
		return inv.finish(inv.outcome(err, nil))
	}
	if err == nil {
		return int(exitcode.Success)
	}
	if inv.appMain {
		inv.appErr = err
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return int(exitcode.GeneralError)
}

// faithfulContext readies the invocation and the context for a faithful run.
// It and faithfulExit are apart from faithful, whose frame stays under the
// app's commands: the smaller, the likelier the app's stack grows no further
// than without Duet.
func (inv *invocation) faithfulContext(ctx context.Context) context.Context {
	inv.out = inv.output(inv.cfg.stdout)
	// Field by field: a composite literal would take a Meta's room on the stack.
	inv.meta.SchemaVersion = commandSchemaVersion(inv.call.node)
	inv.meta.ToolVersion = inv.cfg.version
	inv.meta.Command = inv.call.node.DotPath()
	ctx = envelope.NewContext(ctx, inv.out)
	ctx = context.WithValue(ctx, invocationKey{}, inv)
	if !inv.unread { // an app run unread reads the process's own environment
		inv.meta.RequestID = inv.cfg.requestID() // the children's trace id
		ctx = inv.withRunenv(ctx)
	}
	return ctx
}

// output is the invocation's Output, made with its settings.
func (inv *invocation) output(stdout io.Writer) *envelope.Output {
	s := new(envelope.Settings)
	inv.settings(s, stdout)
	return envelope.New(s)
}

// settings fills s, which the caller holds: a Settings returned would take
// its room on the stack twice.
func (inv *invocation) settings(s *envelope.Settings, stdout io.Writer) {
	c, cfg := inv.call, inv.cfg
	if _, ok := c.opt(flagname.Fields); ok {
		s.Fields = c.values[flagname.Fields]
	}
	s.Mode = inv.mode
	s.Stdout, s.Stderr = stdout, cfg.stderr
	if !c.on(flagname.ValidateOnly) && !inv.deleg.on {
		s.OutputFile = inv.outputPath() // a validation's answer is no answer to keep; a passthrough command's is kept by keepDelegatedAnswer
	}
	s.Digest = cfg.digest
	s.Encoders = cfg.featured.encoders
	s.Quiet, s.Verbose = c.on(flagname.Quiet), c.on(flagname.Verbose)
	s.EchoWarnings = cfg.echoWarnings
	s.DryRun = c.bool(flagname.DryRun) || inv.refusal != nil && c.node.Meta.DryRun
	// F-021: an agent is told when the app's data holds the time of the
	// call (Duet's own commands keep theirs in records, as the audit log).
	s.CheckVolatile = inv.mode.Agent && !c.node.Builtin
	s.MaxBytes = maxBytes(cfg.getenv(envelope.EnvName(inv.root.Name, "MAX_OUTPUT_BYTES")))
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
	if c.node.Meta.List && !c.on(flagname.ShowConfig) {
		w := &envelope.Window{Limit: defaultLimit, Query: c.cursorQuery()}
		if v, ok := c.opt(flagname.Limit); ok {
			w.Limit, _ = strconv.Atoi(v)
		}
		if v, ok := c.opt(flagname.Cursor); ok {
			w.Offset, w.After, _ = envelope.ReadCursor(v, w.Query)
		}
		s.Window = w
	}
	inv.workSettings(s)
	inv.observeSettings(s)
	inv.discoverySettings(s)
	inv.trustSettings(s)
	inv.widthSettings(s)
	inv.cacheSettings(s)
}

// cursorFix gives a refused --cursor (REQ-O-003: INVALID_CURSOR, exit 2,
// never retryable) the one fix that works: the same call without it.
func cursorFix(e *envelope.Error) *envelope.Error {
	if e.Code == "INVALID_CURSOR" {
		e.Retryable = false
		e.FixRequired = "rerun without --cursor to start from the first page"
	}
	return e
}

func maxBytes(env string) int {
	if env == "" {
		return envelope.DefaultMaxBytes
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return envelope.DefaultMaxBytes
	}
	return n
}

// finish writes the one answer and returns the exit code.
func (inv *invocation) finish(fail *envelope.Error) int {
	inv.endSession()
	fail = inv.fixChecked(inv.heldToTable(inv.endWork(inv.trustFinish(inv.previewed(fail)))))
	fail = inv.effectReported(fail)
	inv.cacheMeta()
	inv.endCapture(fail != nil)
	if fail != nil && !inv.isDelegatedExit(fail) { // the tool's code means what the tool says
		fail.Settle(inv.call.node.ExitCodes())
	}
	inv.meta.DurationMS = time.Since(inv.start).Milliseconds()
	inv.observed()
	fail = inv.protocolArgError(inv.reshape(fail))
	var reported *envelope.Error
	if !inv.cleanShutdown(fail) {
		inv.answering = fail
		reported = inv.out.Finish(inv.meta, fail) // fail, or the error rendering hit
	}
	inv.keepDelegatedAnswer()
	code := int(exitcode.Success)
	switch {
	case isEPIPE(inv.out.WriteErr()):
		// the reader went away: that is its choice, not our failure
	case reported == nil:
	case reported.Exit == exitcode.Success:
		code = int(exitcode.GeneralError) // an error cannot succeed
	default:
		code = int(reported.Exit)
	}
	inv.audit(code, reported)
	inv.traceEnd(code)
	return code
}

// previewed checks the answer of a dry run. One that succeeded without
// reporting an effect may have ignored --dry-run and acted: it is reported
// as the author's bug. One that ran in place of a refused confirmation
// becomes the refusal, with the preview in meta.effect and meta.would_affect
// (data is null, as on every failure).
func (inv *invocation) previewed(fail *envelope.Error) *envelope.Error {
	if inv.out == nil || !inv.out.DryRun() || !inv.ran.Load() || fail != nil {
		return fail
	}
	if inv.call.node.Meta.DryRun && inv.out.Effected() == "" {
		return envelope.Errorf(exitcode.GeneralError, "DRY_RUN_UNREPORTED",
			"%q ran as a dry run and reported no effect, so it may have ignored --dry-run", inv.call.node.DotPath()).
			WithPhase(envelope.Execution).
			WithSuggestion("report this to the tool's authors: a dry run must change nothing and report the effect it would have")
	}
	if inv.refusal != nil {
		return inv.refusal.WithPreview()
	}
	return nil
}

// help lets the framework print its help: to stdout for a person; for an agent
// to stderr, with a stub envelope on stdout pointing at --schema.
func (inv *invocation) help(ctx context.Context, args []string) int {
	agent := inv.mode.Agent
	streams := inv.streams()
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

// streams is how the framework runs for this invocation: for an agent, its
// own output goes where the capture collects it and it prints no error
// itself; for a person or a script it keeps the app's ways. The process's
// own streams are left as the app set them (the capture takes stdout at
// the file descriptor); streams given with WithStdio replace the
// framework's.
func (inv *invocation) streams() Streams {
	agent, human := inv.mode.Agent, inv.human
	answers := inv.answers()
	lean := inv.cfg.leanHelp && inv.mode.Named
	s := Streams{
		Answer:   answers,
		AppMain:  inv.appMain,
		Builtins: answers,
		Listing:  inv.call.help || !inv.call.node.Runnable,
		Hide: func(c *schema.Command) bool {
			return !human && (!c.VisibleTo(agent) || lean && c.Builtin)
		},
		HideFlag: inv.hiddenFlags(),
	}
	if !inv.ownStreams() {
		s.Stdin, s.Stdout, s.Stderr, s.Help = inv.cfg.stdin, inv.cfg.stdout, inv.cfg.stderr, inv.cfg.stdout
		if inv.capture != nil {
			s.Stdout, s.Help = inv.capture.in, inv.capture.in
		}
	}
	return s
}

// unconfirmed is the refusal of a command that needs confirmation and has
// none: not given --yes (or --confirm-destructive, or --dry-run) where
// nobody can be asked. It has no fix_command: the one command that resolves
// it, the same with --yes, acts, and a fix_command must be safe to run
// (C-030); a command that implements --dry-run answers with its preview.
func (inv *invocation) unconfirmed(args []string) *envelope.Error {
	c := inv.call
	if !c.node.NeedsConfirmation() || inv.mode.Interactive || c.bool(flagname.Yes) || c.on(flagname.ConfirmDestructive) || c.bool(flagname.DryRun) || inv.safeDefault() || inv.confirmFlag() {
		return nil // an app's own --yes or --dry-run, adopted, confirms as Duet's would; --live confirms a safe-default command
	}
	line := inv.root.Name + " " + commandLine(args)
	e := envelope.Validationf("CONFIRMATION_REQUIRED", "%q is %s and needs confirmation, and nobody can be asked", c.node.DotPath(), c.node.Danger())
	if c.node.Flag(flagname.DryRun) == nil {
		return e.WithFix("confirm with --yes", "").WithSuggestion(fmt.Sprintf("run '%s --yes' to proceed", line))
	}
	return e.WithFix("confirm with --yes; meta.effect and meta.would_affect are what it would change", "").
		WithSuggestion(fmt.Sprintf("check what it would change (here, or with '%s --dry-run'), then run '%s --yes'", line, line))
}

// confirm guards a command that needs confirmation: refused where nobody can
// be asked, asked at a terminal, skipped with --yes or --dry-run. A refused
// command that implements --dry-run runs as one, and is refused when it
// returns (see finish).
func (inv *invocation) confirm(args []string) *envelope.Error {
	c := inv.call
	switch {
	case inv.refusal != nil && c.node.Meta.DryRun:
		return nil
	case inv.refusal != nil:
		return inv.refusal
	case !c.node.NeedsConfirmation() || !inv.mode.Interactive || c.bool(flagname.Yes) || c.on(flagname.ConfirmDestructive) || c.bool(flagname.DryRun) || inv.safeDefault() || inv.confirmFlag():
		return nil
	}
	line := inv.root.Name + " " + commandLine(args)
	answer, err := inv.ask(context.Background(), fmt.Sprintf("%s is %s. Continue? [y/N] ", line, c.node.Danger()))
	if err != nil {
		return envelope.As(err)
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
func (inv *invocation) execute(parent context.Context, args []string) int {
	timeout := inv.timeout()
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
	ctx = inv.startSession(ctx)
	ctx = inv.inputContext(ctx)
	defer inv.heartbeats()()
	defer inv.watchIdle(cancel)()
	ctx = inv.withRunenv(ctx)
	inv.watchDeclared(inv.call.node)

	restoreWorkdir := inv.keepWorkdir()
	done := make(chan error, 1)
	inv.releases, inv.loopDone = make(chan signalRelease), make(chan struct{})
	defer close(inv.loopDone)
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
		done <- inv.fw.Execute(ctx, args, inv.guardStdin(inv.streams()))
	}()

	var got os.Signal
	var grace <-chan time.Time
	ctxDone := ctx.Done()
	for {
		select {
		case err := <-done:
			restoreWorkdir()
			inv.cmdErr = err
			if e := inv.stoppedWork(ctx, err, got); e != nil {
				return inv.finish(e)
			}
			return inv.finish(inv.outcome(err, got))
		case s := <-inv.sigs:
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
			inv.forward(s)
			if !inv.stopAtCheckpoint() { // a resumable command stops at its next checkpoint
				cancel(errSignal{s})
			}
			grace = time.After(inv.cfg.grace)
		case r := <-inv.releases:
			inv.release(r)
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

// timeout is the command's time limit: --timeout when given; for an agent
// the command's own or the default; for a person or a script only one the
// command declares — a person ends a command with Ctrl-C.
func (inv *invocation) timeout() time.Duration {
	if v, ok := inv.call.opt(flagname.Timeout); ok {
		d, _ := time.ParseDuration(v)
		return d
	}
	if inv.protocol {
		return 0 // a server lives as long as its client wants it (REQ-C-032)
	}
	if inv.mode.Agent {
		return inv.call.node.Timeout()
	}
	if i := inv.call.node.Meta.Interruption; i != nil && i.MaxLifetime > 0 {
		return i.MaxLifetime // declared, as a Timeout: whoever runs the work
	}
	return max(inv.call.node.Meta.Timeout, 0)
}

// outcome maps what Execute returned to the invocation's error. Timeouts and
// cancellation are recognised first: they may strike before any action starts
// (in a Before hook), and are never usage errors.
func (inv *invocation) outcome(err error, sig os.Signal) *envelope.Error {
	switch {
	case sig != nil && (err == nil || errors.Is(err, context.Canceled) || inv.isDelegatedExit(envelope.As(err))):
		// The signal went to the command's children before its context
		// was cancelled: a command that waits for them may return nil, or
		// a delegated tool's exit, before it sees why they ended. Its work
		// was stopped all the same.
		return cancelled(sig)
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		e := envelope.As(err)
		if e.Code == errcode.Timeout {
			e.Message = "timed out"
			if t := inv.meta.TimeoutMS; t != nil {
				e.Message = fmt.Sprintf("timed out after %s", time.Duration(*t)*time.Millisecond)
			}
			e.Suggestion = "raise --timeout, or narrow the work"
			// A command whose TIMEOUT entry is not retryable and changed
			// nothing (a safe command's, by default: its run length
			// depends on its input) times out again on the identical
			// rerun: the fix is a larger --timeout (REQ-C-014, v1.14).
			if entry := inv.call.node.ExitCodes()[exitcode.Timeout]; !entry.Retryable && entry.SideEffects == exitcode.None && e.FixRequired == "" {
				e.FixRequired = "Reissue with a larger --timeout" + largerTimeout(inv.meta.TimeoutMS)
			}
		}
		return e
	case !inv.ran.Load():
		return inv.classify(err)
	}
	if e := inv.appExit(err); e != nil {
		return e
	}
	e := envelope.As(err)
	if strings.TrimSpace(e.Message) == "" { // cli.Exit("", 1): the code was all it said
		e.Message = fmt.Sprintf("%s failed with exit code %d and said nothing more", inv.call.node.DotPath(), int(e.Exit))
	}
	return e
}

// maxExitStatus is the largest exit status a process can report.
const maxExitStatus exitcode.Code = 255

// appExit is the answer to an error that carries an exit code of the app's
// own — urfave's ExitCoder (cli.Exit), or any error with an ExitCode
// method — and no structured form: an agent gets the code a script gets,
// never 1 for all. A code the command declares (Meta.ExitCodes) answers
// under its entry's error code, another as APP_EXIT; error.context.exit_code
// holds it either way. A code the command lists in Meta.ResultExits (a
// plain error stands for 1) is what it found, not a failure: what it
// printed is the answer's data. nil for any other error.
func (inv *invocation) appExit(err error) *envelope.Error {
	var typed *envelope.Error
	var structured interface{ Envelope() *envelope.Error } // an error that builds its own (see envelope.As)
	if errors.As(err, &typed) || errors.As(err, &structured) {
		return nil
	}
	node := inv.call.node
	c, coded := exitcode.GeneralError, false
	var withCode interface{ ExitCode() int }
	if errors.As(err, &withCode) {
		c, coded = exitcode.Code(withCode.ExitCode()), true
	}
	result := slices.Contains(node.Meta.ResultExits, c)
	if !result && (!coded || c <= exitcode.GeneralError || c > maxExitStatus) {
		return nil
	}
	e := envelope.As(err)
	e.Exit, e.Code = c, "APP_EXIT"
	entry, declared := node.Meta.ExitCodes[c]
	if declared {
		e.Code = entry.Name
		if len(entry.ErrorCodes) > 0 {
			e.Code = entry.ErrorCodes[0]
		}
	}
	if strings.TrimSpace(e.Message) == "" {
		e.Message = fmt.Sprintf("%s exited with code %d", node.DotPath(), int(c))
		if declared && entry.Description != "" {
			e.Message = fmt.Sprintf("%s: %s", node.DotPath(), entry.Description)
		}
	}
	e.Context = map[string]any{"exit_code": int(c)}
	inv.ownExit = true
	if result {
		inv.printedIsResult = true
		e = e.WithResult()
	}
	return e
}

// largerTimeout suggests a --timeout twice the one that ran out, of ms
// milliseconds: ", such as --timeout 60s"; "" when none is known.
func largerTimeout(ms *int64) string {
	if ms == nil || *ms <= 0 {
		return ""
	}
	d := 2 * time.Duration(*ms) * time.Millisecond
	if d >= time.Second {
		return fmt.Sprintf(", such as --timeout %ds", int64(d.Round(time.Second)/time.Second))
	}
	return ", such as --timeout " + d.String()
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
	return envelope.Validationf(errcode.UsageError, "%s", err.Error())
}

func cancelled(sig os.Signal) *envelope.Error {
	code := exitcode.Interrupted
	if sig == syscall.SIGTERM {
		code = exitcode.Terminated
	}
	e := envelope.Errorf(code, "CANCELLED", "cancelled by %s before it finished", sigName(sig)).
		WithSuggestion("inspect the state before running it again")
	return e.Interrupted(sigName(sig))
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
	if inv.call.bool(flagname.Verbose) {
		fmt.Fprintf(inv.cfg.stderr, "panic: %v\n%s", r, debug.Stack())
	}
	inv.ran.Store(true)
	return envelope.Errorf(exitcode.GeneralError, "INTERNAL_ERROR", "internal error: %v", r).
		WithSuggestion("this is a bug in the tool; rerun with --verbose for a stack trace on stderr and report it")
}

// ShellCompletion is the Meta.Protocol of a command that prints a script
// for a person's shell to source, such as cobra's completion.
const ShellCompletion = "shell-completion"

// scriptForAgent reports whether a pass-through command that prints a
// shell's script is asked for by an agent that names itself: it gets one
// envelope, the script in data, as from any command the app did not port.
// A pipe alone still gets the script: `source <(tool completion bash)`
// reads one.
func (inv *invocation) scriptForAgent() bool {
	return inv.call.node.Meta.Protocol == ShellCompletion && inv.mode.Agent && inv.mode.Named
}

// passthrough lets the framework answer a command outside the contract (see
// schema.Command.Passthrough), whoever asks, as it would without Duet.
func (inv *invocation) passthrough(ctx context.Context, args []string) int {
	inv.mode = envelope.Mode{Format: envelope.Text}
	return inv.faithful(ctx, args)
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
// exit code 1.
//
// A command that runs as the app would without Duet (an unported command
// for a person or a script) keeps the process's signals as they were: Duet
// handles none. An invocation the lifecycle answers takes SIGPIPE, so that
// a write to a closed stdout fails with EPIPE instead of killing the
// process (`tool list | head` exits 0), and SIGINT and SIGTERM, which
// cancel a running command and answer a confirmation prompt with CANCELLED.
//
// wrap is the adapter's Wrap of the app; it runs once. args are the
// command line without the program's name: os.Args[1:], or what the app
// told its framework to parse instead.
func Main[F Framework](wrap func() (F, error), args []string, opts ...Option) {
	early := catchEarly()
	args, err := handedOver(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(int(exitcode.ArgError))
	}
	fw, err := wrap()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(Run(context.Background(), fw, args, append(slices.Clip(opts), func(c *config) { c.early = early })...))
}

// handedOver is the command line handed over in a file (argsfile: the MCP
// server's tool calls, a web UI's), which replaces the process's, args;
// args when there is none.
func handedOver(args []string) ([]string, error) {
	taken, ok, err := argsfile.Take()
	switch {
	case !ok:
		return args, nil
	case err != nil:
		return nil, err
	}
	return taken, nil
}

// catchEarly takes SIGINT and SIGTERM from the first moment of Main, while
// the app is wrapped and its command line read: a signal then is held for
// the run, which answers it as CANCELLED like one that comes later, or,
// when the app runs as it would without Duet, is let go and raised again,
// with the effect it would have had (issue 34: a signal in the first
// milliseconds killed the process with no envelope).
func catchEarly() chan os.Signal {
	ch := make(chan os.Signal, 3)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch
}

// letEarlyGo gives SIGINT and SIGTERM back to the app, for a run Duet does
// not answer: catchEarly's hold ends, and a signal it held is raised again
// now that nothing catches it.
func (inv *invocation) letEarlyGo() {
	ch := inv.cfg.early
	if ch == nil {
		return
	}
	inv.cfg.early = nil
	signal.Stop(ch)
	select {
	case s := <-ch:
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(s)
		}
	default:
	}
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

// signals returns where SIGINT, SIGTERM and SIGPIPE arrive: WithSignals'
// channel, or one of the process's, which stop releases. SIGPIPE is taken
// so that a write to a closed stdout fails with EPIPE instead of killing the
// process; the lifecycle ignores it.
func (inv *invocation) signals() (<-chan os.Signal, func()) {
	if inv.cfg.signals != nil {
		if inv.cfg.early != nil {
			signal.Stop(inv.cfg.early) // the app's channel takes over
		}
		return inv.cfg.signals, func() {}
	}
	ch := inv.cfg.early // what came before the run began is the run's
	if ch == nil {
		ch = make(chan os.Signal, 3)
	}
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	return ch, func() { signal.Stop(ch) }
}
