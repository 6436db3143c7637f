package jsonw_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/internal/jsonw"
)

var strings = []string{
	"", "plain", `quote " and backslash \`, "tab\tnew\nline\rcr", "\b\f\x00\x01\x1f\x7f",
	"<html> & 'quotes'", "héllo 日本語 🎉", "bad \xff utf8 \xc3", "sep \u2028 \u2029",
	"\x1b[31mred\x1b[0m", "trailing \\",
}

func TestStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range strings {
		if got, want := string(jsonw.String(nil, s)), jsontest.Encode(t, s); got != want {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range strings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(jsonw.String(nil, s)), jsontest.Encode(t, s); got != want {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestObject(t *testing.T) {
	b := append([]byte(nil), '{')
	b = jsonw.Key(b, "a")
	b = jsonw.Int(b, -3)
	b = jsonw.Key(b, "b")
	b = jsonw.Bool(b, true)
	b = jsonw.Key(b, "c")
	b = jsonw.Strings(b, nil)
	b = jsonw.Key(b, "d")
	b = jsonw.Strings(b, []string{"x", "y\n"})
	b = append(b, '}')
	if got, want := string(b), `{"a":-3,"b":true,"c":[],"d":["x","y\n"]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

type named string

type withMethod struct{ A int }

func (withMethod) MarshalJSON() ([]byte, error) { return []byte(`{"custom": true}`), nil }

type appender struct{}

func (appender) AppendJSON(b []byte) []byte { return append(b, `"appended"`...) }

func TestValueMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, "s<&>", true, false, 0, -7, int64(1) << 60, 0.0, 1.5, -2.25, 1e21, 1e-7, 123456789.125, 3e-324,
		json.Number("12.50"), []string{"a", "b"}, []string(nil), []any{1.0, "x", nil, []any{}},
		map[string]any{"b": 1.0, "a": map[string]any{"z": []any{"y"}, "<": ">"}, "": false},
		map[string]any{}, named("type"), withMethod{}, struct {
			X int    `json:"x"`
			Y string `json:"y,omitempty"`
		}{X: 1}, []int{1, 2}, map[string]int{"b": 2, "a": 1},
	}
	for _, v := range values {
		got, err := jsonw.Value(nil, v)
		if err != nil {
			t.Errorf("Value(%#v): %v", v, err)
			continue
		}
		if want := jsontest.Encode(t, v); string(got) != want {
			t.Errorf("Value(%#v) = %s, want %s", v, got, want)
		}
	}
}

func TestValueAppenderAndErrors(t *testing.T) {
	got, err := jsonw.Value(nil, map[string]any{"k": appender{}})
	if err != nil || string(got) != `{"k":"appended"}` {
		t.Errorf("Value(appender) = %s, %v", got, err)
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), map[string]any{"c": make(chan int)}} {
		if _, err := jsonw.Value(nil, bad); err == nil {
			t.Errorf("Value(%v) succeeded, want an error", bad)
		}
	}
}

func FuzzFloat(f *testing.F) {
	for _, x := range []float64{0, 1, -1, 1e-6, 9.99999e-7, 1e20, 1e21, 5e-324, math.MaxFloat64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		got, err := jsonw.Float(nil, x)
		if want := jsontest.Encode(t, x); err != nil || string(got) != want {
			t.Errorf("Float(%v) = %s, %v; want %s", x, got, err, want)
		}
	})
}

func TestMapFunc(t *testing.T) {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	got := jsonw.MapFunc(nil, m, func(v int, b []byte) []byte { return jsonw.Int(b, int64(v)) })
	if want := jsontest.Encode(t, m); string(got) != want {
		t.Errorf("MapFunc = %s, want %s", got, want)
	}
	if got := jsonw.MapFunc[int](nil, nil, nil); string(got) != "null" {
		t.Errorf("MapFunc(nil) = %s, want null", got)
	}
}
