package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// The programs a command starts (package proc): the lifecycle gives each
// command it runs a session, which tracks them, passes the invocation's
// signals on to them and stops what is left when the command ends; and it
// checks, before the command runs, the values a command passes to a
// program.

// WithUpdateNotifierSuppression registers fn, which silences an update
// notifier proc's environment cannot reach: one of a library the app uses
// in-process, that checks for updates its own way. fn runs before each
// command the lifecycle runs where nobody can answer (an agent, a script).
func WithUpdateNotifierSuppression(fn func()) Option {
	return func(c *config) { c.quietUpdates = append(c.quietUpdates, fn) }
}

// startSession gives the command about to run its session, in ctx.
func (inv *invocation) startSession(ctx context.Context) context.Context {
	cfg, n := inv.cfg, inv.call.node
	tool := inv.root.Name
	trace := inv.obs.trace // <TOOL>_TRACE_ID, else TOOL_TRACE_ID (F-025)
	if trace == "" {
		trace = inv.meta.RequestID
	}
	// Each program's command line is logged as its argv, a JSON array
	// (REQ-F-062): under --debug (or <TOOL>_DEBUG) on the debug trace,
	// secrets redacted as the rest of it is; under --verbose alone as a
	// plain "run [...]" line.
	var log io.Writer
	started := inv.watch.started // for F-002: a program may change anything (changes.go)
	switch {
	case inv.out != nil && inv.out.Debugging():
		logger := inv.out.Logger()
		started = func(argv []string) {
			inv.watch.started(argv)
			logger.Debug("run", "argv", debugArgv(argv))
		}
	case inv.call.on(flagname.Verbose) && inv.obs.trace != "":
		log = tracedLines{w: cfg.stderr, trace: inv.obs.trace} // F-025: a log line carries the caller's trace
	case inv.call.on(flagname.Verbose):
		log = cfg.stderr
	}
	var env []string // nil: the process's, read when a program starts
	if cfg.envGiven {
		env = cfg.environ()
	}
	inv.session = proc.NewSession(proc.Options{
		Tool:           tool,
		RequestID:      inv.meta.RequestID,
		TraceID:        trace,
		Environ:        env,
		Interactive:    inv.mode.Interactive,
		Color:          inv.mode.Color,
		PreserveLocale: n.Meta.PreserveLocale,
		Background:     n.Meta.Background != nil,
		Grace:          cfg.grace,
		TempDir:        tempDir(cfg),
		Log:            log,
		Started:        started,
		Alternatives:   editorAlternatives(n),
		Piped:          !inv.mode.Terminal,
	})
	inv.quietUpdates()
	inv.warnPipefail()
	return proc.NewContext(ctx, inv.session)
}

// debugArgv is a program's argv as --debug shows it: a JSON array, so that
// the quoting shows, with the value of a secret-named flag (--token x,
// --password=x) redacted and a high-entropy value (a JWT, a key in base64)
// masked, as --debug's trace of the command's own flags is. The logger
// then redacts the values of the command's sensitive flags wherever they
// appear.
func debugArgv(argv []string) []string {
	shown := make([]string, len(argv))
	secretNext := false // the flag before names a secret: this is its value
	for i, a := range argv {
		v := a
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		flag := i > 0 && strings.HasPrefix(a, "-") && len(a) > 1
		switch {
		case secretNext && !flag:
			v = envelope.Redacted
		case flag && inline && envelope.SecretName(name):
			v = a[:len(a)-len(value)] + envelope.Redacted
		case flag && inline:
			if m, ok := envelope.MaskValue(value, false); ok {
				v = a[:len(a)-len(value)] + m
			}
		default:
			if m, ok := envelope.MaskValue(a, false); ok {
				v = m
			}
		}
		secretNext = flag && !inline && envelope.SecretName(name)
		shown[i] = v
	}
	return shown
}

// tempDir is the temporary directory of the invocation's environment.
func tempDir(cfg *config) string {
	if tmp, _ := cfg.lookupEnv("TMPDIR"); tmp != "" {
		return tmp
	}
	return os.TempDir()
}

