package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSchemasAreTheKits holds duet-check's copies of the spec's schemas to
// their sources, byte for byte (schemas/PROVENANCE.md): the ResponseEnvelope
// 2.x stand-in and Duet's ManifestResponse 3.21 transcription that the
// vendored kit judges by.
func TestSchemasAreTheKits(t *testing.T) {
	for _, name := range []string{"response-envelope.json", "manifest-response.json", "conformance-profile.json"} {
		ours, err := schemaFiles.ReadFile("schemas/" + name)
		if err != nil {
			t.Fatal(err)
		}
		kits, err := os.ReadFile(filepath.Join("..", "internal", "speckit", "kit", "schemas", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, kits) {
			t.Errorf("schemas/%s differs from internal/speckit/kit/schemas/%s: copy it again", name, name)
		}
	}
	if _, err := schemas(); err != nil {
		t.Fatalf("the schemas do not compile: %v", err)
	}
}

// TestValidExitCode holds exit_codes entries to the spec's schema,
// ExitCodeEntry 1.1.
func TestValidExitCode(t *testing.T) {
	tests := []struct {
		entry string
		ok    bool
	}{
		{`{"name":"NOT_FOUND","description":"No such thing.","retryable":false,"side_effects":"none"}`, true},
		{`{"name":"CONFLICT","description":"It exists.","retryable":false,"side_effects":"none","error_codes":["ALREADY_EXISTS"]}`, true}, // 1.1
		{`{"description":"Nothing to say.","retryable":false,"side_effects":"none","error_codes":[]}`, true},
		{`{"name":"CONFLICT","description":"It exists.","retryable":false,"side_effects":"none","error_codes":["already_exists"]}`, false},
		{`{"name":"CONFLICT","description":"It exists.","retryable":false,"side_effects":"none","error_codes":["A_B","A_B"]}`, false},
		{`{"name":"PARTIAL","description":"Some was written.","retryable":true,"side_effects":"partial"}`, false},
		{`{"name":"NOT_FOUND","description":"No such thing.","retryable":"no","side_effects":"none"}`, false},
		{`{"name":"NOT_FOUND","description":"No such thing.","retryable":false,"side_effects":"none","hint":"x"}`, false},
		{`{"description":"No such thing."}`, false},
		{`"not an object"`, false},
	}
	for _, tt := range tests {
		if problem := validExitCode([]byte(tt.entry)); (problem == "") != tt.ok {
			t.Errorf("validExitCode(%s) = %q, want ok %v", tt.entry, problem, tt.ok)
		}
	}
}

// TestParseEnvelope sorts what keeps stdout from being one envelope, which
// decides the requirement a run's fault is blamed on. An envelope is
// ResponseEnvelope 2.x: one the spec 1.6 allowed (warnings as strings, no
// meta.exit_code) is not one.
func TestParseEnvelope(t *testing.T) {
	const env = `{"ok":true,"data":null,"error":null,"warnings":[],"meta":{"exit_code":0,"schema_version":"1.0","duration_ms":1}}`
	envelope := func(ok, data, errObj, warnings, meta string) string {
		return `{"ok":` + ok + `,"data":` + data + `,"error":` + errObj + `,"warnings":` + warnings + `,"meta":` + meta + `}`
	}
	const refused = `{"code":"UNKNOWN_FLAG","message":"unknown flag --x","retryable":false,"phase":"validation"}`
	tests := []struct {
		name, stdout string
		want         fault
	}{
		{"one envelope", env + "\n", noFault},
		{"a failure", envelope("false", "null", refused, "[]", `{"exit_code":2,"duration_ms":0}`), noFault},
		{"a failure with its declared payload", envelope("false", `{"report":[]}`, refused, "[]", `{"exit_code":80,"duration_ms":0}`), noFault},
		{"a warning", envelope("true", "[]", "null", `[{"code":"DEPRECATED","message":"old. Next: new","context":{"flag":"output"}}]`, `{"exit_code":0,"duration_ms":0}`), noFault},
		{"a timestamp", envelope("true", "[]", "null", "[]", `{"exit_code":0,"duration_ms":0,"timestamp":"2026-11-28T22:35:18.620Z"}`), noFault},
		{"empty", "  \n", noJSON},
		{"prose", "hello there\n", noJSON},
		{"prose before", "Listing...\n" + env + "\n", besideText},
		{"prose after", env + "\nDone.\n", besideText},
		{"two envelopes", env + "\n" + env + "\n", several},
		{"not an envelope", `{"items":[]}`, invalid},
		{"no meta.exit_code (spec 1.6)", envelope("true", "null", "null", "[]", `{"schema_version":"1.0","duration_ms":1}`), invalid},
		{"a warning as a string (spec 1.6)", envelope("true", "null", "null", `["WARNING [DEPRECATED]: old. Next: new"]`, `{"exit_code":0,"duration_ms":0}`), invalid},
		{"a warning with more than code, message and context", envelope("true", "null", "null", `[{"code":"X_Y","message":"m","hint":"h"}]`, `{"exit_code":0,"duration_ms":0}`), invalid},
		{"a lowercase warning code", envelope("true", "null", "null", `[{"code":"deprecated","message":"m"}]`, `{"exit_code":0,"duration_ms":0}`), invalid},
		{"ok true with a failing exit_code", envelope("true", "null", "null", "[]", `{"exit_code":2,"duration_ms":0}`), invalid},
		{"ok false with exit_code 0", envelope("false", "null", refused, "[]", `{"exit_code":0,"duration_ms":0}`), invalid},
		{"a failure without an error", envelope("false", "null", "null", "[]", `{"exit_code":1,"duration_ms":0}`), invalid},
		{"scalar data", envelope("true", `"done"`, "null", "[]", `{"exit_code":0,"duration_ms":0}`), invalid},
		{"data absent", `{"ok":true,"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0}}`, invalid},
		{"a top-level partial (spec 1.6)", `{"ok":false,"partial":true,"data":null,"error":` + refused + `,"warnings":[],"meta":{"exit_code":130,"duration_ms":0}}`, invalid},
		{"a timestamp that is not one", envelope("true", "[]", "null", "[]", `{"exit_code":0,"duration_ms":0,"timestamp":"yesterday"}`), invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got, why := parseEnvelope([]byte(tt.stdout)); got != tt.want {
				t.Errorf("fault %d (%s), want %d", got, why, tt.want)
			}
		})
	}
}

