package adapters

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
)

// Option configures [Run]. The same options are accepted by every adapter's
// Wrap, Run and Main.
type Option func(*config)

type config struct {
	version      string
	stdin        io.Reader
	stdout       io.Writer
	stderr       io.Writer
	lookupEnv    func(string) (string, bool)
	environ      func() []string
	tty          *ttys
	detector     func(getenv func(string) string) bool
	echoWarnings bool                // WithWarningsOnStderr
	legacyOutput bool                // WithLegacyOutput
	digest       func([]byte) string // WithOutputDigest
	leanHelp     bool                // WithLeanAgentHelp
	grace        time.Duration
	requestID    func() string
	signals      <-chan os.Signal
	early        chan os.Signal // SIGINT and SIGTERM caught since Main began (see catchEarly)
	extensions   []Extension
	features     []Feature                 // WithFeatures, in the order given
	featured     featureIndex              // what they add, found as they are given (feature.go)
	newApp       func() (Framework, error) // WithNewApp
	strict       bool
	envGiven     bool   // WithEnv replaced the process environment
	toolName     string // WithToolName

	// child processes (proc)
	quietUpdates []func() // WithUpdateNotifierSuppression
	cleanup      bool     // long work: the app has the cleanup command (WithCleanupCommand)
	// seeing what happened (issue 16: observe)
	now         func() time.Time   // WithClock
	workDir     string             // WithWorkDir
	audit       string             // WithAuditLog's path
	auditGiven  bool               // WithAuditLog was given
	configFiles *Config            // WithConfig
	open        func(string) error // WithOpener
	// discovery: what the discovery built-ins report (discovery_options.go)
	discovery  discoveryConfig
	tokenizers []namedTokenizer // WithTokenizer, in the order given
	// Auth, trust and safety (issue 16): see trust.go.
	permissions func(context.Context) ([]string, error) // WithPermissions
	// artifacts (issue 16): variables the app reads itself (envvars.go)
	envVars []envVar // WithEnvVar
	// safety, config, filesystem (issue 16): see auditrotate.go.
	auditLimits AuditLogLimits // WithAuditLogLimits
}

type ttys struct{ stdin, stdout, stderr bool }

// WithToolName names the tool as its users type it: the word that starts
// every command Duet suggests (a fix, a hint, AGENTS.md), the prefix of its
// variables (<TOOL>_FORMAT) and the folder of its files (the audit log's).
// Give it to Wrap (or Main, or Run, which wrap). Without it the name is the
// root command's when that is one word a shell runs, else the name the
// binary was started by: an app whose root is named "Acme Notes" is
// `acme-notes` only if its users type that.
func WithToolName(name string) Option { return func(c *config) { c.toolName = name } }

// toolName is the tool's name: given (WithToolName), else the framework's
// name of the root, when it is one word a shell runs, else the binary's.
func toolName(given, root string) string {
	switch {
	case given != "":
		return given
	case isWord(root):
		return root
	}
	if bin := filepath.Base(os.Args[0]); isWord(bin) {
		return bin
	}
	return root
}

