package envelope_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// png is the start of a PNG file: its signature is not UTF-8.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\xff\xfe")

type image struct {
	Name  string          `json:"name"`
	Bytes envelope.Binary `json:"bytes"`
	Thumb *envelope.Binary
}

// TestBinaryInEnvelope: raw bytes, as a declared field or as the whole
// result, reach an agent as the F-017 wrapper; size_bytes is their length,
// and decoding value gives them back.
func TestBinaryInEnvelope(t *testing.T) {
	tests := []struct {
		name        string
		result      any
		path        func(map[string]any) map[string]any
		contentType string
	}{
		{"a declared field", image{Name: "logo.png", Bytes: envelope.Binary{Bytes: png, ContentType: "image/png"}},
			func(d map[string]any) map[string]any { return d["bytes"].(map[string]any) }, "image/png"},
		{"the whole result", png, func(d map[string]any) map[string]any { return d }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			out.Result(tc.result)
			out.Finish(fixedMeta(), nil)
			w := decodeOne(t, stdout.Bytes())
			var data map[string]any
			if err := json.Unmarshal(w.Data, &data); err != nil {
				t.Fatalf("data is not an object: %v\n%s", err, w.Data)
			}
			wrapper := tc.path(data)
			want := map[string]any{"type": "binary", "encoding": "base64", "value": base64.StdEncoding.EncodeToString(png), "size_bytes": float64(len(png))}
			if tc.contentType != "" {
				want["content_type"] = tc.contentType
			}
			if diff := cmp.Diff(want, wrapper); diff != "" {
				t.Errorf("wrapper (-want +got):\n%s", diff)
			}
			got, err := base64.StdEncoding.DecodeString(wrapper["value"].(string))
			if err != nil || string(got) != string(png) {
				t.Errorf("decoding value gives %q, %v; want the original bytes", got, err)
			}
		})
	}
}

// TestBinaryRoundTrip: a Go caller gets the bytes back with UnmarshalJSON,
// which refuses a wrapper whose size does not match.
func TestBinaryRoundTrip(t *testing.T) {
	in := image{Name: "x", Bytes: envelope.Binary{Bytes: png, ContentType: "image/png"}, Thumb: &envelope.Binary{}}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back image
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, back, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	var b envelope.Binary
	for _, bad := range []string{
		`{"type":"binary","encoding":"base64","value":"AAE=","size_bytes":3}`,
		`{"type":"text","encoding":"base64","value":"","size_bytes":0}`,
		`{"type":"binary","encoding":"base64","value":"!!","size_bytes":0}`,
		`"AAE="`,
	} {
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("UnmarshalJSON(%s) accepted it", bad)
		}
	}
}

// TestBinarySchema: schema.Of describes a Binary field as the wrapper, and
// what MarshalJSON writes validates against it.
func TestBinarySchema(t *testing.T) {
	src := schema.Of[image]()
	c, err := validator.Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(image{Bytes: envelope.Binary{Bytes: png, ContentType: "image/png"}, Thumb: &envelope.Binary{Bytes: []byte{0}}})
	if err := c.Validate(raw); err != nil {
		t.Errorf("the encoding does not validate against its schema: %v", err)
	}
	if err := c.Validate(json.RawMessage(`{"name":"x","bytes":"iVBOR","Thumb":null}`)); err == nil {
		t.Error("a bare base64 string validated as a Binary")
	}
}
