package toon

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/toon/toontest"
)

// refScript runs in one node process for the whole corpus: for each case it
// decodes our TOON with the reference decoder (strict mode, the default) and
// encodes the original JSON with the reference encoder.
const refScript = `
import { encode, decode } from '@toon-format/toon'
const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const cases = JSON.parse(Buffer.concat(chunks).toString('utf8'))
const results = cases.map(c => {
  const r = {}
  try { r.decoded = JSON.stringify(decode(c.toon, { indentSize: c.indent })) } catch (e) { r.decodeError = String(e) }
  try { r.encoded = encode(JSON.parse(c.json), { indentSize: c.indent, delimiter: c.delimiter }) } catch (e) { r.encodeError = String(e) }
  return r
})
process.stdout.write(JSON.stringify(results))
`

type refCase struct {
	name string
	json string
	opts Options
	// refDiff, when set, says why the reference encoder's output differs
	// from ours byte for byte; the round trip must still hold.
	refDiff string
}

// float64Diff is the refDiff of cases whose numbers JSON.parse rounds to
// float64 before the reference encoder sees them; our output keeps every
// digit (§2 requires lossless output within the implementation's domain).
const float64Diff = "the reference encodes JSON.parse's float64, which rounds these digits; ours are exact"

// handCases is the hand-written part of the corpus: what a CLI's answers
// look like, and the corners of §7–§10.
var handCases = []refCase{
	{name: "list answer", json: `{"ok":true,"command":"list","items":[
		{"id":1,"name":"alpha","note":"a,b","path":"C:\\tmp","status":"true"},
		{"id":2,"name":"beta: two","note":" lead","path":"/usr/bin","status":"null"},
		{"id":3,"name":"trail ","note":"","path":"x\ny","status":"42"},
		{"id":4,"name":"日本語 テキスト","note":"-","path":"[x]","status":"-7.5"},
		{"id":5,"name":"say \"hi\"","note":"{y}","path":"tab\there","status":"1e5"},
		{"id":6,"name":"🎉 party","note":"- dash","path":"05","status":"false"}
	],"next":null}`},
	{name: "records", json: string(records(20))},
	{name: "nested objects", json: `{"config":{"server":{"host":"localhost","port":8080,"tls":{"enabled":false,"cert":null}},"paths":["/usr/bin","C:\\Program Files"]},"version":"1.2.3"}`},
	{name: "arrays of arrays", json: `{"matrix":[[1,2,3],[4,5,6],[]],"names":[["a","b,c"],["d:e"," f "]],"deep":[[[1,2],[3]],[[]]]}`},
	{name: "mixed array", json: `{"mixed":[1,"two",{"three":3},[4,{"five":5}],null,true,{},[],[{"a":1},{"a":2}]]}`},
	{name: "empty containers", json: `{"a":{},"b":[],"c":[[]],"d":[{}],"e":[{},{}],"f":{"g":{}},"h":[[],[[]]]}`},
	{name: "list items by first field", json: `{"items":[
		{"a":{"b":1,"c":{}},"d":2},
		{"t":[{"x":1,"y":"p"},{"y":"q","x":2}],"u":3,"v":{"w":[1,2]}},
		{"l":[[1],[2,3]],"m":1},
		{"e":[],"f":{}},
		{"o":{},"p":1},
		{"q":[{"r":1},{"s":2}],"z":0},
		{"only":"one"}
	]}`},
	{name: "keys needing quotes", json: `{"full name":1,"a-b":2,"":3,"a.b":4,"x:y":5,"[k]":6,"é":7,"_ok":8,"tab\tkey":9,"quote\"key":10,"true":11,"-x":12,"a,b":[1,2],"c|d":[{"e f":1},{"e f":2}]}`},
	{name: "integer-like key first", json: `{"123":"x","b":1}`},
	{name: "duplicate keys", json: `{"a":1,"b":2,"a":{"c":3}}`},
	{name: "unicode", json: `{"s":["café","你好","🚀 launch","مرحبا","e\u0301","a\u2028b"],"k":"ok ✓"}`},
	{name: "control characters", json: `{"c":"a\u0000b\u0007c\u001fd\u007fe\u001b[0m"}`},
	{name: "floats", json: `{"pi":3.14159,"neg0":-0.0,"small":1e-7,"edge":0.000001,"tiny":5e-324,"big":1e21,"below":999999999999999900000,"huge":1.7976931348623157e308,"e":2.5E+3,"trail":1.50,"third":0.3333333333333333,"frac":[0.1,0.2,0.30000000000000004,-1.5e-10]}`},
	{name: "big integers", json: `{"id":12345678901234567890,"max":9007199254740993,"neg":-98765432109876543210,"wide":123456789012345678901234567890}`, refDiff: float64Diff},
	{name: "long decimals", json: `{"d":0.12345678901234567890123,"x":1.00000000000000000001}`, refDiff: float64Diff},
	{name: "root string", json: `"hello world"`},
	{name: "root string with comma", json: `"a,b"`},
	{name: "root string true", json: `"true"`},
	{name: "root empty string", json: `""`},
	{name: "root number", json: `-12.50`},
	{name: "root null", json: `null`},
	{name: "root false", json: `false`},
	{name: "root empty array", json: `[]`},
	{name: "root empty object", json: `{}`},
	{name: "root records", json: `[{"id":1,"ok":true},{"id":2,"ok":false}]`},
	{name: "root mixed", json: `["x",{"id":1,"tags":["a"]},[1,2],[{"a":1}],{}]`},
	{name: "list answer, tab", json: `{"items":[{"id":1,"note":"a,b","t":"a\tb","p":"a|b"},{"id":2,"note":"c","t":"","p":"|"}],"s":"x\ty","q":"a,b"}`, opts: Options{Delimiter: '\t'}},
	{name: "list answer, pipe", json: `{"items":[{"id":1,"note":"a,b","p":"a|b"},{"id":2,"note":"c","p":"|"}],"s":"a|b","q":"a,b","pairs":[["a|b","c"],[]]}`, opts: Options{Delimiter: '|'}},
	{name: "mixed, pipe, indent 4", json: `{"mixed":[1,"a|b",{"x":{"y":[1,2]}},[{"a":"b|c"}]]}`, opts: Options{Delimiter: '|', Indent: 4}},
	{name: "root array, tab", json: `["a b","c\td",{"k":"v\tw"}]`, opts: Options{Delimiter: '\t'}},
	{name: "indent 1", json: `{"a":{"b":[{"c":1},{"d":[[1]]}]}}`, opts: Options{Indent: 1}},

	{name: "hash", json: `{"h":"#x","tags":["#a","b#"],"rows":[{"a":"#1","b":1},{"a":"x","b":2}]}`},
	{name: "plus sign", json: `{"p":"+1","q":["+x","+2.5e3"]}`},

	// Spec v4 forms.
	{name: "keyed table", json: `{"servers":{"alpha":{"host":"a.example","port":80},"beta":{"host":"b.example","port":443}}}`},
	{name: "nested field group", json: `{"items":[{"id":"t1","meta":{"a":1,"b":2}},{"id":"t2","meta":{"a":3,"b":4}}]}`},
	{name: "keyed table of groups, pipe", json: `{"m":{"a":{"x":{"v":"p|q"},"y":1},"b":{"x":{"v":"r"},"y":2}}}`, opts: Options{Delimiter: '|'}},
	{name: "root keyed table, tab", json: `{"a":{"v":"x\ty"},"b":{"v":"z"}}`, opts: Options{Delimiter: '\t'}},

	// Strings where the reference quotes less than we do.
	{name: "unicode space", json: `{"nbsp":"\u00a0x","ideo":"x\u3000","bom":"\ufeffx","ls":"\u2028"}`, refDiff: unicodeSpaceDiff},
}

