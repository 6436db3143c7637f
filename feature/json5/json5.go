// Package json5 is the feature that reads JSON5 — what agents write when
// they write JSON by hand — wherever a command takes JSON (the CLI Agent
// Spec's REQ-F-059): a flag declared JSON, and --raw-payload. Comments,
// trailing commas, unquoted keys, single quotes, hexadecimal, +1 and .5 are
// taken as meant; what cannot be is refused with INVALID_JSON and the
// corrected input, ready to send again. Without it, such a value is refused
// as the strict JSON it is not.
//
//	urfave.Main(app, adapters.WithFeatures(json5.New()))
//
// [Normalize] is the same reading, for a command's own JSON (a file it
// imports, its payload).
package json5

import (
	"encoding/json"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/json5/internal/syntax"
)

// New returns the feature.
func New() adapters.Feature { return feature{} }

type feature struct{}

var _ adapters.JSONReader = feature{}

func (feature) Name() string { return "json5" }

// ReadJSON is Normalize.
func (feature) ReadJSON(src []byte) ([]byte, error) { return Normalize(src) }

// Normalize returns src, a JSON or JSON5 text, as strict JSON: strict JSON
// as it is, JSON5 made strict. A text that is neither is refused with
// INVALID_JSON (exit 2, validation), whose corrected_input is the closest
// strict JSON, for the caller to check and send again.
func Normalize(src []byte) ([]byte, error) {
	if json.Valid(src) {
		return src, nil
	}
	out, err := syntax.Normalize(src)
	if err == nil {
		return out, nil
	}
	e := envelope.Validationf("INVALID_JSON", "input could not be normalized to valid JSON: %v", err).
		WithFix("reissue with the corrected_input value", "").
		WithSuggestion("use the corrected_input value to retry").
		WithHint("JSON5 is accepted (comments, trailing commas, unquoted keys, single quotes), but string values need quotes")
	e.CorrectedInput = string(syntax.Repair(src))
	return nil, e
}