// TestEnvelopeParts reads what the probes ask of an envelope: its exit
// code, a cancelled run's partial data and signal, and a preview.
func TestEnvelopeParts(t *testing.T) {
	type parts struct {
		ExitCode int
		Partial  bool
		Signal   string
		Effect   string
		Affects  bool
	}
	tests := []struct {
		name, stdout string
		want         parts
	}{
		{
			"cancelled by SIGINT",
			`{"ok":false,"data":{"partial":true},"error":{"code":"CANCELLED","message":"m","retryable":false,"context":{"signal":"SIGINT"}},"warnings":[],"meta":{"exit_code":130,"duration_ms":5}}`,
			parts{ExitCode: 130, Partial: true, Signal: "SIGINT"},
		},
		{
			"cancelled, as the spec 1.6 said it",
			`{"ok":false,"data":null,"error":{"code":"CANCELLED","message":"m","retryable":false,"signal":"SIGINT"},"warnings":[],"meta":{"exit_code":130,"duration_ms":5}}`,
			parts{ExitCode: 130},
		},
		{
			"a refusal keeps its preview in meta",
			`{"ok":false,"data":null,"error":{"code":"CONFIRMATION_REQUIRED","message":"m","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":1,"effect":"would_delete","would_affect":{"count":1},"dry_run":true}}`,
			parts{ExitCode: 2, Effect: "would_delete", Affects: true},
		},
		{
			"a refusal with what it would affect in the error's context",
			`{"ok":false,"data":null,"error":{"code":"CONFIRMATION_REQUIRED","message":"m","context":{"would_affect":{"count":1}}},"warnings":[],"meta":{"exit_code":2,"duration_ms":1}}`,
			parts{ExitCode: 2, Affects: true},
		},
		{
			"a dry run's preview in data",
			`{"ok":true,"data":{"effect":"would_delete","would_affect":["a"]},"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":1,"dry_run":true}}`,
			parts{Effect: "would_delete", Affects: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, f, why := parseEnvelope([]byte(tt.stdout))
			if f != noFault {
				t.Fatalf("not an envelope: %s", why)
			}
			got := parts{ExitCode: env.exitCode(), Partial: env.partial(), Signal: env.signal()}
			got.Effect, got.Affects = env.preview()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseStream reads JSONL streams as the spec's kit does (REQ-O-004):
// objects, one a line, ending on exactly one terminal line.
func TestParseStream(t *testing.T) {
	const (
		item    = `{"id":"t1"}`
		summary = `{"_summary":true,"total":1,"duration_ms":0,"warnings":[],"meta":{"exit_code":0,"duration_ms":0}}`
		failure = `{"ok":false,"data":null,"error":{"code":"UNKNOWN_FLAG","message":"m","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":0}}`
		success = `{"ok":true,"data":null,"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0}}`
	)
	type got struct {
		Lines, Terminal int
		Summary, Valid  bool
		ExitCode        int
		Problems        []string
	}
	tests := []struct {
		name, stdout string
		want         got
	}{
		{"items and a summary", item + "\n" + item + "\n" + summary + "\n", got{Lines: 3, Terminal: 3, Summary: true, Valid: true, ExitCode: -1}},
		{"a summary alone", summary + "\n", got{Lines: 1, Terminal: 1, Summary: true, Valid: true, ExitCode: -1}},
		{"an error envelope", item + "\n" + failure + "\n", got{Lines: 2, Terminal: 2, Valid: true, ExitCode: 2}},
		{"nothing", "", got{ExitCode: -1}},
		{"no terminal line", item + "\n" + item + "\n", got{Lines: 2, ExitCode: -1}},
		{
			"a success envelope last (spec 1.6)", item + "\n" + success + "\n",
			got{Lines: 2, Terminal: 2, ExitCode: -1, Problems: []string{"line 2 has ok true beside error; a stream's error line is an envelope with ok false"}},
		},
		{
			"a line after the summary", summary + "\n" + item + "\n",
			got{Lines: 2, Terminal: 1, Summary: true, Valid: true, ExitCode: -1, Problems: []string{"line 2 follows the terminal line 1; a stream ends with exactly one terminal line"}},
		},
		{
			"two terminal lines", failure + "\n" + summary + "\n",
			got{Lines: 2, Terminal: 1, Valid: true, ExitCode: 2, Problems: []string{"line 2 follows the terminal line 1; a stream ends with exactly one terminal line"}},
		},
		{
			"prose", "Listing...\n" + item + "\n" + summary + "\n",
			got{Lines: 3, Terminal: 3, Summary: true, Valid: true, ExitCode: -1, Problems: []string{"line 1 is not one JSON object: invalid character 'L' looking for beginning of value"}},
		},
		{
			"a blank line and an array", item + "\n\n[1]\n" + summary + "\n",
			got{Lines: 4, Terminal: 4, Summary: true, Valid: true, ExitCode: -1, Problems: []string{
				"line 2 is blank; every stream line is one JSON object",
				"line 3 is not one JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseStream([]byte(tt.stdout))
			g := got{Lines: p.lines, Terminal: p.terminal, Summary: p.summary, Valid: p.valid, ExitCode: p.failure.exitCode(), Problems: p.problems}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("parseStream (-want +got):\n%s", diff)
			}
		})
	}
	// An error envelope that is not valid ends the stream, and says why.
	p := parseStream([]byte(item + "\n" + strings.Replace(failure, `"exit_code":2,`, "", 1) + "\n"))
	if p.terminal != 2 || p.valid || len(p.problems) != 1 || !strings.Contains(p.problems[0], "line 2 is an error envelope that does not validate") {
		t.Errorf("an invalid error envelope: terminal %d, valid %v, problems %q", p.terminal, p.valid, p.problems)
	}
}

// TestFormatArgs asks for a representation with --format, or with the
// --output of a CLI that names its format flag so (the spec before 1.8),
// and never gives a path-typed --output a format's name.
func TestFormatArgs(t *testing.T) {
	formats := []string{"json", "jsonl", "text"}
	tests := []struct {
		name  string
		flags map[string]Flag
		json  []string
		jsonl []string
	}{
		{"--format", map[string]Flag{"format": {Type: "enum", EnumValues: formats}}, []string{"--format", "json"}, []string{"--format", "jsonl"}},
		{"--format and a path --output", map[string]Flag{"format": {Type: "enum", EnumValues: formats}, "output": {Type: "string"}}, []string{"--format", "json"}, []string{"--format", "jsonl"}},
		{"--format without jsonl", map[string]Flag{"format": {Type: "enum", EnumValues: []string{"json", "text"}}}, []string{"--format", "json"}, nil},
		{"--format that lists nothing", map[string]Flag{"format": {Type: "string"}}, []string{"--format", "json"}, nil},
		{"--output as the format flag", map[string]Flag{"output": {Type: "enum", EnumValues: formats}}, []string{"--output", "json"}, []string{"--output", "jsonl"}},
		{"--output a path", map[string]Flag{"output": {Type: "string"}}, nil, nil},
		{"neither", map[string]Flag{"limit": {Type: "integer"}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := &Command{Flags: tt.flags}
			if diff := cmp.Diff(tt.json, formatArgs(cmd, "json")); diff != "" {
				t.Errorf("json (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.jsonl, formatArgs(cmd, "jsonl")); diff != "" {
				t.Errorf("jsonl (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidManifest holds `tool manifest` to ManifestResponse 3.21 as its
// schema states it: closed entries, a 3.x version, required_scopes on
// every command.
func TestValidManifest(t *testing.T) {
	manifest := func(version, command string) string {
		return `{"schema_version":"` + version + `","framework_version":"1.0.0","etag":"e",` +
			`"flags":{"format":{"type":"enum","required":false,"description":"f","enum_values":["json","jsonl"],"env_vars":[{"name":"M_FORMAT"}],"media_types":{"json":"application/json"}}},` +
			`"commands":{"ping":` + command + `}}`
	}
	const ping = `{"description":"ping","danger_level":"safe","required_scopes":[],"flags":{},"exit_codes":{"0":{"name":"SUCCESS","description":"Done.","retryable":false,"side_effects":"none"}}`
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"3.21", manifest("3.21", ping+`}`), true},
		{"positionals, builtin, output_file", manifest("3.21", ping+`,"positionals":[{"name":"host","type":"string","required":true,"description":"h"}],"builtin":true,"output_file":"formatted"}`), true},
		{"kept off the MCP server", manifest("3.21", ping+`,"mcp":false}`), true},
		{"an MCP server on stdout", manifest("3.21", ping+`,"stdout":"protocol","protocol":"mcp-stdio"}`), true},
		{"a 1.x version", manifest("1.0", ping+`}`), false},
		{"a 2.x version", manifest("2.0", ping+`}`), false},
		{"no required_scopes (ManifestResponse 1.x)", manifest("3.21", strings.Replace(ping, `"required_scopes":[],`, "", 1)+`}`), false},
		{"a member 3.21 does not list", manifest("3.21", ping+`,"runnable":true}`), false},
		{"mcp true", manifest("3.21", ping+`,"mcp":true}`), false},
		{"stdout protocol without its protocol", manifest("3.21", ping+`,"stdout":"protocol"}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if problem := validManifest([]byte(tt.data)); (problem == "") != tt.ok {
				t.Errorf("validManifest = %q, want ok %v", problem, tt.ok)
			}
		})
	}
}

// TestParseStreamNoise: a stream of a million lines of noise says three
// of its problems and counts the rest, rather than keeping a message for
// each (a stream of `yes` once cost the checker gigabytes).
func TestParseStreamNoise(t *testing.T) {
	const n = 1 << 20
	p := parseStream(bytes.Repeat([]byte("y\n"), n))
	if p.lines != n || p.broken != n || len(p.problems) != maxProblems || p.terminal != 0 {
		t.Errorf("lines %d, broken %d, %d problems said, terminal %d; want %d, %d, %d, 0", p.lines, p.broken, len(p.problems), p.terminal, n, n, maxProblems)
	}
}
