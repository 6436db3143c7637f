package state

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A space's runs.jsonl grows by three lines a run, and `run list` and `run
// stats` fold all of it at every call: at 100,000 runs that is 300,000 lines
// and tens of megabytes, which encoding/json reads at about 100 MB/s. The
// lines are flat objects this package writes itself, so decodeEvent reads
// them directly: one pass, no reflection, the long prompt skipped without
// being copied. Whatever it does not recognise — an escaped string, an
// unknown key (encoding/json matches keys case-insensitively), a nested
// value — goes to encoding/json, so a line is accepted exactly when
// json.Unmarshal accepts it, with the same result (FuzzDecodeEvent holds it
// to that).

// decodeEvent parses one line of runs.jsonl into ev. With keepPrompt false
// the prompt is checked but not kept. It reports whether the line is a
// valid event object.
func decodeEvent(line []byte, ev *Event, keepPrompt bool) bool {
	d := decoder{keepPrompt: keepPrompt}
	return d.decode(line, ev)
}

// A decoder reads many lines. Its intern table makes one string of each
// value repeated across runs (event kinds, statuses, models, agents ...)
// instead of one per line.
type decoder struct {
	buf        []byte
	i          int
	ev         *Event
	keepPrompt bool
	intern     map[string]string
	// The numbers of many lines are carved out of shared slabs: one
	// allocation per slab instead of one per number.
	ints   slab[int]
	int64s slab[int64]
	floats slab[float64]
}

// slab hands out pointers to values of one slice, allocated slabSize at a time.
type slab[T any] []T

const slabSize = 1024

func (s *slab[T]) new(v T) *T {
	if len(*s) == 0 {
		*s = make([]T, slabSize)
	}
	p := &(*s)[0]
	*s = (*s)[1:]
	*p = v
	return p
}

func (d *decoder) decode(line []byte, ev *Event) bool {
	*ev = Event{}
	d.buf, d.i, d.ev = line, 0, ev
	if d.object() {
		return true
	}
	*ev = Event{}
	if json.Unmarshal(line, ev) != nil {
		return false
	}
	if !d.keepPrompt {
		ev.Prompt = ""
	}
	return true
}

