package envelope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/jsonw"
)

// ConfigChoice is what the invocation settled about the app's configuration
// files (see adapters.WithConfig): a command that reads its own files reads
// these, so that --no-config and --config hold for it too.
type ConfigChoice struct {
	Skip    bool     // --no-config: read no configuration file; the environment still applies
	Files   []string // the files to read, highest precedence first: those found, or --config's alone
	Context string   // --context: the named context to use, "" for the default
}

// Display is what the invocation knows of the screen a command may open a
// browser or a window on (see [Output.Open]).
type Display struct {
	Headless bool // nobody could see a window: no display, a pipe, CI or SSH
	// Behavior is what the command declares it does where there is no
	// display: "emit_in_output", "skip" or "error"; "" when it declares
	// no operation on a display.
	Behavior string
	Launch   func(target string) error // shows target; nil shows nothing
}

// RetryBudget is how often, and how far apart, a command that retries its
// own work may retry (--retries, --retry-delay).
type RetryBudget struct {
	Max   int
	Delay time.Duration
}

// Cwd returns the directory the invocation's relative paths resolve
// against: --cwd when given, else the working directory it started in.
func (o *Output) Cwd() string {
	if o.s.Cwd != "" {
		return o.s.Cwd
	}
	dir, _ := os.Getwd()
	return dir
}

// Abs returns path made absolute against [Output.Cwd], cleaned. A command
// given --cwd resolves its relative paths with it: the process's own
// working directory never changes.
func (o *Output) Abs(path string) Path {
	if path == "" || filepath.IsAbs(path) {
		return Path(filepath.Clean(path))
	}
	return Path(filepath.Join(o.Cwd(), path))
}

// ProjectRoot records the project directory the command resolved (the
// nearest directory with a .git, say), reported as meta.project_root.
func (o *Output) ProjectRoot(dir string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.root = string(o.absLocked(dir))
}

func (o *Output) absLocked(p string) Path {
	if p == "" || filepath.IsAbs(p) || o.s.Cwd == "" {
		return Path(p).abs()
	}
	return Path(filepath.Join(o.s.Cwd, p))
}

// Config returns what the invocation settled about configuration files.
func (o *Output) Config() ConfigChoice { return o.s.Config }

// Retried counts one retry of the command's own work, reported as
// meta.retries. A command that retries with [Output.Retry] need not call it.
func (o *Output) Retried() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.retries++
}

// RetryBudget returns how often, and how far apart, the command may retry.
func (o *Output) RetryBudget() RetryBudget { return o.s.Retry }

// Retry runs fn, and again after each failure that may pass on a second
// try, within the budget of --retries and --retry-delay: every retry is
// counted in meta.retries, so an agent knows not to retry once more itself.
// An error that says it is not retryable ends it at once. When the budget
// runs out, the last error is returned marked not retryable.
func (o *Output) Retry(ctx context.Context, fn func(context.Context) error) error {
	b := o.s.Retry
	for attempt := 0; ; attempt++ {
		err := fn(ctx)
		if err == nil || !mayPass(err) || ctx.Err() != nil {
			return err
		}
		if attempt >= b.Max {
			if attempt == 0 {
				return err // no retry was allowed: the error stands as it is
			}
			e := As(err)
			e.Message = fmt.Sprintf("%s (after %d attempts)", e.Message, attempt+1)
			return e.WithoutRetry()
		}
		t := time.NewTimer(b.Delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		o.Retried()
	}
}

// mayPass reports whether a failure may pass on a second try: any error but
// one that says it will not (a typed error, by its retryable mark or its
// exit code's entry).
func mayPass(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	if e.retrySet {
		return e.Retryable
	}
	entry, _ := e.Exit.Entry()
	return entry.Retryable
}

// Open shows a URL, or a file, on the display: in a browser or the
// desktop's viewer. Where there is none (see [Display]) the command's
// declared behaviour applies instead: emit_in_output answers with
// data.open_url (or data.open_path) and "opened": false, added to the
// command's data; skip warns and goes on; error returns a PRECONDITION
// error (exit 4). A command that declares no operation on a display gets an
// INVALID_DECLARATION error: it must say what happens without one.
func (o *Output) Open(target string) error {
	d := o.s.Display
	if d.Behavior == "" {
		return Errorf(exitcode.GeneralError, errcode.InvalidDeclaration, "the command opened %q but declares no operation on a display", target).
			WithSuggestion("this is a bug in the tool: declare schema.Meta.GUI and Headless")
	}
	if !d.Headless {
		if d.Launch == nil {
			return nil
		}
		return d.Launch(target)
	}
	key := "open_url"
	if !strings.Contains(target, "://") {
		key = "open_path"
		target = string(o.Abs(target))
	}
	switch d.Behavior {
	case "skip":
		o.Warn("GUI_SKIPPED", fmt.Sprintf("no display: %s was not opened", target), "open it where there is a display")
		return nil
	case "error":
		return Errorf(exitcode.Precondition, "NO_DISPLAY", "no display to open %s on", target).
			WithPhase(Execution).
			WithSuggestion("run it where there is a display (DISPLAY or WAYLAND_DISPLAY set, a terminal, not CI)")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.offer = append(o.offer, [2]string{key, target})
	return nil
}

// observeLocked settles, before the answer is encoded, what the command
// reported of itself (retries, project root, what it would have opened) and
// whether its warnings fail it.
func (o *Output) observeLocked(meta *Meta, fail *Error) *Error {
	meta.Retries += o.retries
	if o.root != "" {
		meta.ProjectRoot = o.root
	}
	if len(o.offer) > 0 && !o.hasResult && o.streamed == 0 {
		o.result, o.hasResult = map[string]any{}, true
	}
	if fail == nil && o.s.WarningsAsErrors && len(o.warnings) > 0 {
		fail = Errorf(exitcode.GeneralError, "WARNINGS_AS_ERRORS", "the command produced %d warning(s), treated as errors (--warnings-as-errors)", len(o.warnings)).
			WithPhase(Execution).WithoutRetry().
			WithSuggestion("resolve the warnings listed in warnings, or run without --warnings-as-errors")
	}
	return fail
}

// finishData masks high-entropy values of encoded data (unless --unmask)
// and adds what the command would have opened on a display.
func (o *Output) finishData(p payload, err error) (payload, error) {
	if err != nil {
		return p, err
	}
	p = o.backgroundData(p)
	if !p.list && len(o.offer) > 0 && len(p.one) > 1 && p.one[0] == '{' {
		b := []byte{'{'}
		for _, kv := range o.offer {
			b = append(jsonw.String(b, kv[0]), ':')
			b = append(jsonw.String(b, kv[1]), ',')
		}
		b = append(b, `"opened":false`...)
		if rest := p.one[1:]; len(rest) > 1 {
			b = append(b, ',')
			b = append(b, rest...)
		} else {
			b = append(b, '}')
		}
		p.one = b
	}
	if o.s.Unmask || !o.enveloped() {
		return p, nil
	}
	if !p.list {
		p.one = maskJSON(p.one, o.s.HighEntropy)
		return p, nil
	}
	for i, it := range p.items { // the payload's own slice: encoded for this answer
		p.items[i] = maskJSON(it, o.s.HighEntropy)
	}
	return p, nil
}

// maskItem masks one streamed item.
func (o *Output) maskItem(raw json.RawMessage) json.RawMessage {
	if o.s.Unmask || !o.enveloped() {
		return raw
	}
	return maskJSON(raw, o.s.HighEntropy)
}
