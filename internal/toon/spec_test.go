package toon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specFixture is one test of the spec's encode fixtures
// (testdata/spec/encode, schema in @toon-format/spec tests/fixtures.schema.json).
type specFixture struct {
	Name        string          `json:"name"`
	Input       json.RawMessage `json:"input"` // raw, so key order and number text reach AppendJSON as written
	Expected    string          `json:"expected"`
	ShouldError bool            `json:"shouldError"`
	Options     struct {
		Delimiter    string `json:"delimiter"`
		Indent       int    `json:"indent"`
		KeyFolding   string `json:"keyFolding"`
		FlattenDepth *int   `json:"flattenDepth"`
	} `json:"options"`
}

// unsupportedFixtures are the fixtures needing an option this package does
// not have: key folding (§13.4), which the envelope renderer does not want
// (a folded key is ambiguous with a literal dotted key unless the reader
// expands paths) and which the v4 reference, @toon-format/toon 4.4.0, no
// longer offers.
var unsupportedFixtures = map[string]string{
	"encodes folded chain to primitive (safe mode)":              "keyFolding=safe",
	"encodes folded chain with inline array":                     "keyFolding=safe",
	"encodes folded chain with tabular array":                    "keyFolding=safe",
	"skips folding when segment requires quotes (safe mode)":     "keyFolding=safe",
	"skips folding on sibling literal-key collision (safe mode)": "keyFolding=safe",
	"encodes partial folding with flattenDepth=2":                "keyFolding=safe, flattenDepth=2",
	"encodes full chain with flattenDepth=Infinity (default)":    "keyFolding=safe",
	"encodes folded chain ending with empty object":              "keyFolding=safe",
	"stops folding at array boundary (not single-key object)":    "keyFolding=safe",
	"encodes folded chains preserving sibling field order":       "keyFolding=safe",
}

// v4Fixtures are the fixtures of spec 3.3.2 whose output TOON v4 changes,
// with the v4 output, which is what @toon-format/toon 4.4.0 encodes: the
// fixtures hold no newer expectations, as no newer @toon-format/spec is
// published. TestReference compares every fixture with that encoder, so
// this list is checked whenever Node.js is at hand.
var v4Fixtures = map[string]struct{ why, want string }{
	"uses list format for objects with nested values": {
		why:  "a uniform nested object becomes a nested field group",
		want: "items[1]{id,nested{x}}:\n  1,1",
	},
}

// supported reports whether f's options are ones AppendJSON has, or ones
// equivalent to its fixed behaviour: keyFolding "off", and "safe" with a
// flattenDepth below 2, which §13.4 says folds nothing.
func (f *specFixture) supported() bool {
	o := f.Options
	switch o.KeyFolding {
	case "", "off":
		return true
	case "safe":
		return o.FlattenDepth != nil && *o.FlattenDepth < 2
	}
	return false
}

func (f *specFixture) options(t *testing.T) Options {
	var opts Options
	opts.Indent = f.Options.Indent
	switch d := f.Options.Delimiter; len(d) {
	case 0:
	case 1:
		opts.Delimiter = d[0]
	default:
		t.Fatalf("delimiter %q is not one byte", d)
	}
	return opts
}

func readSpecFixtures(t testing.TB) map[string][]specFixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "spec", "encode", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/spec/encode (%v)", err)
	}
	files := make(map[string][]specFixture)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Category string        `json:"category"`
			Tests    []specFixture `json:"tests"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if file.Category != "encode" {
			t.Fatalf("%s: category %q, want encode", path, file.Category)
		}
		files[filepath.Base(path)] = file.Tests
	}
	return files
}

func TestSpecFixtures(t *testing.T) {
	files := readSpecFixtures(t)
	// Every name in the skip list must still name a fixture, or the list
	// hides nothing and should shrink.
	names := make(map[string]bool)
	for _, tests := range files {
		for _, f := range tests {
			names[f.Name] = true
		}
	}
	for name := range unsupportedFixtures {
		if !names[name] {
			t.Errorf("unsupportedFixtures lists %q, which is not a fixture", name)
		}
	}
	for name := range v4Fixtures {
		if !names[name] {
			t.Errorf("v4Fixtures lists %q, which is not a fixture", name)
		}
	}
	for file, tests := range files {
		t.Run(file, func(t *testing.T) {
			for _, f := range tests {
				t.Run(f.Name, func(t *testing.T) {
					if reason, ok := unsupportedFixtures[f.Name]; ok {
						if f.supported() {
							t.Fatalf("listed as unsupported (%s) but its options are supported", reason)
						}
						t.Skip("unsupported option: " + reason)
					}
					if !f.supported() {
						t.Fatalf("options %+v are unsupported: add the fixture to unsupportedFixtures", f.Options)
					}
					got, err := AppendJSON(nil, f.Input, f.options(t))
					if f.ShouldError {
						if err == nil {
							t.Fatalf("AppendJSON(%s) = %q, want an error", f.Input, got)
						}
						return
					}
					if err != nil {
						t.Fatalf("AppendJSON(%s): %v", f.Input, err)
					}
					want := f.Expected
					if v4, ok := v4Fixtures[f.Name]; ok {
						if v4.want == f.Expected {
							t.Fatalf("listed in v4Fixtures (%s), but its v4 output is the fixture's", v4.why)
						}
						want = v4.want
					}
					if diff := cmp.Diff(want, string(got)); diff != "" {
						t.Errorf("AppendJSON(%s) mismatch (-want +got):\n%s", f.Input, diff)
					}
				})
			}
		})
	}
}
