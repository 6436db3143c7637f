package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/duet-cli/duet/schema"
)

func TestShape(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"nil", `null`, "any"},
		{"anything", `{}`, "any"},
		{"undeclared", `{"description":"not declared"}`, "any"},
		{"scalar", `{"type":"string","format":"date-time"}`, "string"},
		{"nullable", `{"type":["number","null"]}`, "number|null"},
		{"enum", `{"type":"string","enum":["open","done"]}`, `"open"|"done"`},
		{"object, required first", `{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string"},"id":{"type":"string"}},"required":["id"]}`,
			"{id:string,a?:string,b?:integer}"},
		{"list of records", `{"type":["array","null"],"items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"{id:string}[]|null"},
		{"array of a union", `{"type":"array","items":{"type":["string","null"]}}`, "(string|null)[]"},
		{"map", `{"type":"object","additionalProperties":{"type":"integer"}}`, "{[key:string]:integer}"},
		{"bare object", `{"type":"object"}`, "object"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`, "string|string[]"},
		{"recursive", `{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["kids"]}}}`,
			"{kids:Node[]}"},
		{"dangling ref", `{"$ref":"#/$defs/Gone"}`, "any"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s schema.Schema
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			if got := s.Shape(); got != tt.want {
				t.Errorf("Shape() = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestShapeReflected holds Shape to a schema reflected from a Go type, whose
// nodes are built in Go rather than parsed.
func TestShapeReflected(t *testing.T) {
	type run struct {
		ID     string   `json:"id"`
		Cost   *float64 `json:"cost_usd,omitempty"`
		Skills []string `json:"skills"`
	}
	s, err := schema.Of[[]run]().Schema()
	if err != nil {
		t.Fatal(err)
	}
	want := "{id:string,skills:string[],cost_usd?:number|null}[]"
	if got := s.Shape(); got != want {
		t.Errorf("Shape() = %s, want %s", got, want)
	}
}
