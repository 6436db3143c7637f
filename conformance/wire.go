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

// The spec's schemas, v1.16 (MIT, see schemas/LICENSE): ResponseEnvelope 2.4,
// ManifestResponse 3.21 and ConformanceProfile 1.0, copied from internal/speckit/kit/schemas
// (schemas/PROVENANCE.md says where each came from).
//
//go:embed schemas/*.json
var schemaFiles embed.FS

const schemaBase = "https://cli-agent-spec.invalid/schemas/"

// schemas are compiled once per process: they never change.
var schemas = sync.OnceValues(compileSchemas)

type compiled struct {
	envelope *jsonschema.Schema // ResponseEnvelope 2.x
	manifest *jsonschema.Schema // ManifestResponse 3.x, every entry closed: for `tool manifest`
	exitCode *jsonschema.Schema // its ExitCodeEntry (1.1): for the exit_codes of --schema
	profile  *jsonschema.Schema // ConformanceProfile 1.0: the kit's profiles (see LoadProfile)
}

// compileSchemas compiles the envelope and manifest schemas as they are.
// Formats are asserted (an envelope's meta.timestamp is a date-time), as
// the spec's own kit does.
func compileSchemas() (compiled, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // load nothing from outside
	c.AssertFormat()
	for _, name := range []string{"response-envelope.json", "manifest-response.json", "conformance-profile.json"} {
		raw, err := schemaFiles.ReadFile("schemas/" + name)
		if err != nil {
			return compiled{}, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return compiled{}, fmt.Errorf("conformance: schema %s: %w", name, err)
		}
		delete(doc.(map[string]any), "$id") // the URL names it
		if err := c.AddResource(schemaBase+name, doc); err != nil {
			return compiled{}, err
		}
	}
	var (
		out compiled
		err error
	)
	for _, s := range []struct {
		to  **jsonschema.Schema
		url string
	}{
		{&out.envelope, "response-envelope.json"},
		{&out.manifest, "manifest-response.json"},
		{&out.exitCode, "manifest-response.json#/definitions/ExitCodeEntry"},
		{&out.profile, "conformance-profile.json"},
	} {
		if *s.to, err = c.Compile(schemaBase + s.url); err != nil {
			return compiled{}, err
		}
	}
	return out, nil
}

// envelope is what the checker reads of a response (ResponseEnvelope 2.x).
type envelope struct {
	OK       bool            `json:"ok"`
	Data     json.RawMessage `json:"data"`
	Error    *wireError      `json:"error"`
	Warnings []wireWarning   `json:"warnings"`
	Meta     map[string]any  `json:"meta"`
}

// wireWarning is one of an envelope's warnings: an object since
// ResponseEnvelope 2.0 (a string before).
type wireWarning struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Context map[string]any `json:"context,omitempty"`
}

type wireError struct {
	Code        string            `json:"code"`
	Message     string            `json:"message"`
	Retryable   *bool             `json:"retryable"`
	Phase       string            `json:"phase"`
	FixRequired string            `json:"fix_required"`
	FixCommand  string            `json:"fix_command"`
	Suggestion  string            `json:"suggestion"`
	Detail      json.RawMessage   `json:"detail"`
	Context     json.RawMessage   `json:"context"` // the structured facts (ResponseEnvelope 2.0)
	WouldAffect json.RawMessage   `json:"would_affect"`
	Errors      []json.RawMessage `json:"errors"`
	ValidValues []string          `json:"valid_values"`
}

// exitCode is the envelope's meta.exit_code, which ResponseEnvelope 2.x
// requires; -1 when it has none.
func (e envelope) exitCode() int {
	if code, ok := e.Meta["exit_code"].(float64); ok {
		return int(code)
	}
	return -1
}

// partial reports whether the envelope's data says the run stopped short:
// data.partial true, as a cancelled run's is (REQ-F-013, REQ-F-069).
func (e envelope) partial() bool {
	var data struct {
		Partial bool `json:"partial"`
	}
	_ = json.Unmarshal(e.Data, &data) // data need not be an object
	return data.Partial
}

