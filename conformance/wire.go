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

type compiled struct {
	envelope, manifest, exitCode *jsonschema.Schema
	strictManifest               *jsonschema.Schema // the manifest schema as published, closed: for `tool manifest`
}

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
			strict, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				return compiled{}, err
			}
			delete(strict.(map[string]any), "$id")
			if err := c.AddResource(schemaBase+"manifest-response.strict.json", strict); err != nil {
				return compiled{}, err
			}
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
	if err != nil {
		return compiled{}, err
	}
	code, err := c.Compile(schemaBase + "exit-code-entry.json")
	if err != nil {
		return compiled{}, err
	}
	strict, err := c.Compile(schemaBase + "manifest-response.strict.json")
	return compiled{env, man, code, strict}, err
}

// envelope is what the checker reads of a response.
type envelope struct {
	OK       bool              `json:"ok"`
	Data     json.RawMessage   `json:"data"`
	Error    *wireError        `json:"error"`
	Warnings []json.RawMessage `json:"warnings"`
	Meta     map[string]any    `json:"meta"`
}

type wireError struct {
	Code        string            `json:"code"`
	Message     string            `json:"message"`
	Retryable   *bool             `json:"retryable"`
	Phase       string            `json:"phase"`
	FixRequired string            `json:"fix_required"`
	FixCommand  string            `json:"fix_command"`
	Detail      json.RawMessage   `json:"detail"`
	WouldAffect json.RawMessage   `json:"would_affect"`
	Errors      []json.RawMessage `json:"errors"`
	ValidValues []string          `json:"valid_values"`
}

// preview finds a dry run's account of a live run in an envelope: its
// effect (which must start would_) and what it would affect, where a tool
// may put them — in meta (Duet), in data (the spec's examples), or for a
// refusal in the error or its detail.
func (e envelope) preview() (effect string, affects bool) {
	var data struct {
		Effect      string          `json:"effect"`
		WouldAffect json.RawMessage `json:"would_affect"`
	}
	_ = json.Unmarshal(e.Data, &data) // data need not be an object
	effect, _ = e.Meta["effect"].(string)
	if effect == "" {
		effect = data.Effect
	}
	present := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	affects = e.Meta["would_affect"] != nil || present(data.WouldAffect)
	if e.Error != nil {
		var detail struct {
			WouldAffect json.RawMessage `json:"would_affect"`
		}
		_ = json.Unmarshal(e.Error.Detail, &detail) // detail is a string in the spec's schema, an object in its example
		affects = affects || present(e.Error.WouldAffect) || present(detail.WouldAffect)
	}
	return effect, affects
}

// fault is what keeps a run's stdout from being one envelope.
type fault int

const (
	noFault    fault = iota
	notRun           // the target could not be started
	hung             // killed after the time limit
	noJSON           // stdout is empty or holds no JSON: the run did not answer in JSON
	besideText       // an envelope, with text beside it on stdout
	several          // more than one JSON value
	invalid          // one JSON value that is not a valid envelope
)

// parseEnvelope reads stdout as one envelope. why says what is wrong with
// it, and is empty when it is one valid envelope.
func parseEnvelope(stdout []byte) (env envelope, f fault, why string) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return env, noJSON, "stdout is empty"
	}
	values, text := splitJSON(trimmed)
	switch {
	case len(values) == 0:
		return env, noJSON, "stdout is not JSON"
	case text:
		return env, besideText, "stdout holds text besides the envelope"
	case len(values) > 1:
		return env, several, fmt.Sprintf("stdout holds %d JSON values, not one envelope", len(values))
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(values[0]))
	if err != nil {
		return env, invalid, "not a valid envelope: " + err.Error()
	}
	s, err := schemas()
	if err != nil {
		return env, invalid, "checker: " + err.Error()
	}
	if err := s.envelope.Validate(v); err != nil {
		return env, invalid, "not a valid envelope: " + oneLine(err)
	}
	if err := json.Unmarshal(values[0], &env); err != nil {
		return env, invalid, "not a valid envelope: " + err.Error()
	}
	return env, noFault, ""
}

// splitJSON finds the JSON values in b, and whether other text is there
// too. A stream of values is read as one; failing that, line by line, so
// that an envelope on a line of its own is found among prose.
func splitJSON(b []byte) (values []json.RawMessage, text bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return values, false
		}
		if err != nil {
			break
		}
		values = append(values, v)
	}
	values = nil
	for line := range bytes.Lines(b) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
		case line[0] == '{' && json.Valid(line):
			values = append(values, line)
		default:
			text = true
		}
	}
	return values, text
}

// validManifest checks a manifest against the spec's schema.
func validManifest(data json.RawMessage) string {
	return validate(data, func(c compiled) *jsonschema.Schema { return c.manifest })
}

// validStrictManifest checks the data of `tool manifest` against the spec's
// manifest schema as published: no member it does not list.
func validStrictManifest(data json.RawMessage) string {
	return validate(data, func(c compiled) *jsonschema.Schema { return c.strictManifest })
}

// validExitCode checks one entry of a command's exit_codes.
func validExitCode(data json.RawMessage) string {
	return validate(data, func(c compiled) *jsonschema.Schema { return c.exitCode })
}

func validate(data json.RawMessage, which func(compiled) *jsonschema.Schema) string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	s, err := schemas()
	if err != nil {
		return "checker: " + err.Error()
	}
	if err := which(s).Validate(v); err != nil {
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
