package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jsonw"
)

// Finish writes what the invocation produced, once: for an agent one envelope
// (or a jsonl stream closed by its summary line, or tsv or ids); for a person
// the text rendering on stdout and warnings and the error on stderr.
//
// fail is the invocation's error, nil on success. Finish returns the error it
// actually reported: fail, or a GENERAL_ERROR when the result could not be
// encoded, or nil. Stdout write failures are left for [Output.WriteErr].
func (o *Output) Finish(meta Meta, fail *Error) *Error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.progress.clearLocked()
	o.flushChildLogsLocked()
	o.closed = true
	fail = o.observeLocked(&meta, fail)
	o.truncatedLocked(&meta)
	o.trustLocked(&meta)
	meta.DryRun = meta.DryRun || o.s.DryRun
	meta.Effect = o.effect
	meta.Effects = o.lines.counts(meta.DryRun)
	if fail != nil && o.lines.changed(meta.DryRun) {
		// A stream that changed something before it failed would change
		// it again on the same call (REQ-O-004).
		fail.Retryable, fail.RetryAfterMS, fail.RetryStrategy = false, 0, ""
	}
	if meta.DryRun {
		meta.Effect = o.effect.Would()
		if o.hasAffect {
			if raw, err := marshal(o.affected); err == nil {
				meta.WouldAffect = raw
			}
		}
	}

	var p payload
	if _, raw := o.binaryLocked(); fail == nil && raw && o.file != nil {
		p = payload{one: json.RawMessage("null")} // written raw to the file, never encoded (finishFile)
	} else if fail == nil {
		var err error
		if p, err = o.payloadLocked(&meta); err != nil {
			fail = Errorf(exitcode.GeneralError, "ENCODE_FAILED", "the result could not be encoded: %w", err).WithPhase(Execution)
			p = payload{one: json.RawMessage("null")}
		}
	} else {
		// data is null on a failure (ResponseEnvelope 2.x) unless the
		// command declared its result a failure payload.
		p = payload{one: json.RawMessage("null")}
		effect, affected := meta.Effect, meta.WouldAffect
		meta.Effect, meta.WouldAffect = "", nil
		switch {
		case fail.keepResult && o.hasResult: // a failure that still answers
			if kept, err := o.payloadLocked(&meta); err == nil {
				p, meta.Effect, meta.WouldAffect = kept, effect, affected
			}
		case fail.keepPreview:
			meta.Effect, meta.WouldAffect = effect, affected
		}
		if fail.partial {
			p = payload{one: json.RawMessage(`{"partial":true}`)}
		}
	}
	if fail != nil {
		redactError(fail, o.s.Secrets)
		o.trustContextLocked(fail)
	}
	meta.ExitCode = ExitCode(fail)
	o.settledLocked(meta)

	if o.s.EchoWarnings && o.enveloped() && !o.s.Quiet {
		var b strings.Builder
		o.writeWarnings(&b) // as a person is shown them
		o.writeProse(b.String())
	}
	if o.file != nil {
		return o.finishFile(p, meta, fail)
	}
	return o.write(o.s.Mode.Format, p, meta, fail)
}

// Settled is what an answer says once Finish has settled it, as
// Settings.BeforeAnswer is given it.
type Settled struct {
	ExitCode int
	Warnings []string       // the codes of its warnings, in order
	Effects  map[string]int // its events by effect (see Output.EffectCounts)
	// Result is the result the command recorded, encoded as data writes
	// it, or nil when it recorded none — on a failure too.
	Result json.RawMessage
}

// settledLocked calls Settings.BeforeAnswer, and keeps the warning it
// returns where the answer will carry it.
func (o *Output) settledLocked(meta Meta) {
	if o.s.BeforeAnswer == nil {
		return
	}
	st := Settled{ExitCode: meta.ExitCode, Effects: o.lines.counts(o.s.DryRun)}
	for _, w := range o.warnings {
		st.Warnings = append(st.Warnings, w.code)
	}
	if o.hasResult {
		if raw, err := marshal(rewrite(o.result, o.s.Cwd)); err == nil {
			st.Result = raw
		}
	}
	w := o.s.BeforeAnswer(st)
	switch {
	case w == nil:
	case o.wholeEnvelope(o.s.Mode.Format) || o.s.Mode.Terminal && !o.s.Mode.Agent:
		o.warnings = append(o.warnings, warning{code: w.Code, message: o.redact(w.Message), context: w.Context})
	default:
		line, err := marshal(Warning{Code: w.Code, Message: o.redact(w.Message), Context: w.Context})
		if err == nil {
			o.s.Stderr.Write(append(line, '\n'))
		}
	}
}