// unicodeSpaceDiff is the refDiff of strings that start or end with
// whitespace other than an ASCII space. The reference decoder trims only
// ASCII spaces, so it reads them right unquoted, but decoders built on a
// host's trim() may not; a quote costs a token or two on a rare string.
const unicodeSpaceDiff = "we quote strings edged with any Unicode White_Space (and U+FEFF); the reference quotes only ASCII space and tab"

// refRandomCases is how many generated documents join the corpus.
const refRandomCases = 300

func TestReference(t *testing.T) {
	cases := append([]refCase(nil), handCases...)
	cases = append(cases, corpusCases(t)...)
	cases = append(cases, specCases(t)...)
	cases = append(cases, randomCases(refRandomCases)...)

	type input struct {
		TOON      string `json:"toon"`
		JSON      string `json:"json"`
		Indent    int    `json:"indent"`
		Delimiter string `json:"delimiter"`
	}
	inputs := make([]input, len(cases))
	for i, c := range cases {
		out, err := AppendJSON(nil, []byte(c.json), c.opts)
		if err != nil {
			t.Fatalf("%s: AppendJSON(%s): %v", c.name, c.json, err)
		}
		indent, delim := c.opts.Indent, c.opts.Delimiter
		if indent == 0 {
			indent = 2
		}
		if delim == 0 {
			delim = ','
		}
		inputs[i] = input{string(out), c.json, indent, string(delim)}
	}

	var results []struct {
		Decoded     *string `json:"decoded"`
		DecodeError string  `json:"decodeError"`
		Encoded     *string `json:"encoded"`
		EncodeError string  `json:"encodeError"`
	}
	runReference(t, inputs, &results)
	if len(results) != len(cases) {
		t.Fatalf("the reference answered %d cases, want %d", len(results), len(cases))
	}

	differ := 0
	for i, c := range cases {
		r, ours := results[i], inputs[i].TOON
		if r.Decoded == nil {
			t.Errorf("%s: the reference cannot decode our output: %s\nJSON: %s\nTOON:\n%s", c.name, r.DecodeError, c.json, ours)
		} else if diff := cmp.Diff(comparable(t, c.json), comparable(t, *r.Decoded)); diff != "" {
			t.Errorf("%s: round trip through the reference decoder changed the data (-JSON +decoded):\n%s\nTOON:\n%s", c.name, diff, ours)
		}

		if r.Encoded == nil {
			t.Errorf("%s: the reference cannot encode the JSON: %s", c.name, r.EncodeError)
			continue
		}
		same := *r.Encoded == ours
		switch {
		case !same && c.refDiff == "":
			t.Errorf("%s: output differs from the reference encoder (-reference +ours):\n%s", c.name, cmp.Diff(*r.Encoded, ours))
		case !same:
			differ++
			t.Logf("%s: differs from the reference as expected (%s):\n%s", c.name, c.refDiff, cmp.Diff(*r.Encoded, ours))
		case c.refDiff != "":
			t.Errorf("%s: output now equals the reference encoder's; drop refDiff %q", c.name, c.refDiff)
		}
	}
	t.Logf("%d documents round-tripped through the reference decoder; %d byte-identical to the reference encoder, %d listed differences",
		len(cases), len(cases)-differ, differ)
}

