package syntax

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// specExamples are the examples of the JSON5 specification 1.0.0
// (https://spec.json5.org), each with the strict JSON it stands for.
var specExamples = []struct {
	name, in, want string
}{
	{"short example", `{
  // comments
  unquoted: 'and you can quote me on that',
  singleQuotes: 'I can use "double quotes" here',
  lineBreaks: "Look, Mom! \
No \\n's!",
  hexadecimal: 0xdecaf,
  leadingDecimalPoint: .8675309, andTrailing: 8675309.,
  positiveSign: +1,
  trailingComma: 'in objects', andIn: ['arrays',],
  "backwardsCompatible": "with JSON",
}`, `{"unquoted":"and you can quote me on that","singleQuotes":"I can use \"double quotes\" here","lineBreaks":"Look, Mom! No \\n's!","hexadecimal":912559,"leadingDecimalPoint":0.8675309,"andTrailing":8675309,"positiveSign":1,"trailingComma":"in objects","andIn":["arrays"],"backwardsCompatible":"with JSON"}`},
	{"an empty object", `// An empty object
{}`, `{}`},
	{"an object with two properties and a trailing comma", `{
    width: 1920,
    height: 1080,
}`, `{"width":1920,"height":1080}`},
	{"objects can be nested", `{
    image: {
        width: 1920,
        height: 1080,
        'aspect-ratio': '16:9',
    }
}`, `{"image":{"width":1920,"height":1080,"aspect-ratio":"16:9"}}`},
	{"an array of objects", `[
    { name: 'Joe', age: 27 },
    { name: 'Jane', age: 32 },
]`, `[{"name":"Joe","age":27},{"name":"Jane","age":32}]`},
	{"an empty array", `[]`, `[]`},
	{"an array with three elements and a trailing comma", `[
    1,
    true,
    'three',
]`, `[1,true,"three"]`},
	{"arrays can be nested", `[
    [1, true, 'three'],
    [4, "five", 0x6],
]`, `[[1,true,"three"],[4,"five",6]]`},
	{"a reverse solidus as \\x5C", `'\x5C'`, `"\\"`},
	{"a reverse solidus as \\u005C", `'\u005C'`, `"\\"`},
	{"a surrogate pair", `'\uD83C\uDFBC'`, `"🎼"`},
	{"a reverse solidus escaped", `'\\'`, `"\\"`},
	{"a line continuation", "'Lorem ipsum dolor sit amet, \\\nconsectetur adipiscing elit.'", `"Lorem ipsum dolor sit amet, consectetur adipiscing elit."`},
	{"the same without one", `'Lorem ipsum dolor sit amet, consectetur adipiscing elit.'`, `"Lorem ipsum dolor sit amet, consectetur adipiscing elit."`},
	{"any other escaped character is itself", `'\A\C\/\D\C'`, `"AC/DC"`},
	{"numbers", `{
    integer: 123,
    withFractionPart: 123.456,
    onlyFractionPart: .456,
    withExponent: 123e-456,
}`, `{"integer":123,"withFractionPart":123.456,"onlyFractionPart":0.456,"withExponent":123e-456}`},
	{"hexadecimal numbers", `{
    positiveHex: 0xdecaf,
    negativeHex: -0xC0FFEE,
}`, `{"positiveHex":912559,"negativeHex":-12648430}`},
	{"comments", `// This is a single line comment.

/* This is a multi-
   line comment. */ null`, `null`},
}

