package toon

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzAppendJSON checks that AppendJSON accepts exactly what json.Valid
// accepts, that its parser decodes what encoding/json decodes, and that the
// output keeps the layout invariants of §12.
func FuzzAppendJSON(f *testing.F) {
	for _, tests := range readSpecFixtures(f) {
		for _, tt := range tests {
			f.Add([]byte(tt.Input), byte(0), uint8(0))
		}
	}
	for _, dir := range corpusDirs {
		for _, data := range readCorpus(f, dir) {
			f.Add(data, byte(0), uint8(0))
		}
	}
	for _, s := range []string{
		`{"a":`, `[1,]`, `01`, `1.`, `-`, `"\ud800"`, `"\ud83d\ude80"`, "\"\xff\"", `{"a":1,"a":2}`,
		`[[{"a":1},{"a":2}],{"b":[]}]`, `1e999999999999`, `-0.0e-0`, ` [ ] `, `{} {}`,
		`[{"a":{"b":{"c":1}}},{"a":{"b":{"c":2}}}]`, `{"x":{"p":{"q":1}},"y":{"p":{"q":2}}}`, `{"a":{"p":1},"a":{"p":2}}`,
	} {
		f.Add([]byte(s), byte(0), uint8(0))
	}
	f.Add(records(3), byte(2), uint8(4))

	f.Fuzz(func(t *testing.T, src []byte, delim byte, indent uint8) {
		opts := Options{Delimiter: []byte{0, ',', '\t', '|'}[delim%4], Indent: int(indent % 9)}
		out, err := AppendJSON(nil, src, opts)
		if valid := json.Valid(src); valid != (err == nil) {
			t.Fatalf("json.Valid(%q) = %v, but AppendJSON returned error %v", src, valid, err)
		}
		if err != nil {
			return
		}

		var want any
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json cannot decode %q: %v", src, err)
		}
		got, err := parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromEncodingJSON(want), fromValue(got)); diff != "" {
			t.Fatalf("parse(%q) differs from encoding/json (-encoding/json +parse):\n%s", src, diff)
		}

		if opts.Indent == 0 {
			opts.Indent = 2
		}
		checkLayout(t, out, opts.Indent)
	})
}

// number marks a canonical number among the strings of a decoded tree.
type number string

func fromEncodingJSON(v any) any {
	switch v := v.(type) {
	case json.Number:
		return number(canonicalNumber(string(v)))
	case []any:
		for i := range v {
			v[i] = fromEncodingJSON(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = fromEncodingJSON(v[k])
		}
	}
	return v
}

func fromValue(v value) any { return plainValue(v, func(s string) any { return number(s) }) }

// plainValue is a parsed document as plain Go values for cmp, its numbers
// as num makes them.
func plainValue(v value, num func(string) any) any {
	switch v.kind {
	case kindString:
		return v.s
	case kindArray:
		out := make([]any, len(v.arr))
		for i, item := range v.arr {
			out[i] = plainValue(item, num)
		}
		return out
	case kindObject:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.key] = plainValue(m.val, num)
		}
		return out
	}
	switch v.s {
	case "null":
		return nil
	case "true":
		return true
	case "false":
		return false
	}
	return num(v.s)
}

// checkLayout checks §1.2 and §12 on a document: valid UTF-8, LF line
// ends, no trailing newline or trailing whitespace, and indentation in
// whole levels of spaces.
func checkLayout(t *testing.T, doc []byte, indent int) {
	t.Helper()
	if !utf8.Valid(doc) {
		t.Fatalf("output is not UTF-8: %q", doc)
	}
	if bytes.ContainsRune(doc, '\r') {
		t.Fatalf("output has a CR: %q", doc)
	}
	if bytes.HasSuffix(doc, []byte("\n")) {
		t.Fatalf("output ends with a newline: %q", doc)
	}
	for line := range strings.SplitSeq(string(doc), "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			t.Fatalf("trailing whitespace in line %q of %q", line, doc)
		}
		body := strings.TrimLeft(line, " ")
		if n := len(line) - len(body); n%indent != 0 || strings.HasPrefix(body, "\t") {
			t.Fatalf("indentation of line %q is not whole levels of %d spaces", line, indent)
		}
	}
}
