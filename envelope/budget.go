package envelope

import (
	"bytes"
	"encoding/json"
)

// A Tokenizer counts text as a language model reads it.
type Tokenizer interface {
	// Count returns how many tokens s is.
	Count(s string) int
	// Cut returns the longest prefix of s of at most n tokens, ending on a
	// token boundary.
	Cut(s string, n int) string
}

// Budget is an agent's token budget for data (--token-limit, --token-offset,
// --token-count): it spends tokens, not bytes, and its context window is
// what the answer lands in.
type Budget struct {
	Tokenizer Tokenizer
	Limit     int  // data holds at most this many tokens; 0: no limit
	Offset    int  // the window starts this many tokens into data
	Count     bool // answer with the count alone: data null, meta.token_count
}

// truncatedMarker ends data that a token budget cut: the last item of a
// list, a member "_truncated" of an object, or the end of a string.
const truncatedMarker = "[TRUNCATED]"

// budgetLocked applies the token budget to the encoded data. A window holds
// whole items of a list and whole members of an object, never part of
// one, except a string that alone does not fit, which is cut at a token
// boundary; data that was cut ends with truncatedMarker and sets
// meta.truncated.
func (o *Output) budgetLocked(p payload, meta *Meta) payload {
	b := o.s.Budget
	if b == nil || b.Tokenizer == nil {
		return p
	}
	if b.Count {
		n := b.Tokenizer.Count(string(p.json()))
		meta.TokenCount = &n
		return tokenCountPayload(o.s.Mode.Format, o.enveloped(), n)
	}
	if b.Limit <= 0 && b.Offset <= 0 {
		return p
	}
	offset := b.Offset
	meta.TokenOffset = &offset
	if b.Limit > 0 {
		limit := b.Limit
		meta.TokenLimit = &limit
	}
	switch {
	case p.list:
		items, from, whole, cut := b.window(p.items, '[', ']', json.RawMessage(`"`+truncatedMarker+`"`))
		meta.Truncated = meta.Truncated || cut
		if cut && o.s.Window != nil && meta.Pagination != nil {
			// The page holds fewer items than it was to: the next call
			// starts at the first item left out, which --cursor says.
			meta.Pagination = o.paginationFor(p.total, p.start+from, whole)
		}
		return payload{list: true, items: items, total: p.total, start: p.start}
	case len(p.one) > 0 && p.one[0] == '{':
		members, err := splitMembers(p.one)
		if err != nil {
			return p
		}
		kept, _, _, cut := b.window(members, '{', '}', json.RawMessage(`"_truncated":"`+truncatedMarker+`"`))
		meta.Truncated = meta.Truncated || cut
		return payload{one: join(kept, '{', '}')}
	}
	return p
}

// window keeps the parts (items or members) that start at or after the
// offset and fit in the limit with mark, which is appended when a part was
// left out after them. It returns what it keeps, and which parts are kept
// whole: parts[from:from+whole] (a string cut short is not).
func (b *Budget) window(parts []json.RawMessage, open, close byte, mark json.RawMessage) (kept []json.RawMessage, from, whole int, cut bool) {
	count := func(s []byte) int { return b.Tokenizer.Count(string(s)) }
	pos, first := 1, len(parts) // tokens before each part: the opening bracket, then parts and commas
	sizes := make([]int, len(parts))
	for i, part := range parts {
		sizes[i] = count(part)
		if pos >= b.Offset && first == len(parts) {
			first = i
		}
		pos += sizes[i] + 1
	}
	if b.Limit <= 0 {
		return parts[first:], first, len(parts) - first, false
	}
	if b.Offset > 0 && b.Offset%b.Limit == 0 { // pages: see pageStart
		first = b.pageStart(parts, sizes, open, close, mark)
	}
	room := b.Limit - count(mark) - 3 // the brackets and a comma
	end, used := first, 0
	for end < len(parts) && used+sizes[end]+1 <= room {
		used += sizes[end] + 1
		end++
	}
	if end == len(parts) && count(join(parts[first:], open, close)) <= b.Limit {
		return parts[first:], first, len(parts) - first, false
	}
	kept = append([]json.RawMessage(nil), parts[first:end]...)
	whole = len(kept)
	if end == first && first < len(parts) {
		if s, ok := b.cutString(parts[first], room); ok {
			kept = append(kept, s)
		}
	}
	// Tokens of the whole are not quite the sum of its parts: drop parts
	// until the whole fits.
	for len(kept) > 0 && count(join(append(kept[:len(kept):len(kept)], mark), open, close)) > b.Limit {
		kept = kept[:len(kept)-1]
	}
	return append(kept, mark), first, min(whole, len(kept)), true
}

// cutString cuts a part that is a string, or a member whose value is one,
// to about room tokens, ending it with the marker.
func (b *Budget) cutString(part json.RawMessage, room int) (json.RawMessage, bool) {
	key, value := json.RawMessage(nil), part
	if i := memberValue(part); i > 0 {
		key, value = part[:i], part[i:]
	}
	var s string
	if json.Unmarshal(value, &s) != nil {
		return nil, false
	}
	room -= b.Tokenizer.Count(string(key)) + b.Tokenizer.Count(truncatedMarker) + 2
	if room <= 0 {
		return nil, false
	}
	cut, err := marshal(b.Tokenizer.Cut(s, room) + truncatedMarker)
	if err != nil {
		return nil, false
	}
	return append(append(json.RawMessage(nil), key...), cut...), true
}

// memberValue returns where the value of a member `"key":value` starts, or
// 0 when part is not a member.
func memberValue(part json.RawMessage) int {
	if len(part) == 0 || part[0] != '"' {
		return 0
	}
	for i := 1; i < len(part); i++ {
		switch part[i] {
		case '\\':
			i++
		case '"':
			if i+1 < len(part) && part[i+1] == ':' {
				return i + 2
			}
			return 0
		}
	}
	return 0
}

// splitMembers returns the members of an encoded object as `"key":value`.
func splitMembers(obj json.RawMessage) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var members []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		k, _ := marshal(key)
		members = append(members, append(append(k, ':'), v...))
	}
	return members, nil
}

// join encloses parts, comma-separated, in open and close.
func join(parts []json.RawMessage, open, close byte) json.RawMessage {
	b := []byte{open}
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, close)
}