// isWord reports whether s is a command name a shell runs as typed: letters,
// digits, '.', '_' and '-', not starting with '-' or '.'.
func isWord(s string) bool {
	if s == "" || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// WithVersion sets the tool's version, printed by --version and in every meta.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithStdio replaces the process's standard streams.
func WithStdio(stdin io.Reader, stdout, stderr io.Writer) Option {
	return func(c *config) { c.stdin, c.stdout, c.stderr = stdin, stdout, stderr }
}

// WithEnv replaces the process environment with env, a list of KEY=value: for
// audience detection, <TOOL>_OUTPUT and the like, and for flags bound to
// environment variables, whose values the lifecycle hands to the framework.
func WithEnv(env []string) Option {
	m := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	env = slices.Clone(env)
	return func(c *config) {
		c.lookupEnv = func(k string) (string, bool) { v, ok := m[k]; return v, ok }
		c.environ = func() []string { return slices.Clone(env) }
		c.envGiven = true
	}
}

// WithEnvOverlay sets the variables of env, each KEY=value, over the
// environment the invocation is given — the process's, or that of a
// WithEnv before it.
func WithEnvOverlay(env ...string) Option {
	m := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(c *config) {
		lookup, environ := c.lookupEnv, c.environ
		c.lookupEnv = func(k string) (string, bool) {
			if v, ok := m[k]; ok {
				return v, true
			}
			return lookup(k)
		}
		c.environ = func() []string {
			out := slices.DeleteFunc(environ(), func(kv string) bool {
				k, _, _ := strings.Cut(kv, "=")
				_, over := m[k]
				return over
			})
			return append(out, env...)
		}
	}
}

// Terminal says which of the standard streams are terminals: what
// audience detection reads first. It is not the audience itself: pipes are
// a script's, or an agent's when the environment or WithSpecStrict says so.
type Terminal uint8

// The standard streams that are terminals, or none, or all.
const (
	StdinTerminal Terminal = 1 << iota
	StdoutTerminal
	StderrTerminal

	Piped   Terminal = 0                                               // no terminal: a script's pipes, or an agent's
	Console          = StdinTerminal | StdoutTerminal | StderrTerminal // every stream the terminal a person types at
)

// WithTerminal says which standard streams are terminals, instead of asking
// the operating system.
func WithTerminal(t Terminal) Option {
	return func(c *config) {
		c.tty = &ttys{t&StdinTerminal != 0, t&StdoutTerminal != 0, t&StderrTerminal != 0}
	}
}

// WithAgentDetector adds an app-specific test for agent mode, such as "an
// environment variable only our agent runner sets".
func WithAgentDetector(fn func(getenv func(string) string) bool) Option {
	return func(c *config) { c.detector = fn }
}

// WithSpecStrict makes the app answer as the CLI Agent Spec wants a tool
// built for agents first to answer (its F-003): a stdout that is not a
// terminal, or CI set, means an agent is reading, and gets one envelope.
// Without it, a pipe with no agent behind it is a script, which gets the
// app as it was (see envelope.Detect).
func WithSpecStrict() Option { return func(c *config) { c.strict = true } }

// WithOutputDigest has the envelope of a binary result written with
// --output carry data.sha256, computed with fn: pass filedigest.SHA256
// (package envelope/filedigest), which links crypto/sha256 — a cost every
// start pays, and why it is not the default.
func WithOutputDigest(fn func([]byte) string) Option { return func(c *config) { c.digest = fn } }

// WithLegacyOutput keeps the command lines of an app that shipped Duet
// before the CLI Agent Spec v1.8 working: --output with a format's name
// (--output json) picks the format, as --format does, and <TOOL>_OUTPUT is
// read when <TOOL>_FORMAT is unset; both answer with a DEPRECATED warning
// naming the new form. Any other --output value is a file path, as always.
func WithLegacyOutput() Option { return func(c *config) { c.legacyOutput = true } }

// WithWarningsOnStderr writes an agent's warnings on stderr as well as in
// the envelope ("WARNING [CODE]: what. Next: step"), for a tool that
// promises its diagnostics there (--quiet keeps stderr empty).
func WithWarningsOnStderr() Option { return func(c *config) { c.echoWarnings = true } }

// WithLeanAgentHelp leaves Duet's built-in commands (describe, serve,
// exec ...) out of the help a named agent reads — one the app's detector
// or a coding agent's own marker names, not a pipe that may be a script's
// — for a tool whose agents should see its own commands alone. They run as
// ever, and describe itself lists them; the built-in flags, which every
// command takes, stay in help.
func WithLeanAgentHelp() Option { return func(c *config) { c.leanHelp = true } }

// WithGrace sets how long a cancelled or timed-out command may take to return
// before the lifecycle answers without it. The default is 2 seconds.
func WithGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithSignals delivers SIGINT and SIGTERM from ch instead of from the process.
func WithSignals(ch <-chan os.Signal) Option { return func(c *config) { c.signals = ch } }

// WithRequestID replaces the generator of meta.request_id.
func WithRequestID(fn func() string) Option { return func(c *config) { c.requestID = fn } }

func newConfig(opts []Option) *config {
	c := &config{
		version:   "dev",
		stdin:     os.Stdin,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		lookupEnv: os.LookupEnv,
		environ:   os.Environ,
		grace:     2 * time.Second,
		requestID: newRequestID,
	}
	for _, o := range opts {
		o(c)
	}
	if c.tty == nil {
		c.tty = &ttys{isTerminal(c.stdin), isTerminal(c.stdout), isTerminal(c.stderr)}
	}
	return c
}

// getenv reads the environment the invocation was given.
func (c *config) getenv(k string) string {
	v, _ := c.lookupEnv(k)
	return v
}

func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