// corpusDirs hold the corpus as JSON files: shapes that exercise each form
// and its corners, and realistic list answers, which tokens_test.go also
// prices.
var corpusDirs = []string{
	filepath.Join("testdata", "corpus"),
	filepath.Join("testdata", "lists"),
}

// corpusRefDiff is the refDiff of corpus files, by file name.
var corpusRefDiff = map[string]string{
	"big-numbers.json": float64Diff,
}

// corpusOptions are the layouts every corpus file is written in: each
// delimiter, since it decides quoting and header syntax, and an indent
// other than 2.
var corpusOptions = []Options{{}, {Delimiter: '\t'}, {Delimiter: '|', Indent: 4}}

// layout names opts in a test case's name.
func layout(opts Options) string {
	delim := "comma"
	switch opts.Delimiter {
	case '\t':
		delim = "tab"
	case '|':
		delim = "pipe"
	}
	indent := opts.Indent
	if indent == 0 {
		indent = 2
	}
	return fmt.Sprintf("%s, indent %d", delim, indent)
}

// readCorpus returns the corpus files of dir by file name.
func readCorpus(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in %s (%v)", dir, err)
	}
	files := make(map[string][]byte, len(paths))
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(path)] = data
	}
	return files
}

func corpusCases(t *testing.T) []refCase {
	t.Helper()
	var cases []refCase
	used := make(map[string]bool)
	for _, dir := range corpusDirs {
		for name, data := range readCorpus(t, dir) {
			used[name] = true
			for _, opts := range corpusOptions {
				cases = append(cases, refCase{
					name:    fmt.Sprintf("%s/%s (%s)", dir, name, layout(opts)),
					json:    string(data),
					opts:    opts,
					refDiff: corpusRefDiff[name],
				})
			}
		}
	}
	for name := range corpusRefDiff {
		if !used[name] {
			t.Errorf("corpusRefDiff lists %s, which is not in the corpus", name)
		}
	}
	return cases
}

