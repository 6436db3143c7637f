package adapters

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// Seeing what happened: every answer says when it started, in which
// directory, under which trace and configuration, whether there is a
// display, and how often the command retried; --debug shows the framework's
// own steps on stderr, secrets redacted; --quiet leaves stderr empty.

// timestampLayout is meta.timestamp's: RFC 3339 in UTC with milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// observed is what the invocation learned about its surroundings.
type observed struct {
	ready    bool   // observe ran: the lifecycle answers, its command line read
	trace    string // the caller's trace id
	cwd      string // the directory relative paths resolve against
	headless bool
	config   envelope.ConfigChoice
	audit    string        // the audit log's path; "" when none is kept
	stdin    *bufio.Reader // what Prompt reads answers from, once it has asked
}

// WithClock replaces the clock of meta.timestamp and the audit log.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithWorkDir sets the working directory the invocation starts in, as the
// lifecycle sees it (meta.cwd, and what --cwd and relative paths resolve
// against), instead of asking the operating system: for a run in a test.
func WithWorkDir(dir string) Option { return func(c *config) { c.workDir = dir } }

func isObservedFlag(name string) bool {
	switch name {
	case flagname.Debug, flagname.WarningsAsErrors, flagname.Unmask, flagname.Cwd, flagname.NonInteractive, flagname.Retries, flagname.RetryDelay,
		flagname.NoConfig, flagname.Config, flagname.Context:
		return true
	}
	return false
}

// observedGlobalFlags are accepted by every command.
func observedGlobalFlags() []schema.Flag {
	return []schema.Flag{
		{Name: flagname.Debug, Control: true, Type: schema.Boolean, Default: false, Usage: "the full diagnostic trace on stderr (audience, configuration, flags, environment), sensitive values redacted"},
		{Name: flagname.WarningsAsErrors, Control: true, Type: schema.Boolean, Default: false, Usage: "fail with exit 1 when the command warns; the warnings stay in the answer"},
		{Name: flagname.Unmask, Control: true, Type: schema.Boolean, Default: false, Usage: "show high-entropy values (tokens, keys, base64) as they are, not summarised: exposes sensitive values"},
	}
}

// observedCommandFlags are the built-ins a runnable command gets from what
// it declares of its surroundings: --cwd for a ported command, --yes and
// --non-interactive for one that may ask, --retries and --retry-delay for
// one that retries.
func observedCommandFlags(c *schema.Command) []schema.Flag {
	var flags []schema.Flag
	if c.Declared || c.Builtin {
		flags = append(flags, schema.Flag{Name: flagname.Cwd, Control: true, Type: schema.String, Usage: "resolve relative paths against this directory instead of the working directory (which does not change)"})
	}
	if c.Meta.Prompts && !c.NeedsConfirmation() {
		flags = append(flags, schema.Flag{Name: flagname.Yes, Type: schema.Boolean, Default: false, Usage: "answer yes to every question instead of asking"})
	} else if y := idleYes(c); y != nil {
		flags = append(flags, *y)
	}
	if c.Interactive() {
		flags = append(flags, schema.Flag{Name: flagname.NonInteractive, Type: schema.Boolean, Default: false, Usage: "never ask: fail with exit 4 where a question would be asked"})
	}
	if c.Meta.Retries > 0 {
		flags = append(flags,
			schema.Flag{Name: flagname.Retries, Type: schema.Integer, Default: c.Meta.Retries, Usage: "retry failed work at most this many times; 0 fails at the first error"},
			schema.Flag{Name: flagname.RetryDelay, Type: schema.String, Format: "duration", Default: c.Meta.RetryDelay.String(), Usage: "wait this long between retries"})
	}
	return flags
}

// observeTree adds what an app gets from what it declares: the
// configuration flags when it has configuration files or profiles, and the
// audit-log command when it declares anything to Duet. It returns how many
// commands it added, at the end of root's.
func observeTree(root *schema.Command, cfg *config) int {
	root.Flags = appendMissing(root.Flags, configFlags(root, cfg), true)
	declared := false
	root.Walk(func(c *schema.Command) { declared = declared || c.Declared })
	if declared && root.Sub(auditLogCommand) == nil {
		root.Commands = append(root.Commands, auditLogNode())
		return 1
	}
	return 0
}

// observedDeclarations checks what a command declares about asking a
// person and showing things on a display.
func observedDeclarations(c *schema.Command) []error {
	var errs []error
	m := &c.Meta
	switch {
	case m.Editor && len(m.Alternatives) == 0:
		errs = append(errs, errors.New("Meta.Editor needs Meta.Alternatives: the flags (such as --message) that take the editor's place where nobody is at a terminal"))
	case !m.Editor && len(m.Alternatives) > 0:
		errs = append(errs, errors.New("Meta.Alternatives is declared without Meta.Editor"))
	}
	for _, a := range m.Alternatives {
		if c.Flag(a) == nil {
			errs = append(errs, fmt.Errorf("Meta.Alternatives names %q, which is not a flag of this command", a))
		}
	}
	switch m.Headless {
	case "", schema.EmitInOutput, schema.SkipHeadless, schema.FailHeadless:
	default:
		errs = append(errs, fmt.Errorf("Meta.Headless %q is not emit_in_output, skip or error", m.Headless))
	}
	switch {
	case len(m.GUI) > 0 && m.Headless == "":
		errs = append(errs, errors.New("Meta.GUI needs Meta.Headless: what the command does where there is no display (emit_in_output, skip or error)"))
	case len(m.GUI) == 0 && m.Headless != "":
		errs = append(errs, errors.New("Meta.Headless is declared without Meta.GUI, the operations on a display"))
	}
	if m.Retries < 0 || m.RetryDelay < 0 {
		errs = append(errs, errors.New("Meta.Retries and Meta.RetryDelay must not be negative"))
	}
	return errs
}

