package envelope

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by [Output.Item] once the invocation has answered
// without the command: after a timeout or a signal, when its grace period ran out.
var ErrClosed = errors.New("envelope: the invocation has already answered")

// DefaultMaxBytes is the size cap of one envelope: 1 MiB.
const DefaultMaxBytes = 1 << 20

// Settings configure an [Output]. The lifecycle fills them from the parsed
// built-in flags and the detected [Mode].
type Settings struct {
	Mode   Mode
	Stdout io.Writer
	Stderr io.Writer
	Quiet  bool // no progress, no logs below errors
	// ChildLog: the command declares that a wrapped program's log streams
	// to stderr (schema.Meta.ChildLog; see Output.ChildLog).
	ChildLog bool
	// EchoWarnings writes each warning of an envelope on stderr as well,
	// as a person reads it ("WARNING [CODE]: …"): for a tool whose agents
	// read diagnostics there too.
	EchoWarnings bool
	Verbose      bool     // debug logs
	DryRun       bool     // the command must report what it would change and change nothing
	Fields       []string // project data onto these top-level fields
	MaxBytes     int      // the envelope's size cap; 0 means DefaultMaxBytes
	Secrets      []string // values never to print: the values of sensitive flags
	Window       *Window  // set for list commands
	// OutputFile is --output: the answer goes to this file, in the
	// representation Mode.Format names, and stdout says what was written.
	OutputFile string
	// Digest, when set, gives the --output file of a binary result its
	// data.sha256 (see package envelope/filedigest).
	Digest func([]byte) string
	// Encoders re-encode the JSON envelope in the formats a feature adds
	// (feature/toon): each appends the envelope, given as JSON, to dst in
	// its format. The JSON is written as it is when one fails.
	Encoders map[Format]func(dst, envelope []byte) ([]byte, error)

	// long work
	Steps      []string // the command's declared steps, in order (schema.Meta.Steps)
	ResumeFrom string   // --resume-from: the declared step to start at
	TempRoot   string   // where the session's temp directory is made; "" for the system's
	Session    string   // names the session's temp directory: the request id
	// seeing what happened (issue 16: observe)
	TraceID          string       // the caller's trace id, on every log line
	Debug            bool         // --debug: the full diagnostic trace on stderr, secrets redacted
	Hush             bool         // nobody watches stderr (a pipe, CI, an agent): no progress, no info logs
	Progress         bool         // progress events all the same, for a caller that relays them (ProgressEnv)
	WarningsAsErrors bool         // a warning fails the invocation with exit 1
	Cwd              string       // the directory relative paths resolve against (--cwd); "" for the process's
	Unmask           bool         // --unmask: high-entropy values as they are
	HighEntropy      []string     // fields of data masked whatever they hold
	Config           ConfigChoice // the configuration files to read
	Display          Display      // where a browser or a window would open
	Retry            RetryBudget  // the command's own retries
	// discovery: an agent's token budget for data, and the command line
	// that fetches the page after a list the size cap cut, for
	// meta.truncation_hint (nil: the hint says which flags to pass, of
	// those Accepts says the command takes).
	Budget   *Budget
	NextPage func(limit int, cursor string) string
	// BeforeAnswer, when set, is called once by Finish when the answer is
	// settled — its exit code, warnings and data final — and before any
	// of it is written, for a record of the call that must precede the
	// answer (the audit log, REQ-O-030). A warning it returns joins the
	// answer's warnings (an envelope's warnings[]); an answer without an
	// envelope (--format jsonl, tsv, text, id) carries it as one JSON
	// WarningDetail line on stderr, or, to a person at a terminal, as the
	// other warnings are shown. It runs while Finish holds the Output: it
	// must not call the Output's methods, its Logger's included.
	BeforeAnswer func(Settled) *Warning
	// Accepts reports whether the command takes the flag --name: a hint
	// that tells an agent which flag to pass (meta.truncation_hint) names
	// only flags it takes, and a list it cannot page gets no next_cursor.
	// nil: a list command (Window set) takes --limit, --cursor and
	// --fields, as Duet gives it them, and any other command none.
	Accepts func(name string) bool
	// Trust (issue 16).
	Untrusted             bool // data comes from outside the tool: tag all of it (schema.Meta.Untrusted)
	NoInjectionProtection bool // --no-injection-protection: tag nothing, and say so
	// width (issue 16): prose for a person on stderr wraps at this many
	// columns (--width, else the terminal's); 0 never wraps.
	Width int
	// safety, config, filesystem (issue 16): see cache.go.
	NoCache  bool          // --no-cache, or --cache-ttl 0: no cached data may be used
	CacheTTL time.Duration // --cache-ttl: cached data older than this is missing; 0 for no limit
	// CheckVolatile warns when data holds the time of the call (see
	// VolatileNames, REQ-F-021): two identical calls would answer
	// different data.
	CheckVolatile bool
}

