package envelope

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/duet-cli/duet/internal/jsonw"
)

// streamPagination gives a stream's summary its pagination (the CLI Agent
// Spec's O-004: the last line of a stream carries it): a stream ends with
// every item written, so it is one whole page of as many items as it
// streamed. A command that paged the stream itself keeps its own.
func (o *Output) streamPagination(meta *Meta, items int) {
	if meta.Pagination == nil {
		meta.Pagination = o.paginationFor(items, 0, items)
	}
}

// lines numbers a jsonl stream's item lines and counts its events
// (REQ-O-004, ResponseEnvelope 2.2 and 2.3). Every item line carries
// "_seq", 1 on the first and one more on each next; the summary line
// carries "_count", and an error envelope that ends the stream
// meta.items_emitted, the last "_seq" (0 before the first item): an agent
// tells a whole stream from one that lost lines in a pipe or a log. A
// stream whose items are not objects, or whose first item has a "_seq" of
// its own, is not numbered, since "_seq" is never item data.
type lines struct {
	numbering numbering
	seq       int
	effects   map[Effect]int // events by their live effect (Output.Event)
}

type numbering uint8

const (
	undecided numbering = iota // no item line yet
	numbered
	unnumbered
)

// line returns raw, an item, as its line: with "_seq" when it is a jsonl
// line (stream) of a numbered stream, and with "effect" when it is an
// event's.
func (l *lines) line(raw json.RawMessage, stream bool, effect Effect) json.RawMessage {
	if len(raw) < 2 || raw[0] != '{' {
		if stream && l.numbering == undecided {
			l.numbering = unnumbered
		}
		return raw
	}
	if stream && l.numbering == undecided {
		l.numbering = numbered
		if hasKey(raw, "_seq") {
			l.numbering = unnumbered
		}
	}
	var b []byte
	if stream && l.numbering == numbered {
		l.seq++
		b = append(b, `{"_seq":`...)
		b = jsonw.Int(b, int64(l.seq))
	}
	if effect != "" {
		if b == nil {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = append(b, `"effect":`...)
		b = jsonw.String(b, string(effect))
	}
	if b == nil {
		return raw
	}
	if !bytes.Equal(raw, emptyObj) {
		b = append(b, ',')
	}
	return append(b, raw[1:]...)
}

// hasKey reports whether the JSON object raw has the top-level key.
func hasKey(raw json.RawMessage, key string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	_, ok := top[key]
	return ok
}

// count records an event of effect, and returns what the command did as a
// whole: the one effect other than noop its events had, updated when they
// had several, noop when none changed anything.
func (l *lines) count(effect Effect) Effect {
	if l.effects == nil {
		l.effects = map[Effect]int{}
	}
	l.effects[effect]++
	var changes []Effect
	for e := range l.effects {
		if e != Noop {
			changes = append(changes, e)
		}
	}
	switch len(changes) {
	case 0:
		return Noop
	case 1:
		return changes[0]
	}
	return Updated
}

// counts are the events by effect as an answer reports them: by their
// would_ form in a dry run. Nil when there were none.
func (l *lines) counts(dryRun bool) map[string]int {
	if len(l.effects) == 0 {
		return nil
	}
	out := make(map[string]int, len(l.effects))
	for e, n := range l.effects {
		if dryRun {
			e = e.Would()
		}
		out[string(e)] = n
	}
	return out
}

// changed reports whether an event changed something live.
func (l *lines) changed(dryRun bool) bool {
	if dryRun {
		return false
	}
	for e := range l.effects {
		if e != Noop {
			return true
		}
	}
	return false
}

// appendCounts appends counts as a JSON object, its keys sorted.
func appendCounts(b []byte, counts map[string]int) []byte {
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(counts)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, k)
		b = append(b, ':')
		b = jsonw.Int(b, int64(counts[k]))
	}
	return append(b, '}')
}