// moreCases cover the rest of the grammar and what agents send.
var moreCases = []struct {
	name, in, want string
}{
	{"strict JSON", `{"a": [1, 2.5e3, -0, "x\u00e9"], "b": null}`, `{"a":[1,2.5e3,-0,"xé"],"b":null}`},
	{"the spec's trailing comma", `{"key": "value",}`, `{"key":"value"}`},
	{"a block comment after a value", `{"key": "value" /* comment */}`, `{"key":"value"}`},
	{"a comment between key and value", `{"env": /* staging */ "prod"}`, `{"env":"prod"}`},
	{"unquoted keys and single quotes", `{name: 'prod', region: 'us-east-1'}`, `{"name":"prod","region":"us-east-1"}`},
	{"identifier keys with $, _ and Unicode", `{$a: 1, _b: 2, ünï: 3, \u0061b: 4}`, `{"$a":1,"_b":2,"ünï":3,"ab":4}`},
	{"reserved words are keys", `{true: 1, null: 2, default: 3}`, `{"true":1,"null":2,"default":3}`},
	{"escapes", `'\b\f\n\r\t\v\0\'\"'`, `"\b\f\n\r\t\u000b\u0000'\""`},
	{"CRLF continuation", "'a\\\r\nb'", `"ab"`},
	{"U+2028 continuation", "'a\\\u2028b'", `"ab"`},
	{"an unescaped U+2028 in a string", "'a\u2028b'", `"a\u2028b"`},
	{"a lone surrogate", `'\uD83C'`, "\"\ufffd\""},
	{"white space of every kind", "\ufeff\u00a0\u2003{\v\fa\u2028:\u20291\u3000}", `{"a":1}`},
	{"a comment at the end", `1 // done`, `1`},
	{"a signed number", `[+1, -1, +.5, -5., +0x10, 1E3, 1e+3]`, `[1,-1,0.5,-5,16,1E3,1e+3]`},
	{"hexadecimal of any size", `[0x0, -0x0, 0xFF, 0xFFFFFFFFFFFFFFFF, -0xFFFFFFFFFFFFFFFFFFFF]`, `[0,0,255,18446744073709551615,-1208925819614629174706175]`},
	{"a big hexadecimal number", `0xFFFFFFFFFFFFFFFFFFFF`, `1208925819614629174706175`},
	{"an empty string key", `{'': 1}`, `{"":1}`},
	{"a tab in a string", "'a\tb'", `"a\tb"`},
	{"HTML is not escaped", `'<a & b>'`, `"<a & b>"`},
}

func TestNormalize(t *testing.T) {
	for _, tc := range append(specExamples, moreCases...) {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize([]byte(tc.in))
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Normalize(%q) (-want +got):\n%s", tc.in, diff)
			}
			if !json.Valid(got) {
				t.Errorf("Normalize(%q) = %s, not valid JSON", tc.in, got)
			}
		})
	}
}

