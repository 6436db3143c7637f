package toon

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCanonicalNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"-0.0", "0"},
		{"0.000", "0"},
		{"0e10", "0"},
		{"-0E-10", "0"},
		{"42", "42"},
		{"-7", "-7"},
		{"1.0", "1"},
		{"1.5000", "1.5"},
		{"-1.50", "-1.5"},
		{"3.14", "3.14"},
		{"1e6", "1000000"},
		{"1E+6", "1000000"},
		{"1e-6", "0.000001"},
		{"1.5e-6", "0.0000015"},
		{"0.00000099", "9.9e-7"},
		{"1e-7", "1e-7"},
		{"12.5e-8", "1.25e-7"},
		{"2.5E+3", "2500"},
		{"1234.5e-2", "12.345"},
		{"0.001e3", "1"},
		{"100e-2", "1"},
		{"1e20", "100000000000000000000"},
		{"999999999999999999999", "999999999999999999999"},
		{"999999999999999999999.5", "999999999999999999999.5"},
		{"1000000000000000000000", "1e+21"},
		{"1e21", "1e+21"},
		{"-1.5e21", "-1.5e+21"},
		{"123e300", "1.23e+302"},
		{"5e-324", "5e-324"},
		// Digits beyond float64 precision are kept.
		{"9007199254740993", "9007199254740993"},
		{"12345678901234567890", "12345678901234567890"},
		{"123456789012345678901234567890", "1.2345678901234567890123456789e+29"},
		{"0.1234567890123456789012345", "0.1234567890123456789012345"},
		{"1.00000000000000000000001", "1.00000000000000000000001"},
		// Exponents beyond int32 are added to digit by digit.
		{"1e99999999999", "1e+99999999999"},
		{"12e99999999999", "1.2e+100000000000"},
		{"0.001e100000000000", "1e+99999999997"},
		{"0.001e-100000000000", "1e-100000000003"},
		{"-12.5e-99999999999", "-1.25e-99999999998"},
		{"-25e-99999999999", "-2.5e-99999999998"},
		{"0e99999999999999999999", "0"},
		{"1.5e+0000000000000000000000000000000000001", "15"},
	}
	for _, tt := range tests {
		if got := canonicalNumber(tt.in); got != tt.want {
			t.Errorf("canonicalNumber(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNeedsQuotes(t *testing.T) {
	tests := []struct {
		s     string
		delim byte
		want  bool
	}{
		{"hello", ',', false},
		{"hello world", ',', false},
		{"café 你好 🚀", ',', false},
		{"", ',', true},
		{" x", ',', true},
		{"x ", ',', true},
		{"\u00a0x", ',', true}, // no-break space
		{"x\u3000", ',', true}, // ideographic space
		{"\ufeffx", ',', true},
		{"x\u200by", ',', false}, // zero-width space is not White_Space
		{"true", ',', true},
		{"True", ',', false},
		{"null", ',', true},
		{"42", ',', true},
		{"-3.14", ',', true},
		{"1e-6", ',', true},
		{"1E+6", ',', true},
		{"05", ',', true},
		{"1.", ',', false},
		{".5", ',', false},
		{"+1", ',', true}, // the reference encoder's numeric pattern takes a sign
		{"+1.5e3", ',', true},
		{"+", ',', false},
		{"+x", ',', false},
		{"1+", ',', false},
		{"1e", ',', false},
		{"0x10", ',', false},
		{"-", ',', true},
		{"-x", ',', true},
		{"x-", ',', false},
		{"a:b", ',', true},
		{`a"b`, ',', true},
		{`a\b`, ',', true},
		{"[x]", ',', true},
		{"{x}", ',', true},
		{"a\nb", ',', true},
		{"a\x7fb", ',', false},
		{"a,b", ',', true},
		{"a,b", '|', false},
		{"a|b", '|', true},
		{"a|b", ',', false},
		{"a\tb", '\t', true},
		{"#x", ',', true}, // a v4 comment where it starts a line
		{"#", ',', true},
		{"a#b", ',', false},
	}
	for _, tt := range tests {
		if got := needsQuotes(tt.s, tt.delim); got != tt.want {
			t.Errorf("needsQuotes(%q, %q) = %v, want %v", tt.s, tt.delim, got, tt.want)
		}
	}
}

func TestUnquotedKey(t *testing.T) {
	tests := map[string]bool{
		"id": true, "_x": true, "a.b": true, "A9_.z": true, "user_name2": true,
		"": false, "9a": false, ".a": false, "a-b": false, "a b": false, "é": false, "a:b": false,
	}
	for k, want := range tests {
		if got := unquotedKey(k); got != want {
			t.Errorf("unquotedKey(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestAppendJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
		want string
	}{
		{"root string needing document-delimiter quotes", `"a,b"`, Options{}, `"a,b"`},
		{"root string with pipe delimiter", `"a,b"`, Options{Delimiter: '|'}, `a,b`},
		{"root number", ` -0.0e5 `, Options{}, `0`},
		{"root empty object", `{}`, Options{}, ``},
		{"root empty array", `[]`, Options{}, `[]`},
		{"big integers exact", `{"id":123456789012345678901,"n":[9007199254740993,1.10]}`, Options{},
			"id: 123456789012345678901\nn[2]: 9007199254740993,1.1"},
		{"duplicate keys: last value at the first place", `{"a":1,"b":2,"a":{"c":3}}`, Options{},
			"a:\n  c: 3\nb: 2"},
		{"many duplicate keys", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k0":"x","k17":"y"}`, Options{},
			"k0: x\nk1: 1\nk2: 2\nk3: 3\nk4: 4\nk5: 5\nk6: 6\nk7: 7\nk8: 8\nk9: 9\nk10: 10\nk11: 11\nk12: 12\nk13: 13\nk14: 14\nk15: 15\nk16: 16\nk17: y"},
		{"escapes and surrogates", `["\u00e9\ud83d\ude80","\ud800x","\"\\\/\b\f"]`, Options{},
			"[3]: é🚀,\ufffdx,\"\\\"\\\\/\\u0008\\u000c\""},
		{"invalid UTF-8 becomes U+FFFD", "[\"a\xffb\"]", Options{}, "[1]: a\ufffdb"},
		{"tabular rows in other key orders", `[{"a":1,"b":"x y"},{"b":"-","a":2}]`, Options{},
			"[2]{a,b}:\n  1,x y\n  2,\"-\""},
		{"tabular with quoted field names", `{"t":[{"a b":1,"c|d":2},{"a b":3,"c|d":4}]}`, Options{Delimiter: '|'},
			"t[2|]{\"a b\"|\"c|d\"}:\n  1|2\n  3|4"},
		{"tab delimiter quotes tabs in field values too", `{"a":"x\ty","b":["x\ty"]}`, Options{Delimiter: '\t'},
			"a: \"x\\ty\"\nb[1\t]: \"x\\ty\""},
		{"not tabular: nested value", `[{"a":1},{"a":[1]}]`, Options{}, "[2]:\n  - a: 1\n  - a[1]: 1"},
		{"not tabular: extra key", `[{"a":1},{"a":1,"b":2}]`, Options{}, "[2]:\n  - a: 1\n  - a: 1\n    b: 2"},
		{"not tabular: same size, other keys", `[{"a":1},{"b":1}]`, Options{}, "[2]:\n  - a: 1\n  - b: 1"},
		{"list item first field is an object", `[{"a":{"b":1,"c":{}},"d":2},3]`, Options{},
			"[2]:\n  - a:\n      b: 1\n      c:\n    d: 2\n  - 3"},
		{"list item first field is an empty object", `[{"a":{},"d":2},1]`, Options{}, "[2]:\n  - a:\n    d: 2\n  - 1"},
		{"list item first field is a list", `[{"a":[1,[2]],"b":1},1]`, Options{},
			"[2]:\n  - a[2]:\n      - 1\n      - [1]: 2\n    b: 1\n  - 1"},
		{"list item first field is tabular", `[{"t":[{"x":1},{"x":2}],"b":{"c":1}},[]]`, Options{},
			"[2]:\n  - t[2]{x}:\n      1\n      2\n    b:\n      c: 1\n  - [0]:"},
		{"arrays of objects inside a list are not tabular", `[[{"a":1},{"a":2}],1]`, Options{},
			"[2]:\n  - [2]:\n    - a: 1\n    - a: 2\n  - 1"},
		{"deep arrays of arrays", `[[[[]]],[[1]]]`, Options{},
			"[2]:\n  - [1]:\n    - [1]:\n      - [0]:\n  - [1]:\n    - [1]: 1"},
		{"list primitives quoted with the delimiter", `{"x":["a,b",{}]}`, Options{}, "x[2]:\n  - \"a,b\"\n  -"},
		// v4 nested field groups.
		{"nested field group", `{"items":[{"id":"t1","meta":{"a":1,"b":2}},{"id":"t2","meta":{"b":4,"a":3}}]}`, Options{},
			"items[2]{id,meta{a,b}}:\n  t1,1,2\n  t2,3,4"},
		{"nested field groups first, deep and piped", `[{"a":{"b":{"c":1,"d":"x|y"}},"e":true},{"a":{"b":{"c":2,"d":"z"}},"e":false}]`, Options{Delimiter: '|'},
			"[2|]{a{b{c|d}}|e}:\n  1|\"x|y\"|true\n  2|z|false"},
		{"not a group: a null among the objects", `[{"id":1,"m":{"a":1}},{"id":2,"m":null}]`, Options{},
			"[2]:\n  - id: 1\n    m:\n      a: 1\n  - id: 2\n    m: null"},
		{"not a group: an empty object", `[{"id":1,"m":{}},{"id":2,"m":{}}]`, Options{},
			"[2]:\n  - id: 1\n    m:\n  - id: 2\n    m:"},
		{"not a group: other nested keys", `[{"m":{"a":1}},{"m":{"b":1}}]`, Options{},
			"[2]:\n  - m:\n      a: 1\n  - m:\n      b: 1"},
		{"not tabular: an array field", `[{"id":1,"tags":["a"]},{"id":2,"tags":[]}]`, Options{},
			"[2]:\n  - id: 1\n    tags[1]: a\n  - id: 2\n    tags: []"},
		{"no groups inside a list", `[[{"m":{"a":1}},{"m":{"a":2}}]]`, Options{},
			"[1]:\n  - [2]:\n    - m:\n        a: 1\n    - m:\n        a: 2"},

		// v4 keyed tables.
		{"keyed table", `{"envs":{"prod":{"region":"eu","replicas":6},"staging":{"replicas":2,"region":"eu"}}}`, Options{},
			"envs[2:]{region,replicas}:\n  prod: eu,6\n  staging: eu,2"},
		{"keyed table at the root, tab", `{"a b":{"v":"x\ty","w":{"z":1}},"#c":{"v":"-","w":{"z":2}}}`, Options{Delimiter: '\t'},
			"[2:\t]{v\tw{z}}:\n  \"a b\": \"x\\ty\"\t1\n  \"#c\": \"-\"\t2"},
		{"keyed table as a list item's first field", `[{"s":{"a":{"p":1},"b":{"p":2}},"n":1},0]`, Options{},
			"[2]:\n  - s[2:]{p}:\n      a: 1\n      b: 2\n    n: 1\n  - 0"},
		{"not keyed: one entry", `{"s":{"a":{"p":1}}}`, Options{}, "s:\n  a:\n    p: 1"},
		{"not keyed: an empty object", `{"s":{"a":{"p":1},"b":{}}}`, Options{}, "s:\n  a:\n    p: 1\n  b:"},
		{"not keyed: a primitive", `{"s":{"a":{"p":1},"b":2}}`, Options{}, "s:\n  a:\n    p: 1\n  b: 2"},
		{"not keyed: an array value", `{"s":{"a":{"p":[1]},"b":{"p":[2]}}}`, Options{},
			"s:\n  a:\n    p[1]: 1\n  b:\n    p[1]: 2"},
		{"not keyed: a list item itself", `[{"a":{"p":1},"b":{"p":2}},0]`, Options{},
			"[2]:\n  - a:\n      p: 1\n    b:\n      p: 2\n  - 0"},
		{"hash-led strings are quoted", `{"r":[{"a":"#1","b":"a#"}]}`, Options{}, "r[1]{a,b}:\n  \"#1\",a#"},

		{"indent 4", `{"a":[{"b":[1]},{"c":{"d":1}}]}`, Options{Indent: 4},
			"a[2]:\n    - b[1]: 1\n    - c:\n            d: 1"},
		{"indent 1", `{"a":{"b":{"c":1}}}`, Options{Indent: 1}, "a:\n b:\n  c: 1"},
		{"wide indent", `{"a":{"b":1}}`, Options{Indent: 40}, "a:\n" + strings.Repeat(" ", 40) + "b: 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendJSON(nil, []byte(tt.in), tt.opts)
			if err != nil {
				t.Fatalf("AppendJSON(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("AppendJSON(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestAppendJSONAppends(t *testing.T) {
	dst := []byte("prefix\n")
	got, err := AppendJSON(dst, []byte(`{"a":1}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "prefix\na: 1"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got, err = AppendJSON(dst, []byte(`{`), Options{})
	if err == nil || string(got) != string(dst) {
		t.Errorf("on error got (%q, %v), want dst unchanged and an error", got, err)
	}
}

func TestAppendJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
		eof  bool // whether the error wraps io.ErrUnexpectedEOF
	}{
		{"empty", ``, Options{}, true},
		{"blank", " \n\t", Options{}, true},
		{"truncated object", `{"a":1`, Options{}, true},
		{"truncated string", `"abc`, Options{}, true},
		{"truncated literal", `tru`, Options{}, true},
		{"truncated escape", `"\u12`, Options{}, true},
		{"trailing data", `1 2`, Options{}, false},
		{"trailing comma", `[1,]`, Options{}, false},
		{"trailing comma in object", `{"a":1,}`, Options{}, false},
		{"leading zero", `01`, Options{}, false},
		{"bare minus", `-`, Options{}, true},
		{"missing fraction", `1.`, Options{}, true},
		{"missing fraction digits", `[1.e5]`, Options{}, false},
		{"plus sign", `+1`, Options{}, false},
		{"single quotes", `'a'`, Options{}, false},
		{"unquoted key", `{a:1}`, Options{}, false},
		{"missing colon", `{"a" 1}`, Options{}, false},
		{"control character in string", "\"a\nb\"", Options{}, false},
		{"bad escape", `"\x"`, Options{}, false},
		{"bad unicode escape", `"\u12g4"`, Options{}, false},
		{"bad second surrogate escape", `"\ud800\u12g4"`, Options{}, false},
		{"NaN", `NaN`, Options{}, false},
		{"BOM", "\ufeff{}", Options{}, false},
		{"too deep", strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), Options{}, false},
		{"bad delimiter", `{}`, Options{Delimiter: ';'}, false},
		{"negative indent", `{}`, Options{Indent: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendJSON(nil, []byte(tt.in), tt.opts)
			if err == nil {
				t.Fatalf("AppendJSON(%q) = %q, want an error", tt.in, got)
			}
			if !strings.HasPrefix(err.Error(), "toon: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != tt.eof {
				t.Errorf("error %q: errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", err, !tt.eof, tt.eof)
			}
		})
	}
}

func TestMaxDepthAccepted(t *testing.T) {
	in := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	// parse, not AppendJSON: the output of this nesting is quadratic in
	// size (10000 lines indented up to 20000 spaces).
	if _, err := parse([]byte(in)); err != nil {
		t.Fatalf("nesting of exactly %d: %v", maxDepth, err)
	}
}

// records returns a JSON list of n records shaped like a CLI's list answer.
func records(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"ok":true,"command":"list","items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","status":"active","owner":"Ada Lovelace","size":%d.5,"tags":"a,b","updated":"2026-05-21T10:%02d:00Z"}`, i+1, i, 1000*i, i)
	}
	b.WriteString(`],"next":null}`)
	return []byte(b.String())
}

func BenchmarkAppendJSON(b *testing.B) {
	src := records(20)
	var dst []byte
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		dst, err = AppendJSON(dst[:0], src, Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
}