// Window is the page a list command was asked for.
type Window struct {
	Offset int
	Limit  int // 0 means all
	// Query names the list the window is of — the command and its
	// filters — so that a cursor given to another query is refused.
	Query string
	// After is the anchor of an anchored cursor ([EncodeAnchorCursor]):
	// the last item the previous page returned, for a list that pages
	// from an item rather than an offset (Offset is 0 then).
	After string
}

// Output is the handle a command writes its result to. Get it with [From].
//
// A command records one result with [Output.Result], or streams items with
// [Output.Item]; adds warnings; and, if it changes state, reports its
// [Effect]. The lifecycle turns what was recorded into one envelope for an
// agent or text for a person. All methods are safe for concurrent use.
type Output struct {
	s Settings

	mu         sync.Mutex
	result     any
	hasResult  bool
	paged      bool // result is one page, cut by the command; pageTotal is the whole list's length
	pageTotal  int  // -1: not known (PageMore), and pageMore says whether items follow
	pageMore   bool
	pagination *Pagination       // the pagination the command worked out itself (Paginated)
	items      []json.RawMessage // items streamed so far, when not written through
	childLogs  []*childLog       // the wrapped programs' logs (ChildLog)
	streamed   int
	lines      lines // the numbering and the effects of a stream's item lines (stream.go)
	tsvCols    bool
	warnings   []warning
	effect     Effect
	affected   any // what a dry run would change (WouldAffect)
	hasAffect  bool
	text       func(io.Writer) error
	progress   progress
	logger     func() *slog.Logger // built on first use: most commands never log
	writeErr   error
	closed     bool // Finish has run: later writes from an abandoned handler are dropped
	shown      int  // warnings a person was shown already (ShowWarnings)

	work work       // long work: steps, undo and cleanup hooks, temp directory, status
	ckpt checkpoint // a resumable command's saved state (checkpoint.go)
	// seeing what happened (issue 16: observe)
	retries int         // retries the command made (Retried)
	root    string      // the project root the command resolved
	offer   [][2]string // what the command would have opened on a display: key, target
	// discovery
	truncations []Truncation // values the command reports cut (Truncated)
	// Trust (issue 16): see External.
	external       bool
	externalFields []string
	// child processes (issue 16: kids): see Background.
	background [][2]string // data members for a background process: key, encoded value
	// safety, config, filesystem (issue 16): see cache.go.
	cacheUsed bool
	file      *outputFile // --output
	kept      []string    // files made with OutputFile, kept for the caller (Changes)
	// F-021: whether the data was checked for the time of the call (volatile.go)
	volatileChecked bool
}

type warning struct {
	code, message, next string
	context             map[string]any
}

// New returns an Output for one invocation, with the settings s points to
// (copied; nil means the zero Settings). A pointer, as slog's handler
// options: a Settings is large, and a value would take its room on the
// stack of every caller, under the app's own commands.
func New(s *Settings) *Output {
	o := &Output{}
	if s != nil {
		o.s = *s
	}
	if o.s.Stdout == nil {
		o.s.Stdout = io.Discard
	}
	if o.s.Stderr == nil {
		o.s.Stderr = io.Discard
	}
	if o.s.MaxBytes <= 0 {
		o.s.MaxBytes = DefaultMaxBytes
	}
	o.progress.out = o
	o.startFile(o.s.OutputFile)
	o.logger = sync.OnceValue(func() *slog.Logger { return slog.New(newRedactor(o.logHandler(), o.s.Secrets)) })
	return o
}

type ctxKey struct{}

// NewContext returns a context that carries out.
func NewContext(ctx context.Context, out *Output) context.Context {
	return context.WithValue(ctx, ctxKey{}, out)
}

// From returns the Output of the invocation ctx belongs to. Outside an
// invocation — a handler called directly from a unit test — it returns an
// Output that records results and writes nothing, so From never returns nil.
func From(ctx context.Context) *Output {
	if out, ok := ctx.Value(ctxKey{}).(*Output); ok {
		return out
	}
	return New(&Settings{Mode: Mode{Agent: true, Format: JSON}})
}

