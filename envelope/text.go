package envelope

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Style is how the generic text rendering decorates its output.
type Style struct {
	Color bool
}

// The SGR sequences the text rendering uses; every styled span is closed with
// sgrReset so that a cut line never leaks a style into the next one.
const (
	sgrBold  = "\x1b[1m"
	sgrFaint = "\x1b[2m"
	sgrReset = "\x1b[0m"
)

// paint wraps s in an SGR style when colour is on.
func (st Style) paint(sgr, s string) string {
	if !st.Color || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// renderText writes a decoded value for a person: a table for a list of
// records, "key: value" lines for an object, one line per scalar otherwise.
func renderText(w io.Writer, v any, st Style) error {
	var s string
	switch v := v.(type) {
	case nil:
		return nil
	case object:
		s = keyValues(v, st, "")
	case []any:
		s = list(v, st)
	default:
		s = cell(v)
	}
	if s == "" {
		return nil
	}
	_, err := io.WriteString(w, strings.TrimRight(s, "\n")+"\n")
	return err
}

func keyValues(o object, st Style, indent string) string {
	width := 0
	for _, f := range o {
		width = max(width, len(f.Key))
	}
	var b strings.Builder
	for _, f := range o {
		key := st.paint(sgrFaint, fmt.Sprintf("%s%-*s", indent, width+1, f.Key+":"))
		if nested, ok := f.Value.(object); ok && len(nested) > 0 {
			b.WriteString(key + "\n" + keyValues(nested, st, indent+"  "))
			continue
		}
		b.WriteString(key + " " + cell(f.Value) + "\n")
	}
	return b.String()
}

func list(items []any, st Style) string {
	if len(items) == 0 {
		return "(none)"
	}
	headers := columns(items)
	if headers == nil {
		var b strings.Builder
		for _, it := range items {
			b.WriteString(cell(it) + "\n")
		}
		return b.String()
	}
	return table(headers, rows(items, headers), st)
}

// table lays records out in columns padded to their display width, with a rule
// under the header. Cells are single-line: a newline in the data becomes a space.
func table(headers []string, rows [][]string, st Style) string {
	const gap = 2
	widths := make([]int, len(headers))
	for j, h := range headers {
		widths[j] = displayWidth(h)
	}
	for _, row := range rows {
		for j, c := range row {
			row[j] = strings.ReplaceAll(c, "\n", " ")
			widths[j] = max(widths[j], displayWidth(row[j]))
		}
	}
	total := 0
	for _, w := range widths {
		total += w + gap
	}
	var b strings.Builder
	line := func(cells []string, paint func(string) string) {
		var l strings.Builder
		for j, c := range cells {
			l.WriteString(paint(c))
			if j < len(cells)-1 {
				l.WriteString(strings.Repeat(" ", widths[j]-displayWidth(c)+gap))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ")) // an empty last cell
		b.WriteByte('\n')
	}
	line(headers, func(s string) string { return st.paint(sgrBold, s) })
	b.WriteString(st.paint(sgrFaint, strings.Repeat("─", total)))
	b.WriteByte('\n')
	for _, row := range rows {
		line(row, func(s string) string { return s })
	}
	return b.String()
}

// columns returns the union of the records' keys in first-seen order, or nil
// when some item is not a record.
func columns(items []any) []string {
	var cols []string
	seen := map[string]bool{}
	for _, it := range items {
		o, ok := it.(object)
		if !ok {
			return nil
		}
		for _, f := range o {
			if !seen[f.Key] {
				seen[f.Key] = true
				cols = append(cols, f.Key)
			}
		}
	}
	return cols
}

func rows(items []any, cols []string) [][]string {
	out := make([][]string, len(items))
	for i, it := range items {
		row := make([]string, len(cols))
		for _, f := range it.(object) {
			for j, c := range cols {
				if c == f.Key {
					row[j] = cell(f.Value)
				}
			}
		}
		out[i] = row
	}
	return out
}

// cell renders a scalar as its text and anything nested as compact JSON, with
// terminal control sequences from the data removed.
func cell(v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		s = ""
	case string:
		s = v
	case json.Number:
		s = v.String()
	case bool:
		s = fmt.Sprint(v)
	default:
		raw, _ := marshal(plain(v))
		s = string(raw)
	}
	return sanitizeCell(s)
}

// plain turns ordered objects back into something encoding/json can encode in
// the same key order.
func plain(v any) any {
	switch v := v.(type) {
	case object:
		var b strings.Builder
		b.WriteByte('{')
		for i, f := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := marshal(f.Key)
			val, _ := marshal(plain(f.Value))
			b.Write(k)
			b.WriteByte(':')
			b.Write(val)
		}
		b.WriteByte('}')
		return json.RawMessage(b.String())
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	default:
		return v
	}
}

// sanitizeCell strips escape sequences and replaces the remaining control
// characters, so data can neither restyle nor move the cursor of a terminal.
func sanitizeCell(s string) string {
	s = stripEscapes(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r < 0x20 && r != '\n', r >= 0x7f && r < 0xa0:
			return '\uFFFD'
		}
		return r
	}, s)
}

// renderTSV writes records as tab-separated values with a header row. Tabs,
// newlines and backslashes inside values are escaped as \t, \n and \\.
func renderTSV(w io.Writer, v any, header bool) error {
	items, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil
		}
		items = []any{v}
	}
	cols := columns(items)
	var b strings.Builder
	if cols == nil {
		for _, it := range items {
			b.WriteString(tsvField(it) + "\n")
		}
	} else {
		if header {
			b.WriteString(strings.Join(cols, "\t") + "\n")
		}
		for _, it := range items {
			row := make([]string, len(cols))
			for _, f := range it.(object) {
				for j, c := range cols {
					if c == f.Key {
						row[j] = tsvField(f.Value)
					}
				}
			}
			b.WriteString(strings.Join(row, "\t") + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tsvEscape escapes what would break a TSV field. (A strings.Replacer would
// be built at every start of the program, TSV or not.)
func tsvEscape(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func tsvField(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return tsvEscape(strings.ToValidUTF8(v, "\uFFFD"))
	case json.Number:
		return v.String()
	case bool:
		return fmt.Sprint(v)
	default:
		raw, _ := marshal(plain(v))
		return tsvEscape(string(raw))
	}
}

// renderIDs writes the "id" field of every record, one per line. It fails when
// a record has none, because an empty line would be taken for an id.
func renderIDs(w io.Writer, v any) error {
	items, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil
		}
		items = []any{v}
	}
	var b strings.Builder
	for i, it := range items {
		id, found := lookupID(it)
		if !found {
			return Validationf("NO_ID_FIELD", "--format id: result item %d has no \"id\" field", i).
				WithSuggestion("use --format json or --format tsv for this command")
		}
		b.WriteString(id + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func lookupID(v any) (string, bool) {
	switch v := v.(type) {
	case object:
		for _, f := range v {
			if f.Key == "id" {
				return tsvField(f.Value), true
			}
		}
	case string:
		return tsvField(v), true
	case json.Number:
		return v.String(), true
	}
	return "", false
}
