package configedit

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/duet-cli/duet/internal/tomlstr"
)

// A TOML table is edited as lines: [<table>] and the lines up to the next
// table header that is not one of its own sub-tables ([<table>.env]) are
// the entry; the document is parsed before and after, so an edit that
// would not parse, or a document that does not, is refused.

// Table is a TOML table to write: its keys in order, and sub-tables (such
// as env) after it.
type Table struct {
	Keys   []KV
	Tables map[string][]KV // by name
}

// KV is one key and its value: List when it is not nil, else String.
type KV struct {
	Key    string
	String string
	List   []string
}

// GetTOML returns the table at path (mcp_servers.<name>) of doc decoded,
// and whether there is one.
func GetTOML(doc []byte, path ...string) (map[string]any, bool, error) {
	var all map[string]any
	if err := toml.Unmarshal(doc, &all); err != nil {
		return nil, false, err
	}
	var v any = all
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if v, ok = m[k]; !ok {
			return nil, false, nil
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("%s is not a table", strings.Join(path, "."))
	}
	return m, true, nil
}

// SetTOML writes table t at path, replacing the lines of the one there or
// appending it after a blank line, and keeps every other byte. A table
// that says the same already is left as it is.
func SetTOML(doc []byte, t Table, path ...string) ([]byte, error) {
	var all map[string]any
	if err := toml.Unmarshal(doc, &all); err != nil {
		return nil, err
	}
	text := t.encode(path)
	lines := strings.SplitAfter(string(doc), "\n")
	start, end, found := tableLines(lines, path)
	var out string
	switch {
	case found && sameTOML(strings.Join(lines[start:end], ""), text):
		return doc, nil
	case found:
		if end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			text += "\n"
		}
		out = strings.Join(lines[:start], "") + text + strings.Join(lines[end:], "")
	default:
		prefix := string(doc)
		if prefix != "" && !strings.HasSuffix(prefix, "\n") {
			prefix += "\n"
		}
		if prefix != "" {
			prefix += "\n"
		}
		out = prefix + text
	}
	if err := toml.Unmarshal([]byte(out), &all); err != nil {
		return nil, fmt.Errorf("the table would not parse there: %w", err)
	}
	return []byte(out), nil
}

// RemoveTOML removes the table at path, and the blank line SetTOML put
// before it at the end of the document; a document that held only it comes
// back empty (nil). It reports whether there was such a table.
func RemoveTOML(doc []byte, path ...string) ([]byte, bool, error) {
	var all map[string]any
	if err := toml.Unmarshal(doc, &all); err != nil {
		return nil, false, err
	}
	lines := strings.SplitAfter(string(doc), "\n")
	start, end, found := tableLines(lines, path)
	if !found {
		return doc, false, nil
	}
	// The blank lines that set it apart go with it: those after it, or at
	// the end of the document those before it.
	for end < len(lines) && lines[end] != "" && strings.TrimSpace(lines[end]) == "" {
		end++
	}
	if end == len(lines) || end == len(lines)-1 && lines[end] == "" {
		for start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
	}
	out := strings.Join(lines[:start], "") + strings.Join(lines[end:], "")
	if strings.TrimSpace(out) == "" {
		return nil, true, nil
	}
	return []byte(out), true, nil
}

// tableLines finds the lines of the table at path: from its header to the
// next header not under it; found is false when there is no such header.
func tableLines(lines []string, path []string) (start, end int, found bool) {
	header := "[" + tableName(path) + "]"
	own := "[" + tableName(path) + "."
	start = slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == header })
	if start < 0 {
		return 0, 0, false
	}
	end = len(lines)
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") && !strings.HasPrefix(l, own) {
			end = i
			break
		}
	}
	// Blank lines before the next table are the document's, not ours.
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return start, end, true
}

// key writes k bare when TOML allows it, else quoted.
func key(k string) string {
	bare := k != ""
	for _, r := range k {
		bare = bare && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}
	if bare {
		return k
	}
	return tomlstr.Quote(k)
}

func tableName(path []string) string {
	keys := make([]string, len(path))
	for i, k := range path {
		keys[i] = key(k)
	}
	return strings.Join(keys, ".")
}

// encode writes the table as lines, ending in a newline.
func (t Table) encode(path []string) string {
	var b strings.Builder
	b.WriteString("[" + tableName(path) + "]\n")
	for _, kv := range t.Keys {
		b.WriteString(kv.encode())
	}
	for _, name := range slices.Sorted(maps.Keys(t.Tables)) {
		if len(t.Tables[name]) == 0 {
			continue
		}
		b.WriteString("\n[" + tableName(append(slices.Clone(path), name)) + "]\n")
		for _, kv := range t.Tables[name] {
			b.WriteString(kv.encode())
		}
	}
	return b.String()
}

func (kv KV) encode() string {
	v := tomlstr.Quote(kv.String)
	if kv.List != nil {
		q := make([]string, len(kv.List))
		for i, s := range kv.List {
			q[i] = tomlstr.Quote(s)
		}
		v = "[" + strings.Join(q, ", ") + "]"
	}
	return key(kv.Key) + " = " + v + "\n"
}

func sameTOML(a, b string) bool {
	var x, y map[string]any
	return toml.Unmarshal([]byte(a), &x) == nil && toml.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