// Mode returns the audience the invocation is talking to.
func (o *Output) Mode() Mode { return o.s.Mode }

// DryRun reports whether the command must only report what it would change.
func (o *Output) DryRun() bool { return o.s.DryRun }

// Window returns the page a list command was asked for, and false for a
// command that is not a list. A command that pages in its own storage reads
// it and answers with [Output.Page]; otherwise the lifecycle pages the list
// the command gives [Output.Result], and encodes only the items of the page.
func (o *Output) Window() (Window, bool) {
	if o.s.Window == nil {
		return Window{}, false
	}
	return *o.s.Window, true
}

// Result records the command's result. It returns nil so that a handler can end
// with `return envelope.From(ctx).Result(v)`. A later call replaces an earlier one.
func (o *Output) Result(v any) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.result, o.hasResult, o.paged, o.pagination = v, true, false, nil
	}
	return nil
}

// Paginated records the result of a list command that pages itself and
// works out its own meta.pagination: one whose cursors anchor on an item
// ([EncodeAnchorCursor]) rather than an offset, as a log read newest to
// oldest does — an offset would move as entries are appended. v is the
// answer's data as it is (an object holding the page, say); the lifecycle
// neither windows nor paginates it again. Like Result, it returns nil.
func (o *Output) Paginated(v any, p Pagination) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.result, o.hasResult, o.paged, o.pagination = v, true, false, &p
	}
	return nil
}

// Page records the result of a list command that pages in its own storage:
// items are the page [Offset, Offset+Limit) of [Output.Window], cut by the
// command, of a list of total items. The envelope is the one Result would
// give for the whole list — same data, same meta.pagination — without the
// whole list ever being built. Like Result, it returns nil.
func (o *Output) Page(items any, total int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.result, o.hasResult, o.paged, o.pageTotal, o.pagination = items, true, true, total, nil
	}
	return nil
}

// PageMore records one page of a list whose length the command does not
// know — it read only as far as the page, as a log read from its end — and
// whether items follow it. meta.pagination's total is then null, as the
// spec allows, and has_more and next_cursor say whether and where to go on.
func (o *Output) PageMore(items any, more bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.result, o.hasResult, o.paged, o.pageTotal, o.pageMore, o.pagination = items, true, true, -1, more, nil
	}
	return nil
}

// Recorded returns the result recorded with [Output.Result], for tests.
func (o *Output) Recorded() (any, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.result, o.hasResult
}

// RecordedJSON returns the result recorded with [Output.Result] encoded as
// data is written — nil slices and maps empty, relative Paths on --cwd —
// for what keeps a copy of the answer (an idempotency record, the audit
// log); ok is false when there is none.
func (o *Output) RecordedJSON() (raw json.RawMessage, ok bool, err error) {
	o.mu.Lock()
	v, has, cwd := o.result, o.hasResult, o.s.Cwd
	o.mu.Unlock()
	if !has {
		return nil, false, nil
	}
	raw, err = marshal(rewrite(v, cwd))
	return raw, true, err
}

// Used reports whether the command answered through the Output: recorded a
// result or a page, streamed an item, or reported an effect. A command that
// did not writes its own output, and the lifecycle leaves it as it is.
func (o *Output) Used() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hasResult || o.streamed > 0 || o.effect != ""
}

// Answered reports whether the command answered through the Output with
// data — a result, a page or streamed items — rather than only an effect:
// a command that reports what it changed and prints the rest itself has
// what it printed for data.
func (o *Output) Answered() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hasResult || o.streamed > 0
}

// RenderText sets how the result is shown to a person, replacing the generic
// table or key: value rendering. It is not used for machine formats.
func (o *Output) RenderText(fn func(w io.Writer) error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text = fn
}

// Effect records what a mutating command did — or, in a dry run, what it
// would do: the envelope then reports e.Would(), such as would_delete.
func (o *Output) Effect(e Effect) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.effect = e
}

// WouldAffect records, in a dry run, what a live run would change: the
// records it would delete, the counts, whether it could be undone. It is
// reported as meta.would_affect beside the would_* effect, and left out of a
// live run's envelope.
func (o *Output) WouldAffect(v any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.affected, o.hasAffect = v, true
}

// Changed reports whether the command reported changing state: an effect
// other than noop, outside a dry run.
func (o *Output) Changed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.effect != "" && o.effect != Noop && !o.s.DryRun
}

// Effected returns the effect the command reported, for the lifecycle and
// tests: the live verb, before a dry run's would_ prefix.
func (o *Output) Effected() Effect {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.effect
}