// wholeEnvelope reports whether the answer in f is the whole envelope: JSON,
// or JSON re-encoded by a feature's encoder (toon, Settings.Encoders).
func (o *Output) wholeEnvelope(f Format) bool { return f == JSON || o.s.Encoders[f] != nil }

// enveloped reports whether the answer answers with the envelope — whole
// or as jsonl's summary line — rather than with data alone.
func (o *Output) enveloped() bool {
	return o.s.Mode.Format == JSONL || o.wholeEnvelope(o.s.Mode.Format)
}

// write writes the answer in format f, and returns the error it reported.
func (o *Output) write(f Format, p payload, meta Meta, fail *Error) *Error {
	switch {
	case o.wholeEnvelope(f):
		o.writeEnvelope(f, p, meta, fail)
	case f == JSONL:
		o.writeJSONL(p, meta, fail)
	default:
		if fail == nil || fail.keepResult {
			if err := o.writeRendered(f, p); err != nil && !o.readerGone() {
				fail = As(err)
				fail.Phase = Execution
				meta.ExitCode = ExitCode(fail)
			}
		}
		if o.readerGone() {
			// The reader closed stdout (`tool list | head -1`): that is its
			// choice, not a failure, and the invocation ends silently
			// (REQ-F-014) — no "broken pipe" error, and nothing else on
			// stderr either, whichever path of the rendering hit it.
			return fail
		}
		o.writeHumanDiagnostics(fail)
	}
	return fail
}

// readerGone reports whether a write to stdout found its reader gone
// (EPIPE): what follows of the answer has nobody to read it.
func (o *Output) readerGone() bool {
	return o.writeErr != nil && errors.Is(o.writeErr, syscall.EPIPE)
}

// payloadLocked encodes the result, pages a list and projects fields.
func (o *Output) payloadLocked(meta *Meta) (payload, error) {
	var p payload
	switch {
	case o.hasResult:
		window := o.s.Window
		if meta.Pagination != nil || o.paged || o.pagination != nil {
			window = nil // the command paged its result itself
		}
		var err error
		if p, err = encodePayload(rewrite(o.result, o.s.Cwd), window); err != nil {
			return payload{}, err
		}
		switch {
		case p.list && o.paged && o.s.Window != nil && o.pageTotal < 0:
			p.total, p.start = -1, o.s.Window.Offset
			meta.Pagination = &Pagination{Returned: len(p.items)}
			if o.pageMore {
				meta.Pagination = o.paginationFor(-1, p.start, len(p.items))
			}
		case p.list && o.paged && o.s.Window != nil:
			p.total, p.start = o.pageTotal, min(o.s.Window.Offset, o.pageTotal)
			meta.Pagination = o.paginationFor(p.total, p.start, len(p.items))
		case p.list && window != nil:
			meta.Pagination = o.paginationFor(p.total, p.start, len(p.items))
		case o.pagination != nil:
			pg := *o.pagination
			meta.Pagination = &pg
		}
	case o.streamed > 0:
		meta.Stream = &Stream{Items: o.streamed}
		o.streamPagination(meta, o.streamed)
		if !o.wholeEnvelope(o.s.Mode.Format) {
			return payload{one: json.RawMessage("null")}, nil
		}
		return payload{list: true, items: o.items}, nil // already projected
	default:
		return payload{one: json.RawMessage("null")}, nil
	}
	p, err := o.finishData(p.project(o.s.Fields))
	if err != nil {
		return payload{}, err
	}
	o.volatileLocked(p)
	return o.budgetLocked(o.tagPayloadLocked(p), meta), nil
}

// paginationFor is the pagination of returned items from start of a list
// of total; a total below 0 is not known, and more items follow. Its
// cursor is bound to the window's query.
func (o *Output) paginationFor(total, start, returned int) *Pagination {
	pg := &Pagination{Total: &total, Returned: returned}
	if total < 0 {
		pg.Total, total = nil, start+returned+1
	}
	if start+returned < total {
		pg.HasMore, pg.Truncated = true, true
		c := EncodeCursor(start+returned, o.query())
		pg.NextCursor = &c
	}
	return pg
}

// ExitCode is the process exit code an invocation that reports fail ends
// with: 0 for nil, and never 0 for an error.
func ExitCode(fail *Error) int {
	switch {
	case fail == nil:
		return int(exitcode.Success)
	case fail.Exit == exitcode.Success:
		return int(exitcode.GeneralError) // an error cannot succeed
	}
	return int(fail.Exit)
}