// traceID is the caller's trace id: <TOOL>_TRACE_ID, else the spec's
// literal TOOL_TRACE_ID.
func traceID(tool string, getenv func(string) string) string {
	if v := getenv(envelope.EnvName(tool, "TRACE_ID")); v != "" {
		return v
	}
	return getenv("TOOL_TRACE_ID")
}

// observe reads what the command line and the environment say about the
// invocation's surroundings — the trace, the working directory (--cwd), the
// display, the configuration files, the audit log, whether anyone can be
// asked — and adds the problems it finds to phase 1.
func (inv *invocation) observe() {
	c, cfg := inv.call, inv.cfg
	o := &inv.obs
	o.ready = true
	o.trace = traceID(inv.root.Name, cfg.getenv)
	judged := !c.help && !c.version && !c.on(flagname.Schema)
	base := cfg.workDir
	if base == "" {
		base, _ = os.Getwd()
	}
	o.cwd = base
	if v, ok := c.opt(flagname.Cwd); ok {
		dir := v
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		dir = filepath.Clean(dir)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			if judged {
				c.problem("INVALID_CWD", flagname.Cwd, "--cwd path does not exist or is not a directory: %s", v)
				c.problems[len(c.problems)-1].Suggestion = "pass an existing directory, such as the project's root"
			}
		} else {
			o.cwd = dir
		}
	}
	var loud []string
	for _, name := range []string{flagname.Quiet, flagname.Verbose, flagname.Debug} {
		if c.on(name) {
			loud = append(loud, "--"+name)
		}
	}
	if len(loud) > 1 && judged {
		c.problem("MUTUALLY_EXCLUSIVE_FLAGS", strings.TrimPrefix(loud[0], "--"), "flags %s cannot be used together", strings.Join(loud, " and "))
	}
	if c.on(flagname.NonInteractive) {
		inv.mode.Interactive = false
	}
	o.headless = headless(cfg.lookupEnv, cfg.tty.stdout)
	inv.resolveConfig(judged)
	o.audit = inv.auditPath()
	inv.noColorForChildren()
	inv.traceForChildren()
	inv.editorForChildren()
	inv.unbufferedForChildren()
}

// observeSettings gives the command's Output what the invocation observed.
func (inv *invocation) observeSettings(s *envelope.Settings) {
	c, o := inv.call, &inv.obs
	s.TraceID, s.Cwd, s.Config = o.trace, o.cwd, o.config
	if o.audit != "" {
		s.BeforeAnswer = inv.auditBefore // the entry precedes the answer (REQ-O-030)
	}
	s.Debug = c.on(flagname.Debug) || inv.debugFromEnv() // <TOOL>_DEBUG (envvars.go)
	s.Quiet = s.Quiet && !s.Debug
	s.WarningsAsErrors = c.on(flagname.WarningsAsErrors)
	s.Unmask = c.on(flagname.Unmask)
	s.HighEntropy = c.node.Meta.HighEntropy
	// Nobody watches stderr when stdout is not a terminal, CI runs it or
	// an agent reads: progress and chatter stay off unless asked for.
	s.Hush = !s.Verbose && !s.Debug && (inv.mode.Agent || !inv.mode.Terminal || inv.cfg.getenv("CI") != "")
	s.Progress = inv.cfg.getenv(envelope.ProgressEnv) == "1"
	s.ChildLog = c.node.Meta.ChildLog // a wrapped program's log streams all the same (REQ-F-038)
	s.Display = envelope.Display{Headless: o.headless, Behavior: string(c.node.Meta.Headless), Launch: inv.cfg.opener()}
	if len(c.node.Meta.GUI) == 0 {
		s.Display.Behavior = ""
	}
	if n := c.node.Meta.Retries; n > 0 {
		s.Retry = envelope.RetryBudget{Max: n, Delay: c.node.Meta.RetryDelay}
		if v, ok := c.opt(flagname.Retries); ok {
			s.Retry.Max, _ = strconv.Atoi(v)
		}
		if v, ok := c.opt(flagname.RetryDelay); ok {
			s.Retry.Delay, _ = time.ParseDuration(v)
		}
	}
}

