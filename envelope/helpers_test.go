package envelope_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/internal/toon"
)

// fixedMeta is a meta without volatile values, so output is byte-stable.
func fixedMeta() envelope.Meta {
	return envelope.Meta{SchemaVersion: envelope.SchemaVersion, ToolVersion: "1.2.3", Command: "item.list"}
}

func agentMode(f envelope.Format) envelope.Mode {
	return envelope.Mode{Agent: true, Format: f}
}

func humanMode() envelope.Mode {
	return envelope.Mode{Format: envelope.Text}
}

// newOutput returns an Output writing to fresh buffers.
func newOutput(s envelope.Settings) (*envelope.Output, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	s.Stdout, s.Stderr = &stdout, &stderr
	if s.Encoders == nil { // TOON is a feature's (feature/toon), rendered here as it renders it
		s.Encoders = map[envelope.Format]func(dst, env []byte) ([]byte, error){
			envelope.TOON: func(dst, env []byte) ([]byte, error) { return toon.AppendJSON(dst, env, toon.Options{}) },
		}
	}
	return envelope.New(&s), &stdout, &stderr
}

// wire is the envelope as an agent decodes it.
type wire struct {
	OK       bool               `json:"ok"`
	Data     json.RawMessage    `json:"data"`
	Error    *envelope.Error    `json:"error"`
	Warnings []envelope.Warning `json:"warnings"`
	Meta     map[string]any     `json:"meta"`
}

// decodeOne decodes exactly one JSON envelope from b and fails on anything else.
func decodeOne(t *testing.T, b []byte) wire {
	t.Helper()
	var w wire
	dec := json.NewDecoder(bytes.NewReader(jsontest.One(t, b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("decode envelope: %v\n%s", err, b)
	}
	return w
}

// summary is a successful jsonl stream's terminal line as an agent decodes
// it (REQ-O-004).
type summary struct {
	Summary    bool               `json:"_summary"`
	Total      int                `json:"total"`
	Count      *int               `json:"_count"` // a numbered stream's
	DurationMS int64              `json:"duration_ms"`
	DryRun     bool               `json:"dry_run"`
	Effects    map[string]int     `json:"effects"` // a mutating stream's
	Warnings   []envelope.Warning `json:"warnings"`
	Meta       map[string]any     `json:"meta"`
}

// decodeSummary decodes exactly one summary line from b and fails on
// anything else, an envelope included.
func decodeSummary(t *testing.T, b []byte) summary {
	t.Helper()
	var s summary
	dec := json.NewDecoder(bytes.NewReader(jsontest.One(t, b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil || !s.Summary {
		t.Fatalf("decode summary line (%v): %s", err, b)
	}
	return s
}

// progressEvents decodes the progress lines an Output wrote on stderr.
func progressEvents(t *testing.T, stderr *bytes.Buffer) []envelope.ProgressEvent {
	t.Helper()
	var got []envelope.ProgressEvent
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var ev envelope.ProgressEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("progress line is not JSON: %q", line)
		}
		got = append(got, ev)
	}
	return got
}

// allFormats are every format, TOON, a feature's, included (see newOutput).
var allFormats = []envelope.Format{envelope.JSON, envelope.JSONL, envelope.TOON, envelope.TSV, envelope.Text, envelope.ID}