// signal is the signal a cancelled run's error names in its context
// (error.context.signal, REQ-F-069); empty when it names none.
func (e envelope) signal() string {
	if e.Error == nil {
		return ""
	}
	var ctx struct {
		Signal string `json:"signal"`
	}
	_ = json.Unmarshal(e.Error.Context, &ctx)
	return ctx.Signal
}

// preview finds a dry run's account of a live run in an envelope: its
// effect (which must start would_) and what it would affect, where a tool
// may put them — in meta (Duet, and a refusal's, whose data is null), in
// data (the spec's examples), or for a refusal in the error, its context
// or (before ResponseEnvelope 2.0) its detail.
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
		var within struct {
			WouldAffect json.RawMessage `json:"would_affect"`
		}
		for _, raw := range []json.RawMessage{e.Error.Context, e.Error.Detail} { // detail is a string in the schema, an object in old examples
			within.WouldAffect = nil
			_ = json.Unmarshal(raw, &within)
			affects = affects || present(within.WouldAffect)
		}
		affects = affects || present(e.Error.WouldAffect)
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

// validManifest checks the data of `tool manifest` against ManifestResponse
// 3.x as the schema states it: no member it does not list.
func validManifest(data json.RawMessage) string {
	return validate(data, func(c compiled) *jsonschema.Schema { return c.manifest })
}

// validExitCode checks one entry of a command's exit_codes (ExitCodeEntry
// 1.1).
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

// streamParse is what a JSONL stream's stdout shows (REQ-O-004): items,
// then exactly one terminal line — the summary line ("_summary": true) or
// an error envelope, which must be valid and say ok false.
type streamParse struct {
	lines        int
	terminal     int      // the terminal line's number, from 1; 0 when there is none
	terminalText []byte   // the terminal line
	summary      bool     // the terminal line is the summary line
	failure      envelope // the terminal error envelope, where it is one and valid
	valid        bool     // the terminal line is a summary line or a valid error envelope
	// What breaks the contract, line by line: the first maxProblems said,
	// all of them counted. A stream of millions of bad lines must not
	// cost millions of messages.
	problems []string
	broken   int
}

// maxProblems is how many of a stream's problems are said.
const maxProblems = 3

func (p *streamParse) problem(format string, a ...any) {
	if p.broken++; len(p.problems) < maxProblems {
		p.problems = append(p.problems, fmt.Sprintf(format, a...))
	}
}

// parseStream reads stdout as a JSONL stream, as the spec's kit does: every
// line one JSON object, a line with "_summary": true or with an ok boolean
// beside an error key the terminal line, and nothing after it.
func parseStream(stdout []byte) streamParse {
	var p streamParse
	text := bytes.TrimSuffix(stdout, []byte("\n"))
	if len(text) == 0 {
		return p
	}
	p.lines = bytes.Count(text, []byte("\n")) + 1
	for n := 1; n <= p.lines; n++ {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte("\n"))
		if p.terminal != 0 {
			p.problem("line %d follows the terminal line %d; a stream ends with exactly one terminal line", n, p.terminal)
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			p.problem("line %d is blank; every stream line is one JSON object", n)
			continue
		}
		var doc map[string]json.RawMessage
		if bytes.TrimSpace(line)[0] != '{' && len(p.problems) == maxProblems {
			// No object, and nothing more to say: counted without a
			// decoder, as a stream of noise is millions of such lines.
			p.broken++
			continue
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			p.problem("line %d is not one JSON object: %v", n, err)
			continue
		}
		_, hasError := doc["error"]
		var ok *bool
		_ = json.Unmarshal(doc["ok"], &ok)
		switch {
		case string(doc["_summary"]) == "true":
			p.terminal, p.terminalText, p.summary, p.valid = n, line, true, true
		case ok != nil && hasError:
			p.terminal, p.terminalText = n, line
			env, f, why := parseEnvelope(line)
			switch {
			case f != noFault:
				p.problem("line %d is an error envelope that does not validate: %s", n, why)
			case env.OK:
				p.problem("line %d has ok true beside error; a stream's error line is an envelope with ok false", n)
			default:
				p.failure, p.valid = env, true
			}
		}
	}
	return p
}
