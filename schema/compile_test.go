package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestCompileInvalid(t *testing.T) {
	tests := []struct {
		name string
		s    Schema
	}{
		{"type not a name", MustParse(`{"type": 12}`)},
		{"unknown type", MustParse(`{"type": "text"}`)},
		{"dangling ref", MustParse(`{"$ref": "#/$defs/missing"}`)},
		{"remote ref", MustParse(`{"$ref": "file:///etc/passwd"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.s.Compile(); err == nil {
				t.Fatal("Compile succeeded, want an error")
			}
		})
	}
}

// mustValidate encodes v as json.Marshal does and validates it against the
// schema generated for its type.
func mustValidate[T any](t *testing.T, v T) {
	t.Helper()
	c, err := Of[T]().Compile()
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(data); err != nil {
		t.Errorf("Validate(%s): %v", data, err)
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
	c, err := Of[testRun]().Compile()
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
	c, err := Of[testOwner]().Compile()
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
	c, err := Schema(nil).Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{`null`, `1`, `"x"`, `[1, {}]`, `{"a": {"b": false}}`} {
		if err := c.Validate(json.RawMessage(data)); err != nil {
			t.Errorf("Validate(%s): %v", data, err)
		}
	}
}
