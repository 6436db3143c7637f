package schema

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // fragments every one of which the error must contain; none means valid
	}{
		{"generated", "", nil},
		{"bool schemas", `{"type":"object","properties":{"a":true},"additionalProperties":false}`, nil},
		{"local ref", `{"$defs":{"R":{"type":"string"}},"items":{"$ref":"#/$defs/R"}}`, nil},
		{"type not a name", `{"type": 12}`, []string{"type must be a string"}},
		{"unknown type", `{"type": "text"}`, []string{`type "text"`}},
		{"dangling ref", `{"$ref": "#/$defs/missing"}`, []string{"points nowhere"}},
		{"remote ref", `{"$ref": "file:///etc/passwd"}`, []string{"outside this document"}},
		{"bad pattern", `{"type":"string","pattern":"(["}`, []string{"does not compile"}},
		{"several at once", `{"properties":{"a":{"type":"text"},"b":{"minLength":"x"}}}`,
			[]string{"/properties/a", `type "text"`, "/properties/b", "minLength must be a number"}},
		{"properties not an object", `{"properties":[1]}`, []string{"properties must be an object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSchema(t, Of[testRun]())
			if tt.doc != "" {
				s = MustParse(tt.doc)
			}
			err := s.Check()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Check() = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// Wrap validates only declared exit-code tables, trusting the defaults.
func TestDefaultExitCodesAreValid(t *testing.T) {
	for _, d := range []Danger{Safe, Mutating, Destructive} {
		c := &Command{Name: "x", Meta: Meta{Danger: d}}
		if err := c.ExitCodes().Validate(); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