func (o *Output) envelope(p payload, meta Meta, fail *Error) Envelope {
	warnings := make([]Warning, len(o.warnings))
	for i, w := range o.warnings {
		warnings[i] = w.wire()
	}
	return Envelope{OK: fail == nil, Data: p.json(), Error: fail, Warnings: warnings, Meta: meta}
}

// writeEnvelope writes one envelope, cut to the size cap: a list loses items
// from its end, anything else its data, and meta says so.
func (o *Output) writeEnvelope(f Format, p payload, meta Meta, fail *Error) {
	raw := o.envelope(p, meta, fail).appendJSON(nil)
	if len(raw)+1 > o.s.MaxBytes {
		raw = o.capped(p, meta, fail)
	}
	// data was cleaned when encoded; the error and warnings are cleaned here
	raw = cleanJSON(raw)
	if encode := o.s.Encoders[f]; encode != nil {
		// The same envelope, re-encoded: what JSON's encoder wrote is
		// valid JSON, so this fails only on a bug, and the JSON an agent
		// can read anyway is the better answer then.
		if t, err := encode(nil, raw); err == nil {
			raw = t
		}
	}
	o.writeStdout(append(raw, '\n'))
}

func (o *Output) capped(p payload, meta Meta, fail *Error) []byte {
	meta.Truncated = true
	// The hint names only flags the command takes (REQ-F-052): a command
	// that returns a list but does not page it (an import's report, say)
	// has no --limit or --cursor to pass, and no next_cursor to give.
	pages := o.accepts(flagname.Limit) && o.accepts(flagname.Cursor)
	narrow := ""
	if o.accepts(flagname.Fields) {
		narrow = "narrow it with --fields"
	}
	if !p.list {
		meta.TruncationHint = hintJoin(fmt.Sprintf("the result exceeded %d bytes and was dropped", o.s.MaxBytes), narrow)
		o.capWarningLocked(len(p.one), 0)
		return o.envelope(payload{one: json.RawMessage("null")}, meta, fail).appendJSON(nil)
	}
	total, start := len(p.items), 0
	if meta.Pagination != nil {
		if meta.Pagination.Total != nil {
			total = *meta.Pagination.Total
		}
		if o.s.Window != nil {
			start = min(o.s.Window.Offset, total)
		}
	}
	// The envelope's size for n items is that of the envelope around an empty
	// list plus the items and their commas: only the small frame is encoded
	// while searching, and the whole envelope once at the end.
	prefix := make([]int, len(p.items)+1)
	for i, it := range p.items {
		prefix[i+1] = prefix[i] + len(it)
	}
	withItems := func(n int) Meta {
		m := meta
		m.Pagination = nil
		cut := fmt.Sprintf("output exceeded %d bytes: returned %d of %d items", o.s.MaxBytes, n, total)
		if pages {
			m.Pagination = o.paginationFor(total, start, n)
			m.TruncationHint = hintJoin(cut, fmt.Sprintf("pass --limit %d with --cursor from meta.pagination.next_cursor", max(n, 1)), narrow)
		} else {
			m.TruncationHint = hintJoin(cut, "this command does not page its result", narrow)
		}
		o.capCountsLocked(&m, total, start, n, pages)
		return m
	}
	fits := func(n int) bool {
		frame := len(o.envelope(payload{list: true}, withItems(n), fail).appendJSON(nil))
		return frame+prefix[n]+max(n-1, 0)+1 <= o.s.MaxBytes
	}
	// The warning is counted with the most bytes it may report, so the
	// envelope the search found room for only shrinks when it is filled in.
	o.capWarningLocked(prefix[len(p.items)], prefix[len(p.items)])
	lo, hi := 0, len(p.items) // the largest n that fits lies in [lo, hi]
	for lo < hi {
		if mid := (lo + hi + 1) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	o.warnings = o.warnings[:len(o.warnings)-1]
	o.capWarningLocked(prefix[len(p.items)], prefix[lo])
	return o.envelope(payload{list: true, items: p.items[:lo]}, withItems(lo), fail).appendJSON(nil)
}

// accepts reports whether the command takes --name (Settings.Accepts).
func (o *Output) accepts(name string) bool {
	if o.s.Accepts != nil {
		return o.s.Accepts(name)
	}
	switch name {
	case flagname.Limit, flagname.Cursor, flagname.Fields:
		return o.s.Window != nil // Duet gives a list command these
	}
	return false
}

// hintJoin joins a hint's non-empty parts with "; ".
func hintJoin(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// writeJSONL writes the items not yet streamed, one per line, then the
// stream's one terminal line (REQ-O-004): the summary line on success, or
// the error envelope.
func (o *Output) writeJSONL(p payload, meta Meta, fail *Error) {
	var b bytes.Buffer
	if fail != nil {
		if o.lines.numbering != unnumbered {
			emitted := o.lines.seq
			meta.ItemsEmitted = &emitted
		}
		b.Write(cleanJSON(o.envelope(p, meta, fail).appendJSON(nil)))
		b.WriteByte('\n')
		o.writeStdout(b.Bytes())
		return
	}
	if p.list {
		for _, it := range p.items {
			b.Write(o.lines.line(it, true, ""))
			b.WriteByte('\n')
		}
		if meta.Stream == nil {
			meta.Stream = &Stream{Items: len(p.items)}
		}
	} else if !bytes.Equal(p.one, []byte("null")) {
		b.Write(o.lines.line(p.one, true, ""))
		b.WriteByte('\n')
		meta.Stream = &Stream{Items: 1}
	}
	b.Write(cleanJSON(o.summaryLine(meta)))
	b.WriteByte('\n')
	o.writeStdout(b.Bytes())
}

// summaryLine is a successful stream's last line: "_summary": true, the
// number of items, and the warnings and meta an envelope would carry.
func (o *Output) summaryLine(meta Meta) []byte {
	total := 0
	if meta.Stream != nil {
		total = meta.Stream.Items
	}
	b := append([]byte(nil), `{"_summary":true,"total":`...)
	b = jsonw.Int(b, int64(total))
	if o.lines.numbering != unnumbered { // an empty stream counts its 0 lines
		b = append(b, `,"_count":`...)
		b = jsonw.Int(b, int64(o.lines.seq))
	}
	b = append(b, `,"duration_ms":`...)
	b = jsonw.Int(b, meta.DurationMS)
	if meta.DryRun {
		b = append(b, `,"dry_run":true`...)
	}
	if len(meta.Effects) > 0 { // the summary's own, not meta's (ResponseEnvelope 2.2)
		b = append(b, `,"effects":`...)
		b = appendCounts(b, meta.Effects)
		meta.Effects = nil
	}
	env := o.envelope(payload{}, meta, nil)
	b = append(b, `,"warnings":`...)
	b = appendWarnings(b, env.Warnings)
	b = append(b, `,"meta":`...)
	b = meta.appendJSON(b)
	return append(b, '}')
}

// writeRendered writes a successful result as text, tsv or ids.
func (o *Output) writeRendered(f Format, p payload) error {
	if o.streamed > 0 && !o.hasResult {
		return nil // every item was written as it came
	}
	if f == Text && o.text != nil {
		return o.writeText(o.text)
	}
	v, err := decodeOrdered(p.json())
	if err != nil {
		return err
	}
	return o.writeText(func(w io.Writer) error {
		switch f {
		case TSV:
			return renderTSV(w, v, true)
		case ID:
			return renderIDs(w, v)
		default:
			return renderText(w, v, Style{Color: o.s.Mode.Color})
		}
	})
}

// writeHumanDiagnostics writes warnings and the error on stderr.
func (o *Output) writeHumanDiagnostics(fail *Error) {
	if o.s.Quiet {
		return // --quiet: not a byte on stderr; the exit code tells
	}
	var b strings.Builder
	o.writeWarnings(&b)
	if fail != nil {
		b.WriteString(o.paint("ERROR", "1") + " " + Human(fail) + "\n")
	}
	o.writeProse(b.String())
}

// writeWarnings writes the warnings a person has not been shown yet.
func (o *Output) writeWarnings(b *strings.Builder) {
	for _, w := range o.warnings[o.shown:] {
		b.WriteString(o.paint("WARNING", "3") + " " + w.detail() + "\n")
	}
	o.shown = len(o.warnings)
}

func (o *Output) paint(word, color string) string {
	if !o.s.Mode.ErrColor {
		return word
	}
	return "\x1b[1;3" + color + "m" + word + "\x1b[0m"
}

// wire is the warning as an envelope carries it: the code apart, and the
// sentence a person reads after it.
func (w warning) wire() Warning {
	return Warning{Code: w.code, Message: sentence(w.message, w.next), Context: w.context}
}

// detail is the warning after its WARNING, which a terminal colours.
func (w warning) detail() string { return "[" + w.code + "]: " + sentence(w.message, w.next) }

// Human formats an error for a person, after the word ERROR:
// "[CODE]: message. Next: suggestion".
func Human(e *Error) string {
	next := e.Suggestion
	if next == "" && e.FixCommand != "" {
		next = "run '" + e.FixCommand + "'"
	}
	if next == "" {
		next = e.Hint // input: the flag or form to use instead
	}
	if next == "" && e.FixRequired != e.Message { // said once is enough
		next = e.FixRequired
	}
	s := "[" + e.Code + "]: " + sentence(e.Message, next)
	if len(e.Errors) > 1 { // one problem is the message itself
		for _, p := range e.Errors {
			s += "\n  - " + p.Message
		}
	}
	return s
}

func sentence(message, next string) string {
	message = strings.TrimRight(message, ". ")
	if next == "" {
		return message + "."
	}
	return message + ". Next: " + next
}

const cursorPrefix = "duet1:"

// query is the query the window's cursors are bound to, "" for none.
func (o *Output) query() string {
	if o.s.Window == nil {
		return ""
	}
	return o.s.Window.Query
}

// EncodeCursor returns the opaque cursor of the item at offset of the list
// query answers (see [Window.Query]; "" binds it to none).
func EncodeCursor(offset int, query string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + query + ":" + strconv.Itoa(offset)))
}