// endSession stops what the command left running, before the answer, and
// names the PID file in meta when the command started anything.
func (inv *invocation) endSession() {
	if inv.session == nil {
		return
	}
	inv.session.End()
	inv.meta.SessionPIDFile = inv.session.PIDFile()
	inv.reportBackground()
}

// forward passes a signal the invocation received on to the programs the
// command started.
func (inv *invocation) forward(s os.Signal) {
	if inv.session != nil {
		inv.session.Signal(s)
	}
}

// checkSubprocess refuses, before the command runs, a shell metacharacter
// in a value the command passes to a program (flags and arguments marked
// Subprocess): from the command line, the environment or a saved profile.
func (c *call) checkSubprocess(lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) {
	if c.help || c.version || c.on(flagname.Schema) {
		return
	}
	for f := range c.node.Accepted() {
		if !f.Subprocess {
			continue
		}
		given, what := c.values[f.Name], "flag --"+f.Name
		for _, e := range f.Env {
			if v, ok := lookupEnv(e); ok && len(given) == 0 {
				given, what = []string{v}, what+" (from $"+e+")"
			}
		}
		if len(given) == 0 {
			if v := fromProfile(f); v != "" {
				given, what = splitFor(f, v), what+" (from a saved profile)"
			}
		}
		for _, v := range given {
			c.metacharacter(f.Name, what, v)
		}
	}
	declared := c.node.Args
	for i, v := range c.args {
		if len(declared) == 0 {
			break
		}
		a := declared[min(i, len(declared)-1)]
		if i >= len(declared) && !a.Variadic {
			break
		}
		if a.Subprocess {
			c.metacharacter(a.Name, "argument <"+a.Name+">", v)
		}
	}
}

func (c *call) metacharacter(field, what, v string) {
	if msg := proc.MetacharacterMessage(what, v); msg != "" {
		c.problem(proc.CodeMetacharacter, field, "%s", msg)
		c.problems[len(c.problems)-1].Suggestion = "pass the value without shell metacharacters ; | & $ ( ) < > ` or a line break: it is given to a program"
	}
}

// checkProc checks a command's declarations of the programs it starts.
func checkProc(c *schema.Command) error {
	var errs []error
	if c.Meta.Subprocess.Binary == "" {
		for _, f := range c.Flags {
			if f.Subprocess {
				errs = append(errs, fmt.Errorf("flag --%s is passed to a program (Subprocess), but Meta.Subprocess.Binary does not name the program", f.Name))
			}
		}
		for _, a := range c.Args {
			if a.Subprocess {
				errs = append(errs, fmt.Errorf("argument <%s> is passed to a program (Subprocess), but Meta.Subprocess.Binary does not name the program", a.Name))
			}
		}
	}
	if b := c.Meta.Background; b != nil {
		if b.CleanupCommand == "" {
			errs = append(errs, errors.New("Meta.Background needs a CleanupCommand: the command that stops the background process"))
		}
		if b.MaxLifetime <= 0 {
			errs = append(errs, errors.New("Meta.Background needs a MaxLifetime: how long the background process may run"))
		}
	}
	// A child log needs stdout to hold only the envelope (REQ-F-038).
	switch {
	case c.Meta.ChildLog && c.Delegates():
		errs = append(errs, errors.New("Meta.ChildLog: a passthrough command cannot stream a child log on stderr: its stdout is the delegated tool's, and its envelope the last line of stderr (REQ-C-031)"))
	case c.Meta.ChildLog && c.Meta.Protocol != "":
		errs = append(errs, fmt.Errorf("Meta.ChildLog: a protocol server (Meta.Protocol %q) cannot stream a child log on stderr: its streams are its protocol's (REQ-C-032)", c.Meta.Protocol))
	}
	return errors.Join(errs...)
}

// tracedLines ends each line written to w with the caller's trace id, as
// trace_id=<id> (F-025). Each Write is one line.
type tracedLines struct {
	w     io.Writer
	trace string
}

func (t tracedLines) Write(p []byte) (int, error) {
	line := strings.TrimSuffix(string(p), "\n")
	if _, err := fmt.Fprintf(t.w, "%s trace_id=%s\n", line, t.trace); err != nil {
		return 0, err
	}
	return len(p), nil
}