// observed fills what meta says about the invocation's surroundings, just
// before the answer is written.
func (inv *invocation) observed() {
	m := &inv.meta
	m.Timestamp = inv.startedAt().UTC().Format(timestampLayout)
	o := &inv.obs
	if !o.ready {
		return
	}
	m.TraceID, m.Cwd, m.Headless, m.AuditLogPath = o.trace, o.cwd, o.headless, o.audit
	m.Context = o.config.Context
	if m.Context == "" && inv.profiles != nil && inv.call.has(flagname.Context) {
		m.Context = inv.profiles.applied
	}
	for _, f := range o.config.Files {
		if !slices.Contains(m.ConfigSources, f) {
			m.ConfigSources = append(m.ConfigSources, f)
		}
	}
	if m.ConfigSources == nil {
		m.ConfigSources = []string{}
	}
	m.EffectiveConfigHash = inv.configHash(m.ConfigSources)
}

// startedAt is when the invocation started, on WithClock's clock if given.
func (inv *invocation) startedAt() time.Time {
	if inv.cfg.now != nil {
		return inv.cfg.now()
	}
	return inv.start
}

// traceStart writes, under --debug, what the lifecycle decided before the
// command runs: audience, directory, configuration, flags and environment,
// secrets redacted.
func (inv *invocation) traceStart() {
	if !inv.out.Debugging() {
		return
	}
	c, o, log := inv.call, &inv.obs, inv.out.Logger()
	log.Debug("invocation", "command", c.node.DotPath(), "request_id", inv.meta.RequestID, "agent", inv.mode.Agent, "reason", inv.mode.Reason, "format", string(inv.mode.Format))
	log.Debug("surroundings", "cwd", o.cwd, "headless", o.headless, "interactive", inv.mode.Interactive, "timeout", inv.timeout().String())
	log.Debug("configuration", "skip", o.config.Skip, "files", strings.Join(o.config.Files, ","), "context", o.config.Context, "audit_log", o.audit)
	if inv.profiles != nil && inv.profiles.applied != "" {
		log.Debug("profile applied", "name", inv.profiles.applied, "file", inv.profiles.store.Path)
	}
	var flags []string
	for name, values := range c.values {
		f := c.flags[name]
		v := strings.Join(values, ",")
		if f != nil && f.Sensitive || envelope.SecretName(name) { // an unknown --token too
			v = envelope.Redacted
		} else if m, ok := envelope.MaskValue(v, false); ok {
			v = m
		}
		flags = append(flags, "--"+name+"="+v)
	}
	slices.Sort(flags)
	log.Debug("flags", "given", strings.Join(flags, " "), "args", strings.Join(c.args, " "))
	log.Debug("environment", "variables", strings.Join(envelope.RedactEnv(inv.cfg.environ()), " "))
}

// traceEnd writes, under --debug, how the invocation ended.
func (inv *invocation) traceEnd(code int) {
	if inv.out == nil || !inv.out.Debugging() {
		return
	}
	inv.out.Logger().Debug("finished", "exit_code", code, "duration_ms", inv.meta.DurationMS, "audit_log", inv.obs.audit)
}

// noColorForChildren sets NO_COLOR=1 in the process's environment when
// colour is off — an agent reads, or NO_COLOR, CI, GITHUB_ACTIONS,
// JENKINS_URL or TERM=dumb says so — so that the children a command starts
// print none either (the CLI Agent Spec's F-008). Only a process run by
// Main or Exec is changed, and only for an invocation the lifecycle
// answers: a command run as the app would run keeps its environment.
func (inv *invocation) noColorForChildren() {
	cfg := inv.cfg
	if !inv.ownStreams() || cfg.envGiven {
		return
	}
	if v, set := cfg.lookupEnv("NO_COLOR"); set && v != "" {
		return
	}
	if inv.mode.Agent || envelope.ColorOff(cfg.lookupEnv) {
		os.Setenv("NO_COLOR", "1")
	}
}

// traceForChildren sets TOOL_TRACE_ID in the process's environment to the
// invocation's trace id, when it has one, so that the children a command
// starts inherit it (the CLI Agent Spec's F-025) — also when the caller
// named it <TOOL>_TRACE_ID. As with NO_COLOR, only a process run by Main or
// Exec is changed, and only for an invocation the lifecycle answers.
func (inv *invocation) traceForChildren() {
	if t := inv.obs.trace; t != "" && inv.ownStreams() && !inv.cfg.envGiven && os.Getenv("TOOL_TRACE_ID") != t {
		os.Setenv("TOOL_TRACE_ID", t)
	}
}

// editorForChildren sets EDITOR, VISUAL and GIT_EDITOR to "true", an
// editor that changes nothing and returns at once, in the process's
// environment where nobody can be asked (the CLI Agent Spec's F-055): a
// child the command starts — git commit, say — never opens an editor that
// would wait for a person. At a terminal they are left as they are. As
// with NO_COLOR, only a process run by Main or Exec is changed, and only
// for an invocation the lifecycle answers.
func (inv *invocation) editorForChildren() {
	if inv.mode.Interactive || !inv.ownStreams() || inv.cfg.envGiven {
		return
	}
	for _, name := range []string{"EDITOR", "VISUAL", "GIT_EDITOR"} {
		os.Setenv(name, "true")
	}
}