// anchorMark starts the position of an anchored cursor, where an offset
// cursor has its digits.
const anchorMark = "@"

// EncodeAnchorCursor returns the opaque cursor of the list query answers
// that resumes after the item anchor names (see [Window.After]): for a
// list whose items are appended at the end being read from it, where an
// offset would shift by as many items as were appended since.
func EncodeAnchorCursor(anchor, query string) string {
	pos := anchorMark + base64.RawURLEncoding.EncodeToString([]byte(anchor)) // no colon in it
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + query + ":" + pos))
}

// ReadCursor returns the position a cursor of query stands for: an offset
// ([EncodeCursor]), or an anchor ([EncodeAnchorCursor]) with offset 0. It
// refuses what [DecodeCursor] refuses, as INVALID_CURSOR.
func ReadCursor(c, query string) (offset int, anchor string, err error) {
	pos, err := cursorPosition(c, query)
	if err != nil {
		return 0, "", err
	}
	if enc, ok := strings.CutPrefix(pos, anchorMark); ok {
		raw, err := base64.RawURLEncoding.DecodeString(enc)
		if err != nil || len(raw) == 0 {
			return 0, "", invalidCursor(c, "is not a cursor this tool issued")
		}
		return 0, string(raw), nil
	}
	n, err := strconv.Atoi(pos)
	if err != nil || n < 0 {
		return 0, "", invalidCursor(c, "is not a cursor this tool issued")
	}
	return n, "", nil
}

