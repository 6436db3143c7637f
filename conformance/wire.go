package conformance

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The spec's own schemas (MIT, see schemas/LICENSE), as published.
//
//go:embed schemas/*.json
var schemaFiles embed.FS

const schemaBase = "https://cli-agent-spec.invalid/schemas/"

// schemas are compiled once per process: they never change.
var schemas = sync.OnceValues(compileSchemas)

type compiled struct{ envelope, manifest *jsonschema.Schema }

// compileSchemas compiles the envelope and manifest schemas. The manifest's
// command and flag entries forbid members the spec does not list, yet the
// spec's requirements add documented ones (Duet's describe adds runnable,
// arguments, input_schema ...): those objects are opened to extensions,
// while every member they do list keeps its type.
func compileSchemas() (compiled, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // load nothing from outside
	for _, name := range []string{"response-envelope.json", "manifest-response.json", "exit-code-entry.json"} {
		raw, err := schemaFiles.ReadFile("schemas/" + name)
		if err != nil {
			return compiled{}, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return compiled{}, fmt.Errorf("conformance: schema %s: %w", name, err)
		}
		if name == "manifest-response.json" {
			m := doc.(map[string]any)
			m["additionalProperties"] = true
			defs := m["definitions"].(map[string]any)
			for _, d := range []string{"CommandEntry", "FlagEntry"} {
				defs[d].(map[string]any)["additionalProperties"] = true
			}
		}
		delete(doc.(map[string]any), "$id") // the URL names it
		if err := c.AddResource(schemaBase+name, doc); err != nil {
			return compiled{}, err
		}
	}
	env, err := c.Compile(schemaBase + "response-envelope.json")
	if err != nil {
		return compiled{}, err
	}
	man, err := c.Compile(schemaBase + "manifest-response.json")
	return compiled{env, man}, err
}

// envelope is what the checker reads of a response.
type envelope struct {
	OK       bool            `json:"ok"`
	Data     json.RawMessage `json:"data"`
	Error    *wireError      `json:"error"`
	Warnings []string        `json:"warnings"`
	Meta     map[string]any  `json:"meta"`
}

type wireError struct {
	Code        string            `json:"code"`
	Message     string            `json:"message"`
	Retryable   *bool             `json:"retryable"`
	Phase       string            `json:"phase"`
	FixRequired string            `json:"fix_required"`
	Errors      []json.RawMessage `json:"errors"`
	ValidValues []string          `json:"valid_values"`
}

// parseEnvelope reads stdout as one envelope. problem says what is wrong
// with it, "" when it is one valid envelope.
func parseEnvelope(stdout []byte) (envelope, string) {
	var env envelope
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return env, "stdout is empty"
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return env, "stdout is not JSON: " + err.Error()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return env, "stdout holds more than one JSON value"
	}
	s, err := schemas()
	if err != nil {
		return env, "checker: " + err.Error()
	}
	if err := s.envelope.Validate(v); err != nil {
		return env, "not a valid envelope: " + oneLine(err)
	}
	if err := json.Unmarshal(trimmed, &env); err != nil {
		return env, "not a valid envelope: " + err.Error()
	}
	return env, ""
}

// validManifest checks a manifest against the spec's schema.
func validManifest(data json.RawMessage) string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	s, err := schemas()
	if err != nil {
		return "checker: " + err.Error()
	}
	if err := s.manifest.Validate(v); err != nil {
		return oneLine(err)
	}
	return ""
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