// specCases are the inputs of the spec's encode fixtures: the reference
// encoder says what v4 makes of them, where spec_test.go checks the
// fixtures' v3.3 expectations.
func specCases(t *testing.T) []refCase {
	t.Helper()
	var cases []refCase
	for file, tests := range readSpecFixtures(t) {
		for _, f := range tests {
			if f.ShouldError || !f.supported() {
				continue
			}
			cases = append(cases, refCase{name: "spec " + file + ": " + f.Name, json: string(f.Input), opts: f.options(t)})
		}
	}
	return cases
}

// runReference sends in to refScript as JSON on stdin and decodes its
// stdout into out. It skips the test when node or the reference package is
// missing.
func runReference(t *testing.T, in, out any) {
	t.Helper()
	_, prefix, version := toontest.Node(t)
	t.Logf("reference: @toon-format/toon %s in %s", version, prefix)
	toontest.Run(t, refScript, in, out)
}

// comparable parses JSON with this package's parser and returns it as
// plain values for cmp. Objects become maps: §9.3 lets the rows of a table
// list their keys in any order, and the header's order is what decodes, so
// key order is checked by the byte comparison with the reference encoder
// and by the spec fixtures instead. Numbers become float64 because the
// reference decoder returns JavaScript numbers.
func comparable(t *testing.T, src string) any {
	t.Helper()
	v, err := parse([]byte(src))
	if err != nil {
		t.Fatalf("parse(%s): %v", src, err)
	}
	return plainValue(v, asFloat)
}

// asFloat is a number as the reference decoder returns it: a JavaScript
// number.
func asFloat(lit string) any {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return fmt.Sprintf("bad number %q: %v", lit, err)
	}
	return f
}

// randomCases generates n JSON documents from a fixed seed: objects, record
// lists (often tabular), arrays of arrays and mixed arrays, with strings made
// of fragments that trip §7.2. Numbers are shortest float64 forms, so the
// reference sees the same values; integer-like keys are left out because
// JavaScript objects list them first whatever the text order.
func randomCases(n int) []refCase {
	g := generator{r: rand.New(rand.NewPCG(7, 11))}
	delims := []byte{',', '\t', '|'}
	cases := make([]refCase, n)
	for i := range cases {
		var b strings.Builder
		g.value(&b, 0)
		cases[i] = refCase{
			name: fmt.Sprintf("random %d", i),
			json: b.String(),
			opts: Options{Delimiter: delims[i%3], Indent: 2 + 2*(i/3%2)},
		}
	}
	return cases
}

type generator struct{ r *rand.Rand }

