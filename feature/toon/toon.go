// Package toon is the feature that adds --format toon: the envelope in
// Token-Oriented Object Notation (https://toonformat.dev), where a list of
// records is one table — a header of field names, then a row per record —
// so that an agent reads a list in fewer tokens than as JSON. The answer is
// the JSON envelope re-encoded, the same data and meta; <TOOL>_FORMAT=toon
// makes it the default.
//
//	urfave.Main(app, adapters.WithFeatures(toon.New()))
package toon

import (
	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/toon"
)

// New returns the feature.
func New() adapters.Feature { return feature{} }

type feature struct{}

var _ adapters.Formatter = feature{}

func (feature) Name() string { return "toon" }

// Formats is toon.
func (feature) Formats() map[envelope.Format]func(dst, env []byte) ([]byte, error) {
	return map[envelope.Format]func(dst, env []byte) ([]byte, error){
		envelope.TOON: func(dst, env []byte) ([]byte, error) { return toon.AppendJSON(dst, env, toon.Options{}) },
	}
}
