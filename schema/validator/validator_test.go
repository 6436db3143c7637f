package validator

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

func TestCompileInvalid(t *testing.T) {
	tests := []struct {
		name string
		s    schema.Schema
	}{
		{"type not a name", schema.MustParse(`{"type": 12}`)},
		{"unknown type", schema.MustParse(`{"type": "text"}`)},
		{"dangling ref", schema.MustParse(`{"$ref": "#/$defs/missing"}`)},
		{"remote ref", schema.MustParse(`{"$ref": "file:///etc/passwd"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compile(tt.s); err == nil {
				t.Fatal("Compile succeeded, want an error")
			}
		})
	}
}

// mustValidate encodes v as Duet writes a command's result (data of a JSON
// envelope: nil slices and maps are [] and {}) and validates it against
// the schema generated for its type.
func mustValidate[T any](t *testing.T, v T) {
	t.Helper()
	c, err := Compile(schema.Of[T]())
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	var stdout bytes.Buffer
	out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, Stdout: &stdout})
	out.Result(v)
	if e := out.Finish(envelope.Meta{Command: "show"}, nil); e != nil {
		t.Fatal(e)
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(env.Data); err != nil {
		t.Errorf("Validate(%s): %v", env.Data, err)
	}
}

func TestValidateEncodedValues(t *testing.T) {
	created := time.Date(2026, 3, 1, 12, 30, 0, 123, time.UTC)
	full := testRun{
		testBase: testBase{ID: "r1", Created: created},
		Status:   "running",
		Owner:    testOwner{Name: "ann", Email: "ann@example.com"},
		Parent:   &testOwner{Name: "bob"},
		Tags:     []string{"a", "b"},
		Labels:   map[string]int{"x": 1},
		Took:     3 * time.Second,
		Extra:    json.RawMessage(`{"anything": [1, "two"]}`),
		Any:      []any{1, "x", nil},
		Blob:     []byte("hi"),
		Count:    42,
		Score:    0.5,
		Secret:   "not written",
		Untagged: true,
		internal: 1,
		Steps:    [2]map[string]*testStep{{"s": {Done: true}, "nil": nil}},
	}
	t.Run("full", func(t *testing.T) { mustValidate(t, full) })
	t.Run("zero", func(t *testing.T) { mustValidate(t, testRun{}) })
	t.Run("slice", func(t *testing.T) { mustValidate(t, []testRun{full, {}}) })
	t.Run("nil slice", func(t *testing.T) { mustValidate[[]testRun](t, nil) })
	t.Run("recursive", func(t *testing.T) {
		leaf := &testNode{Value: 3}
		mustValidate(t, testTree{
			Root:  testNode{Value: 1, Children: []*testNode{leaf, nil}, Next: &testNode{Value: 2}},
			Other: leaf,
		})
	})
	t.Run("name conflicts", func(t *testing.T) {
		mustValidate(t, testShadow{testBase: &testBase{ID: "hidden"}, ID: 7, inner: inner{Kind: "k", Visible: true}})
	})
	t.Run("nil embedded pointer", func(t *testing.T) { mustValidate(t, testShadow{}) })
}

func TestValidateRejects(t *testing.T) {
	c, err := Compile(schema.Of[testRun]())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(testRun{Status: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	var bad map[string]any
	if err := json.Unmarshal(data, &bad); err != nil {
		t.Fatal(err)
	}
	bad["status"] = 12       // wrong type
	delete(bad, "score")     // missing
	bad["unexpected"] = true // undeclared

	data, err = json.Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate(data)
	if err == nil {
		t.Fatal("Validate accepted a value with three violations")
	}
	for _, want := range []string{"/status", "score", "unexpected"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		t.Errorf("error does not wrap *jsonschema.ValidationError: %T", err)
	}
	t.Log(err)
}

func TestValidateNotJSON(t *testing.T) {
	c, err := Compile(schema.Of[testOwner]())
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{``, `{`, `{} {}`} {
		if err := c.Validate(json.RawMessage(data)); err == nil {
			t.Errorf("Validate(%q) succeeded, want an error", data)
		}
	}
}

func TestNilSchemaAcceptsAnything(t *testing.T) {
	c, err := Compile(schema.Schema(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{`null`, `1`, `"x"`, `[1, {}]`, `{"a": {"b": false}}`} {
		if err := c.Validate(json.RawMessage(data)); err != nil {
			t.Errorf("Validate(%s): %v", data, err)
		}
	}
}

// The types below mirror those of package schema's reflection tests: a
// test of package schema cannot import this package (a cycle), and the
// fixtures use unexported fields, so they cannot be shared through an export.

type testOwner struct {
	Name  string `json:"name" doc:"Who started it."`
	Email string `json:"email,omitempty"`
}

type testBase struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
}

type testRun struct {
	testBase                         // flattened: id, created
	Status   string                  `json:"status"`
	Owner    testOwner               `json:"owner"`
	Parent   *testOwner              `json:"parent"`
	Tags     []string                `json:"tags,omitempty"`
	Labels   map[string]int          `json:"labels"`
	Took     time.Duration           `json:"took"`
	Extra    json.RawMessage         `json:"extra,omitempty"`
	Any      any                     `json:"any,omitzero"`
	Blob     []byte                  `json:"blob,omitempty"`
	Count    int64                   `json:"count,string"`
	Score    float64                 `json:"score"`
	Secret   string                  `json:"-"`
	Untagged bool                    //
	internal int                     // unexported: never written
	Steps    [2]map[string]*testStep `json:"steps,omitempty"`
}

type testStep struct{ Done bool }

type testNode struct {
	Value    int         `json:"value"`
	Children []*testNode `json:"children"`
	Next     *testNode   `json:"next,omitempty"`
}

type testTree struct {
	Root  testNode  `json:"root"`
	Other *testNode `json:"other,omitempty"`
}

type testShadow struct {
	*testBase
	ID    int `json:"id"`
	inner     // unexported embedded struct: its exported fields are promoted
}
type inner struct {
	Kind    string `json:"created"` // conflicts with testBase.Created at the same depth: tagged both, dropped
	Visible bool
}