var (
	fragments = []string{
		"", "a", "Ada", "b c", " ", ",", ":", "|", "\t", "\n", "\r", `"`, `\`, "-", "- ", "true", "false", "null",
		"42", "-3.5", "1e5", "05", "[", "]", "{", "}", "[2]", "é", "日本", "🚀", "x.y", "_", "0", "\u0001", "\u001f",
		"/", "'", "=", "*", "%", "&", "<", ">", "@", "~", "a: b", "key[1]:",
	}
	keys = []string{
		"id", "name", "a", "b", "c", "status", "x.y", "full name", "a-b", "_k", "", "k:v", "ünï", "a,b", "[i]",
		"-x", "true", "null", "42x", "a|b", "t\tk",
	}
)

func (g *generator) value(b *strings.Builder, depth int) {
	switch k := g.r.IntN(12); {
	case depth >= 4 || k < 3:
		g.primitive(b)
	case k < 5:
		g.array(b, depth)
	case k < 7:
		g.records(b, depth)
	case k < 9:
		g.keyed(b, depth)
	default:
		g.object(b, depth)
	}
}

func (g *generator) primitive(b *strings.Builder) {
	switch g.r.IntN(7) {
	case 0:
		b.WriteString([]string{"null", "true", "false"}[g.r.IntN(3)])
	case 1:
		b.WriteString(strconv.Itoa(g.r.IntN(2_000_001) - 1_000_000))
	case 2:
		f := g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(50)-25))
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		var s strings.Builder
		for range g.r.IntN(4) {
			s.WriteString(fragments[g.r.IntN(len(fragments))])
		}
		g.string(b, s.String())
	}
}

func (g *generator) string(b *strings.Builder, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

func (g *generator) array(b *strings.Builder, depth int) {
	b.WriteByte('[')
	primitives := g.r.IntN(2) == 0
	for i := range g.r.IntN(5) {
		if i > 0 {
			b.WriteByte(',')
		}
		if primitives {
			g.primitive(b)
		} else {
			g.value(b, depth+1)
		}
	}
	b.WriteByte(']')
}

// genField is a field of generated records: a primitive, or a nested
// record over sub, which a table folds into a nested field group.
type genField struct {
	key string
	sub []genField
}

// shape returns the fields of a set of records, with nested records at
// most three levels deep.
func (g *generator) shape(level int) []genField {
	fields := make([]genField, 1+g.r.IntN(4))
	for i := range fields {
		fields[i].key = keys[g.r.IntN(len(keys))]
		if level < 3 && g.r.IntN(5) == 0 {
			fields[i].sub = g.shape(level + 1)
		}
	}
	return fields
}

// record writes an object over fields, in a random key order, now and
// then with a key missing or an arbitrary value, either of which rules out
// the tabular forms.
func (g *generator) record(b *strings.Builder, fields []genField, depth int) {
	order := g.r.Perm(len(fields))
	if g.r.IntN(10) == 0 {
		order = order[1:]
	}
	b.WriteByte('{')
	for j, f := range order {
		if j > 0 {
			b.WriteByte(',')
		}
		g.string(b, fields[f].key)
		b.WriteByte(':')
		switch {
		case g.r.IntN(12) == 0:
			g.value(b, depth+1)
		case fields[f].sub != nil:
			g.record(b, fields[f].sub, depth+1)
		default:
			g.primitive(b)
		}
	}
	b.WriteByte('}')
}

// records writes a list of records over one shape, often tabular.
func (g *generator) records(b *strings.Builder, depth int) {
	fields := g.shape(0)
	b.WriteByte('[')
	for i := range 1 + g.r.IntN(4) {
		if i > 0 {
			b.WriteByte(',')
		}
		g.record(b, fields, depth+1)
	}
	b.WriteByte(']')
}

// keyed writes an object of records over one shape, often a keyed table.
func (g *generator) keyed(b *strings.Builder, depth int) {
	fields := g.shape(0)
	b.WriteByte('{')
	for i := range 1 + g.r.IntN(4) {
		if i > 0 {
			b.WriteByte(',')
		}
		g.string(b, keys[g.r.IntN(len(keys))])
		b.WriteByte(':')
		g.record(b, fields, depth+1)
	}
	b.WriteByte('}')
}

func (g *generator) object(b *strings.Builder, depth int) {
	b.WriteByte('{')
	for i := range g.r.IntN(5) {
		if i > 0 {
			b.WriteByte(',')
		}
		g.string(b, keys[g.r.IntN(len(keys))])
		b.WriteByte(':')
		g.value(b, depth+1)
	}
	b.WriteByte('}')
}