// Every value of the spec's examples decodes to what the strict JSON of
// the table decodes to: the table itself is checked, not only the parser.
func TestNormalizedValuesDecodeAlike(t *testing.T) {
	for _, tc := range specExamples {
		got, err := Normalize([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := json.Unmarshal([]byte(tc.want), &b); err != nil {
			t.Fatalf("%s: the table's JSON: %v", tc.name, err)
		}
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestNormalizeRefuses(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", ``, 1, 1, "unexpected end of input, want a value"},
		{"only a comment", `// nothing`, 1, 11, "unexpected end of input, want a value"},
		{"a bare word value", `{env prod}`, 1, 6, `unexpected 'p' after the key "env", want ':'`},
		{"a bare word", `{env: prod}`, 1, 7, `unexpected word "prod", want a value (a string needs quotes)`},
		{"two trailing commas", `[1,,]`, 1, 4, `unexpected ',', want a value`},
		{"a leading comma", `{,}`, 1, 2, `unexpected ',', want a key or '}'`},
		{"unclosed object", `{"a": 1`, 1, 8, `unexpected end of input in an object, want ',' or '}'`},
		{"unclosed array", "[1,\n2", 2, 2, `unexpected end of input in an array, want ',' or ']'`},
		{"unterminated string", `'abc`, 1, 1, "unterminated string"},
		{"a raw line break in a string", "'a\nb'", 1, 3, "a line break in a string must be escaped"},
		{"unterminated comment", `1 /* x`, 1, 3, "unterminated /* comment"},
		{"Infinity", `{a: Infinity}`, 1, 5, "Infinity is JSON5 but has no JSON form"},
		{"-NaN", `[-NaN]`, 1, 2, "NaN is JSON5 but has no JSON form"},
		{"octal", `010`, 1, 1, "a number must not start with 0 (octal is not JSON5)"},
		{"an octal escape", `'\01'`, 1, 2, "octal escapes are not JSON5"},
		{"a digit escape", `'\7'`, 1, 2, `\7 is not a JSON5 escape`},
		{"a bad \\x", `'\xZZ'`, 1, 2, `\x must be followed by two hexadecimal digits`},
		{"a bad \\u", `'\u12'`, 1, 2, `\u must be followed by four hexadecimal digits`},
		{"a letter after a number", `3in`, 1, 2, `unexpected 'i' after a number`},
		{"a bare sign", `-`, 1, 1, "want digits in a number"},
		{"a bare point", `[.]`, 1, 2, "want digits in a number"},
		{"an exponent without digits", `1e`, 1, 1, "an exponent needs digits"},
		{"hex without digits", `0x`, 1, 1, "0x must be followed by hexadecimal digits"},
		{"two values", `1 2`, 1, 3, `unexpected '2' after the value`},
		{"mismatched brackets", `[1}`, 1, 3, `unexpected '}' in an array, want ',' or ']'`},
		{"a key that is a number", `{1: 2}`, 1, 2, `unexpected '1', want a key or '}'`},
		{"an escape in a key that cannot be", `{\u0020: 1}`, 1, 2, `\u0020 cannot be part of a name`},
		{"invalid UTF-8 outside strings", "\xff", 1, 1, "unexpected invalid UTF-8, want a value"},
		{"too deep", strings.Repeat("[", maxDepth+2), 1, maxDepth + 2, "nested too deeply"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize([]byte(tc.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Normalize(%q) = %s, %v; want a *SyntaxError", tc.in, got, err)
			}
			type at struct {
				Line, Col int
				Msg       string
			}
			if diff := cmp.Diff(at{tc.line, tc.col, tc.msg}, at{se.Line, se.Column, se.Msg}); diff != "" {
				t.Errorf("Normalize(%q) error (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestRepair(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{env prod}`, `{"env":"prod"}`},         // the spec's example
		{`{"key": "value",}`, `{"key":"value"}`}, // valid JSON5: its normal form
		{`{name: prod, region: us-east-1}`, `{"name":"prod","region":"us-east-1"}`},
		{`{a: 1 b: 2}`, `{"a":1,"b":2}`},
		{`[1 2 3]`, `[1,2,3]`},
		{`{"a": [1, 2`, `{"a":[1,2]}`},
		{`{"a": "unterminated`, `{"a":"unterminated"}`},
		{`{"a":}`, `{"a":null}`},
		{`{"a"}`, `{"a":null}`},
		{`{a: 1,, b: 2,}`, `{"a":1,"b":2}`},
		{`[1,,2,]`, `[1,2]`},
		{`{a: Infinity, b: NaN, c: undefined}`, `{"a":null,"b":null,"c":null}`},
		{`{a: True, b: None}`, `{"a":true,"b":null}`},
		{`{a: 010}`, `{"a":"010"}`},
		{`{a: [1}`, `{"a":[1]}`},
		{`}{"a": 1}`, `{"a":1}`},
		{`{"a": 1} trailing junk`, `{"a":1}`},
		{``, `null`},
		{`// only a comment`, `null`},
		{`{a: 1 /* unterminated`, `{"a":1}`},
		{`{{1}}`, `{"":{"1":null}}`},
		{`{"a": 'it\'s \q'}`, `{"a":"it's q"}`},
		{`hello world`, `"hello world"`},
		{`{title: write the docs, due: next friday}`, `{"title":"write the docs","due":"next friday"}`},
		{`{title: write docs priority: high}`, `{"title":"write docs","priority":"high"}`},
		{`{a: x 1}`, `{"a":"x 1"}`},
		{`{a: 1 x}`, `{"a":1,"x":null}`},
		{`[a b]`, `["a","b"]`},
	}
	for _, tc := range tests {
		got := Repair([]byte(tc.in))
		if string(got) != tc.want {
			t.Errorf("Repair(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if !json.Valid(got) {
			t.Errorf("Repair(%q) = %s, not valid JSON", tc.in, got)
		}
	}
}

// FuzzNormalize holds the package to its promises for any text: no panic;
// what Normalize accepts is valid JSON, normalizes to itself, and is what
// Repair returns; strict JSON keeps its value; Repair's answer is always
// valid JSON.
func FuzzNormalize(f *testing.F) {
	for _, tc := range append(specExamples, moreCases...) {
		f.Add([]byte(tc.in))
	}
	for _, s := range []string{`{env prod}`, `[1,,]`, `{"a":`, `'\u`, `/*`, "0x", "-.e", `{a:[{b:'`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Normalize(src)
		if err == nil {
			if !json.Valid(out) {
				t.Fatalf("Normalize(%q) = %q: not valid JSON", src, out)
			}
			again, err := Normalize(out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("Normalize(%q) = %q, which normalizes to %q, %v", src, out, again, err)
			}
			if r := Repair(src); !bytes.Equal(r, out) {
				t.Fatalf("Repair(%q) = %q, want Normalize's %q", src, r, out)
			}
		}
		if json.Valid(src) && utf8.Valid(src) {
			if err != nil {
				t.Fatalf("Normalize(%q) refused strict JSON: %v", src, err)
			}
			var a, b any
			if json.Unmarshal(src, &a) == nil && json.Unmarshal(out, &b) == nil && !cmp.Equal(a, b) {
				t.Fatalf("Normalize(%q) = %q changed the value", src, out)
			}
		}
		if r := Repair(src); !json.Valid(r) {
			t.Fatalf("Repair(%q) = %q: not valid JSON", src, r)
		}
	})
}