// DecodeCursor returns the offset a cursor from [EncodeCursor] stands for,
// or an ARG_ERROR, INVALID_CURSOR, for anything else — a cursor of another
// query among them (REQ-O-003): its offset would be of another list.
func DecodeCursor(c, query string) (int, error) {
	pos, err := cursorPosition(c, query)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(pos)
	if err != nil || n < 0 {
		return 0, invalidCursor(c, "is not a cursor this tool issued")
	}
	return n, nil
}

// cursorPosition returns what a cursor of query holds after its query:
// an offset's digits, or an anchor.
func cursorPosition(c, query string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	rest, ok := strings.CutPrefix(string(raw), cursorPrefix)
	i := strings.LastIndexByte(rest, ':') // a query may hold colons; the position does not
	bound, pos, found := rest[:max(i, 0)], rest[i+1:], i >= 0
	switch {
	case err != nil || !ok || !found || pos == "" || strings.TrimLeft(pos, "0123456789") != "" && !strings.HasPrefix(pos, anchorMark):
		return "", invalidCursor(c, "is not a cursor this tool issued")
	case bound != query:
		return "", invalidCursor(c, "was issued for another query (other filters or another command)")
	}
	return pos, nil
}

func invalidCursor(c, why string) *Error {
	return Validationf("INVALID_CURSOR", "--cursor %q %s", c, why).
		WithField("cursor").
		WithoutRetry().
		WithFix("rerun without --cursor to start from the first page", "").
		WithSuggestion("omit --cursor, or pass meta.pagination.next_cursor from the previous response to the same query")
}
