package envelope

import (
	"encoding/json"
	"strconv"
)

// pageStart returns the index of the first part of the window that
// --token-offset names when it is a whole number of limits: the windows are
// then pages, each starting where the one before ended, so that an agent
// paging with --token-offset k*L --token-limit L sees every item once. (A
// window starting at the first part at or after the offset would skip the
// parts the page before left out for want of room beside its marker.)
func (b *Budget) pageStart(parts []json.RawMessage, sizes []int, open, close byte, mark json.RawMessage) int {
	start := 0
	for page := 0; page < b.Offset/b.Limit && start < len(parts); page++ {
		start += max(b.pageLen(parts[start:], sizes[start:], open, close, mark), 1) // a part that alone does not fit is its own page
	}
	return min(start, len(parts))
}

// pageLen returns how many whole parts the window that starts at parts[0]
// keeps, as window decides it.
func (b *Budget) pageLen(parts []json.RawMessage, sizes []int, open, close byte, mark json.RawMessage) int {
	count := func(s []byte) int { return b.Tokenizer.Count(string(s)) }
	room := b.Limit - count(mark) - 3
	end, used := 0, 0
	for end < len(parts) && used+sizes[end]+1 <= room {
		used += sizes[end] + 1
		end++
	}
	if end == len(parts) && count(join(parts, open, close)) <= b.Limit {
		return end
	}
	for end > 0 && count(join(append(parts[:end:end], mark), open, close)) > b.Limit {
		end--
	}
	return end
}

// tokenCountPayload is the data of a --token-count answer of n tokens: null
// where the envelope carries meta.token_count (json, and jsonl's summary
// line), and the count itself where no meta is written — a token_count
// record for text and tsv, the bare number for --format id — so that every
// format answers with the count.
func tokenCountPayload(f Format, enveloped bool, n int) payload {
	switch {
	case enveloped:
		return payload{one: json.RawMessage("null")}
	case f == ID:
		raw, _ := marshal(strconv.Itoa(n))
		return payload{one: raw}
	}
	raw, _ := marshal(map[string]int{"token_count": n})
	return payload{one: raw}
}
