package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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

// testShadow checks encoding/json's name rules: the shallower field wins,
// a tagged one beats an untagged one at the same depth, and fields of an
// embedded pointer may be absent.
type testShadow struct {
	*testBase
	ID    int `json:"id"`
	inner     // unexported embedded struct: its exported fields are promoted
}

type inner struct {
	Kind    string `json:"created"` // conflicts with testBase.Created at the same depth: tagged both, dropped
	Visible bool
}

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		got  Source
		want string
	}{
		{"scalar", Of[string](), `{"type": "string"}`},
		{"pointer scalar", Of[*int](), `{"type": ["integer", "null"]}`},
		{"any", Of[any](), `{}`},
		{"struct", Of[testRun](), `{
			"type": "object",
			"additionalProperties": false,
			"properties": {
				"id": {"type": "string"},
				"created": {"type": "string", "format": "date-time"},
				"status": {"type": "string"},
				"owner": {
					"type": "object",
					"additionalProperties": false,
					"properties": {
						"name": {"type": "string", "description": "Who started it."},
						"email": {"type": "string"}
					},
					"required": ["name"]
				},
				"parent": {
					"type": ["object", "null"],
					"additionalProperties": false,
					"properties": {
						"name": {"type": "string", "description": "Who started it."},
						"email": {"type": "string"}
					},
					"required": ["name"]
				},
				"tags": {"type": "array", "items": {"type": "string"}},
				"labels": {"type": "object", "additionalProperties": {"type": "integer"}},
				"took": {"type": "integer"},
				"extra": {},
				"any": {},
				"blob": {"type": ["string", "null"], "contentEncoding": "base64"},
				"count": {"type": "string"},
				"score": {"type": "number"},
				"Untagged": {"type": "boolean"},
				"steps": {
					"type": "array",
					"items": {
						"type": "object",
						"additionalProperties": {
							"type": ["object", "null"],
							"additionalProperties": false,
							"properties": {"Done": {"type": "boolean"}},
							"required": ["Done"]
						}
					}
				}
			},
			"required": ["id", "created", "status", "owner", "parent", "labels", "took", "count", "score", "Untagged"]
		}`},
		{"top-level slice", Of[[]testOwner](), `{
			"type": "array",
			"items": {
				"type": "object",
				"additionalProperties": false,
				"properties": {
					"name": {"type": "string", "description": "Who started it."},
					"email": {"type": "string"}
				},
				"required": ["name"]
			}
		}`},
		{"recursive", Of[testTree](), `{
			"type": "object",
			"additionalProperties": false,
			"properties": {
				"root": {"$ref": "#/$defs/testNode"},
				"other": {"anyOf": [{"$ref": "#/$defs/testNode"}, {"type": "null"}]}
			},
			"required": ["root"],
			"$defs": {
				"testNode": {
					"type": "object",
					"additionalProperties": false,
					"properties": {
						"value": {"type": "integer"},
						"children": {
							"type": "array",
							"items": {"anyOf": [{"$ref": "#/$defs/testNode"}, {"type": "null"}]}
						},
						"next": {"anyOf": [{"$ref": "#/$defs/testNode"}, {"type": "null"}]}
					},
					"required": ["value", "children"]
				}
			}
		}`},
		{"recursive root", Of[testNode](), `{
			"$ref": "#/$defs/testNode",
			"$defs": {
				"testNode": {
					"type": "object",
					"additionalProperties": false,
					"properties": {
						"value": {"type": "integer"},
						"children": {
							"type": "array",
							"items": {"anyOf": [{"$ref": "#/$defs/testNode"}, {"type": "null"}]}
						},
						"next": {"anyOf": [{"$ref": "#/$defs/testNode"}, {"type": "null"}]}
					},
					"required": ["value", "children"]
				}
			}
		}`},
		{"name conflicts", Of[testShadow](), `{
			"type": "object",
			"additionalProperties": false,
			"properties": {
				"id": {"type": "integer"},
				"Visible": {"type": "boolean"}
			},
			"required": ["id", "Visible"]
		}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(MustParse(tt.want), mustSchema(t, tt.got)); diff != "" {
				t.Errorf("Of mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOfDeterministic checks that a generated schema prints the same bytes
// every time, as --schema output is compared and cached.
func TestOfDeterministic(t *testing.T) {
	first, err := json.Marshal(mustSchema(t, Of[testRun]()))
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		again, err := json.Marshal(mustSchema(t, Of[testRun]()))
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(first) {
			t.Fatalf("Of is not deterministic:\n%s\n%s", first, again)
		}
	}
}

// TestOfUnsupported checks that a type encoding/json cannot encode is an
// error from Schema, as it is from json.Marshal, and that Of itself, which
// builds nothing, accepts it.
func TestOfUnsupported(t *testing.T) {
	tests := []struct {
		name string
		src  *Reflected
		want string
	}{
		{"channel field", Of[struct{ C chan int }](), "encoding/json cannot encode chan int"},
		{"function in a slice", Of[[]func()](), "encoding/json cannot encode func()"},
		{"complex", Of[map[string]complex128](), "encoding/json cannot encode complex128"},
		{"map key", Of[map[[2]int]string](), "cannot encode map keys of type [2]int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.src.Schema()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Schema() = %v, %v; want an error containing %q", s, err, tt.want)
			}
			if s != nil {
				t.Errorf("Schema() returned a schema with its error: %v", s)
			}
		})
	}
}

// TestReflectedOnce checks that a Reflected builds its schema once, however
// many goroutines ask: describe builds documents in parallel, and shared
// schemas are recognised by identity.
func TestReflectedOnce(t *testing.T) {
	src := Of[testRun]()
	first := mustSchema(t, src)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s, err := src.Schema()
			if err != nil || reflect.ValueOf(s).Pointer() != reflect.ValueOf(first).Pointer() {
				t.Errorf("Schema() = %p, %v; want the first schema %p", s, err, first)
			}
		})
	}
	wg.Wait()
	if got := src.Type(); got != reflect.TypeFor[testRun]() {
		t.Errorf("Type() = %v, want testRun", got)
	}
}

// mustSchema returns src's schema, failing the test on an error.
func mustSchema(t testing.TB, src Source) Schema {
	t.Helper()
	s, err := src.Schema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProperties(t *testing.T) {
	tests := []struct {
		name string
		s    Source
		want []string
	}{
		{"struct", Of[testOwner](), []string{"email", "name"}},
		{"slice of struct", Of[[]testOwner](), []string{"email", "name"}},
		{"recursive root", Of[testNode](), []string{"children", "next", "value"}},
		{"pointer to recursive", Of[*testNode](), []string{"children", "next", "value"}},
		{"hand-written", MustParse(`{"type": "array", "items": {"type": "object", "properties": {"b": {}, "a": {}}}}`), []string{"a", "b"}},
		{"scalar", Of[int](), []string{}},
		{"nil", Schema(nil), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mustSchema(t, tt.s).Properties()); diff != "" {
				t.Errorf("Properties mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