// ProgressEnv is the variable that, set to 1, has a command write its
// progress events on stderr even where nobody watches it: for a caller
// that relays them, as an MCP server relays them to its client.
const ProgressEnv = "DUET_PROGRESS"

// Warn records a non-fatal problem: a stable code, what happened, and what to
// do next. The envelope's warnings carry it as {"code": code, "message":
// "message. Next: next"}; a person reads it on stderr as
// "WARNING [CODE]: message. Next: next". The same warning given twice —
// by a command's Meta.Validate hook and again by the command — is reported
// once.
func (o *Output) Warn(code, message, next string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	w := warning{code: code, message: o.redact(message), next: o.redact(next)}
	for _, had := range o.warnings {
		if had.code == w.code && had.message == w.message && had.next == w.next && had.context == nil {
			return // said once is enough: a check run in validation and again by the command
		}
	}
	o.warnings = append(o.warnings, w)
}

// ShowWarnings writes the warnings recorded so far on stderr now, for a
// person (text, tsv or id output), instead of after the result: for a
// command about to give the terminal to another program, whose screen would
// bury them. In JSON and JSONL they stay for the envelope, where an agent
// reads them.
func (o *Output) ShowWarnings() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.enveloped() {
		return
	}
	var b strings.Builder
	o.writeWarnings(&b)
	o.writeProse(b.String())
}

// Item emits one item of a stream. With --format jsonl, tsv or id and for a
// person it is written at once; in a JSON envelope the items become data.
// A jsonl stream numbers its item lines (see [Output.Event] for a stream
// of changes).
func (o *Output) Item(v any) error { return o.item(v, "") }

// Event emits one event of a mutating stream: the item v and what it did,
// effect. Its line carries its own "effect" — in a dry run the would_ form,
// such as would_create or would_noop — and the stream's summary line counts
// the events by effect in "effects" (a buffered answer in meta.effects).
// The command's effect as a whole (meta.effect) is the one its events had
// other than noop, updated when they had several, noop when none changed
// anything. A stream that fails after an event that changed something is
// not retryable: the same call would repeat it.
func (o *Output) Event(effect Effect, v any) error {
	if effect == "" {
		return errors.New("envelope: an event needs an effect")
	}
	return o.item(v, effect)
}

func (o *Output) item(v any, effect Effect) error {
	raw, err := marshal(rewrite(v, o.s.Cwd))
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return ErrClosed
	}
	o.streamed++
	if effect != "" {
		o.effect = o.lines.count(effect)
		if o.s.DryRun {
			effect = effect.Would()
		}
	}
	if len(o.s.Fields) > 0 {
		if raw, err = projectOne(raw, o.s.Fields); err != nil {
			return err
		}
	}
	raw = o.maskItem(raw)
	raw = o.tagLocked(raw)
	switch {
	case o.wholeEnvelope(o.s.Mode.Format):
		o.items = append(o.items, o.lines.line(raw, false, effect))
		return nil
	case o.s.Mode.Format == JSONL:
		return o.writeStdout(append(o.lines.line(raw, true, effect), '\n'))
	}
	raw = o.lines.line(raw, false, effect)
	v2, err := decodeOrdered(raw)
	if err != nil {
		return err
	}
	o.progress.clearLocked()
	return o.writeText(func(w io.Writer) error {
		switch o.s.Mode.Format {
		case TSV:
			header := !o.tsvCols
			o.tsvCols = true
			return renderTSV(w, []any{v2}, header)
		case ID:
			return renderIDs(w, []any{v2})
		default:
			return renderLine(w, v2, Style{Color: o.s.Mode.Color})
		}
	})
}

// writeStdout writes to stdout and remembers the first failure, so that a
// reader that went away (EPIPE) ends the invocation quietly.
func (o *Output) writeStdout(b []byte) error {
	if o.writeErr != nil {
		return o.writeErr
	}
	_, err := o.s.Stdout.Write(b)
	if err != nil {
		o.writeErr = err
	}
	return err
}

func (o *Output) writeText(fn func(io.Writer) error) error {
	w := &errWriter{o: o}
	if err := fn(w); err != nil {
		return err
	}
	return o.writeErr
}

type errWriter struct{ o *Output }

func (w *errWriter) Write(p []byte) (int, error) {
	if err := w.o.writeStdout(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteErr returns the first error writing to stdout, such as EPIPE from a
// reader that closed the pipe early.
func (o *Output) WriteErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.writeErr
}

func (o *Output) redact(s string) string { return redactValues(s, o.s.Secrets) }