func (d *decoder) ws() {
	for d.i < len(d.buf) {
		switch d.buf[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	if d.i < len(d.buf) {
		return d.buf[d.i]
	}
	return 0
}

// object reads the whole line as one event object; false sends the line to
// encoding/json.
func (d *decoder) object() bool {
	d.ws()
	if d.peek() != '{' {
		return false
	}
	d.i++
	d.ws()
	if d.peek() == '}' {
		d.i++
		return d.end()
	}
	for {
		d.ws()
		key, ok := d.rawString()
		if !ok {
			return false
		}
		d.ws()
		if d.peek() != ':' {
			return false
		}
		d.i++
		d.ws()
		if !d.field(key) {
			return false
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return d.end()
		default:
			return false
		}
	}
}

func (d *decoder) end() bool {
	d.ws()
	return d.i == len(d.buf)
}

// rawString reads a string with no escapes and no control characters,
// returning its bytes; anything else is left to encoding/json.
func (d *decoder) rawString() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.buf); j++ {
		switch c := d.buf[j]; {
		case c == '"':
			d.i = j + 1
			return d.buf[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// skipString passes over a string, escapes and all, checking it as
// encoding/json would but keeping nothing.
func (d *decoder) skipString() bool {
	if d.peek() != '"' {
		return false
	}
	for j := d.i + 1; j < len(d.buf); j++ {
		switch c := d.buf[j]; {
		case c == '"':
			d.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(d.buf) {
				return false
			}
			switch d.buf[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(d.buf) || !isHex(d.buf[j+1]) || !isHex(d.buf[j+2]) || !isHex(d.buf[j+3]) || !isHex(d.buf[j+4]) {
					return false
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// str reads a string value into dst. A null leaves dst as it was, as
// encoding/json does. Invalid UTF-8, which encoding/json would replace, goes
// to it.
func (d *decoder) str(dst *string) bool {
	if d.null() {
		return true
	}
	b, ok := d.rawString()
	if !ok || !utf8.Valid(b) {
		return false
	}
	*dst = string(b)
	return true
}

// common reads a string value that many lines share.
func (d *decoder) common(dst *string) bool {
	if d.intern == nil {
		return d.str(dst)
	}
	if d.null() {
		return true
	}
	b, ok := d.rawString()
	if !ok || !utf8.Valid(b) {
		return false
	}
	v, ok := d.intern[string(b)] // no allocation to look up
	if !ok {
		v = string(b)
		d.intern[v] = v
	}
	*dst = v
	return true
}

func (d *decoder) null() bool {
	if len(d.buf)-d.i >= 4 && string(d.buf[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// number returns the bytes of a JSON number.
func (d *decoder) number() ([]byte, bool) {
	start := d.i
	for d.i < len(d.buf) {
		c := d.buf[d.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	n := d.buf[start:d.i]
	return n, validNumber(n)
}

// validNumber reports whether n is a number by JSON's grammar, which is
// narrower than strconv's ("1.e5", "+1", "01" are not JSON).
func validNumber(n []byte) bool {
	digits := func(i int) int {
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		return i
	}
	i := 0
	if i < len(n) && n[i] == '-' {
		i++
	}
	switch {
	case i < len(n) && n[i] == '0':
		i++
	case i < len(n) && n[i] >= '1' && n[i] <= '9':
		i = digits(i)
	default:
		return false
	}
	if i < len(n) && n[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(n) && (n[i] == 'e' || n[i] == 'E') {
		i++
		if i < len(n) && (n[i] == '+' || n[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(n)
}

func (d *decoder) intInto(dst **int64) bool {
	if d.null() {
		*dst = nil
		return true
	}
	n, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return false
	}
	*dst = d.int64s.new(v)
	return true
}

func (d *decoder) field(key []byte) bool {
	ev := d.ev
	switch string(key) {
	case "v":
		n, ok := d.number()
		if !ok {
			return false
		}
		v, err := strconv.Atoi(string(n))
		ev.V = v
		return err == nil
	case "event":
		return d.common(&ev.Event)
	case "id":
		return d.str(&ev.ID)
	case "session_id":
		return d.common(&ev.SessionID)
	case "model":
		return d.common(&ev.Model)
	case "agent":
		return d.common(&ev.Agent)
	case "harness":
		return d.common(&ev.Harness)
	case "harness_session_id":
		return d.str(&ev.HarnessSessionID)
	case "continues":
		return d.str(&ev.Continues)
	case "status":
		return d.common(&ev.Status)
	case "started_at":
		return d.str(&ev.StartedAt)
	case "finished_at":
		return d.str(&ev.FinishedAt)
	case "error":
		return d.str(&ev.Error)
	case "prompt":
		if d.keepPrompt {
			return d.str(&ev.Prompt)
		}
		if d.null() {
			return true
		}
		return d.skipString()
	case "skills":
		return d.strings(&ev.Skills)
	case "exit_code":
		if d.null() {
			ev.ExitCode = nil
			return true
		}
		n, ok := d.number()
		if !ok {
			return false
		}
		v, err := strconv.Atoi(string(n))
		if err != nil {
			return false
		}
		ev.ExitCode = d.ints.new(v)
		return true
	case "duration_secs", "total_cost_usd":
		dst := &ev.DurationSecs
		if string(key) == "total_cost_usd" {
			dst = &ev.TotalCostUSD
		}
		if d.null() {
			*dst = nil
			return true
		}
		n, ok := d.number()
		if !ok {
			return false
		}
		v, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return false
		}
		*dst = d.floats.new(v)
		return true
	case "input_tokens":
		return d.intInto(&ev.InputTokens)
	case "output_tokens":
		return d.intInto(&ev.OutputTokens)
	case "cached_tokens":
		return d.intInto(&ev.CachedTokens)
	}
	return false
}

// strings reads an array of plain strings.
func (d *decoder) strings(dst *[]string) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if d.peek() != '[' {
		return false
	}
	d.i++
	out := []string{}
	d.ws()
	if d.peek() == ']' {
		d.i++
		*dst = out
		return true
	}
	for {
		d.ws()
		var s string
		if d.peek() != '"' || !d.common(&s) {
			return false
		}
		out = append(out, s)
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			*dst = out
			return true
		default:
			return false
		}
	}
}
