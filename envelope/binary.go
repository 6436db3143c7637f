package envelope

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/duet-cli/duet/internal/jsonw"
)

// Binary is a value that may not be text — an image, an archive, any bytes —
// declared as such so that it reaches an agent intact. It encodes as the
// wrapper the CLI Agent Spec defines (its F-017):
//
//	{"type":"binary","encoding":"base64","value":"iVBOR…","size_bytes":1024,"content_type":"image/png"}
//
// A command declares a field of its result as binary by giving it this type;
// a result that is a []byte as a whole is encoded the same way. The wrapper
// is written whatever the bytes are, valid UTF-8 or not, so the field has
// one shape an agent can rely on. content_type is left out when empty.
type Binary struct {
	Bytes       []byte
	ContentType string // a media type, such as image/png; optional
}

// MarshalJSON encodes the wrapper.
func (b Binary) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(b.Bytes))+96)
	out = append(out, `{"type":"binary","encoding":"base64","value":"`...)
	out = base64.StdEncoding.AppendEncode(out, b.Bytes)
	out = append(out, `","size_bytes":`...)
	out = jsonw.Int(out, int64(len(b.Bytes)))
	out = optString(out, "content_type", b.ContentType)
	return append(out, '}'), nil
}

// UnmarshalJSON decodes the wrapper, so that a Go caller reading an
// envelope recovers the bytes. It checks the encoding and the size.
func (b *Binary) UnmarshalJSON(data []byte) error {
	var w struct {
		Type        string `json:"type"`
		Encoding    string `json:"encoding"`
		Value       string `json:"value"`
		SizeBytes   int    `json:"size_bytes"`
		ContentType string `json:"content_type"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("envelope: binary: %w", err)
	}
	if w.Type != "binary" || w.Encoding != "base64" {
		return fmt.Errorf("envelope: binary: type %q, encoding %q: want binary, base64", w.Type, w.Encoding)
	}
	raw, err := base64.StdEncoding.DecodeString(w.Value)
	if err != nil {
		return fmt.Errorf("envelope: binary: value: %w", err)
	}
	if len(raw) != w.SizeBytes {
		return fmt.Errorf("envelope: binary: %d bytes, but size_bytes says %d", len(raw), w.SizeBytes)
	}
	b.Bytes, b.ContentType = raw, w.ContentType
	return nil
}

// JSONSchema is the schema of the wrapper, which schema.Of gives a field of
// this type.
func (Binary) JSONSchema() map[string]any {
	return map[string]any{
		"type":     "object",
		"required": []any{"type", "encoding", "value", "size_bytes"},
		"properties": map[string]any{
			"type":         map[string]any{"const": "binary"},
			"encoding":     map[string]any{"const": "base64"},
			"value":        map[string]any{"type": "string", "contentEncoding": "base64"},
			"size_bytes":   map[string]any{"type": "integer", "minimum": 0},
			"content_type": map[string]any{"type": "string"},
		},
		"additionalProperties": false,
	}
}
