package describe

import (
	"reflect"
	"testing"

	"github.com/duet-cli/duet/schema"
)

// TestSameFlagSeesEveryField holds sameFlag to every field of FlagEntry: a
// field added to it and not compared would let two different flags be said
// once, as one global flag.
func TestSameFlagSeesEveryField(t *testing.T) {
	base := schema.FlagEntry{Type: "string", Description: "d", Default: "x", EnumValues: []string{"a"}, Env: []string{"E"}}
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "!")
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"other"}))
		case reflect.Interface:
			f.Set(reflect.ValueOf(42))
		case reflect.Map:
			f.Set(reflect.ValueOf(schema.Schema{"type": "object"}))
		default:
			t.Fatalf("field %s: a kind this test cannot change", v.Type().Field(i).Name)
		}
		if sameFlag(base, other) {
			t.Errorf("sameFlag does not see %s", v.Type().Field(i).Name)
		}
	}
	if !sameFlag(base, base) {
		t.Error("a flag is not the same as itself")
	}
}
