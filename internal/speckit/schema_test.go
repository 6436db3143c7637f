package speckit_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// violations says where each invalid example of the spec's documents
// breaks the schema (the instance location of an innermost error), so an
// example rejected for some other reason fails the test. A new invalid
// example needs an entry here.
var violations = map[string]string{
	// manifest-response.md
	"media types on a command-local flag":           "#/commands/export/flags/style/media_types",
	"object flag without its schema":                "#/commands/search/flags/filter",
	"records mode without a record schema":          "#/commands/tag/stdin",
	"`output` path with a TTL and a clear command":  "#/commands/dashboard.build/filesystem_side_effects/0/ttl_seconds",
	"passthrough command with interspersed options": "#/commands/ingest/option_placement",
	"child log on a passthrough command":            "#/commands/ingest/stderr",
	"confirm flag next to `safe_default`":           "#/commands/rollback/safe_default",
	"protocol server that streams JSONL by default": "#/commands/lsp/streaming_default",
	"`mcp: true`": "#/commands/release.list/mcp",
	"integer flag listing its values as strings":     "#/commands/order.sign/flags/sig-type/enum_values/0",
	"command entry without required contract fields": "#/commands/deploy",
	"editor command without alternatives":            "#/commands/commit",
	"root variable without a description":            "#/env_vars/0",
	// exit-code-entry.md, validated against the ExitCodeEntry definition
	"lowercase `error.code` value": "#/error_codes/0",
	"invariant violation":          "#/side_effects",
	"missing required fields":      "#",
}

// TestSchemaAcceptsSpecExamples holds the transcribed schema to the spec's
// own examples: every example manifest-response.md labels Valid passes,
// every one it labels Invalid fails where its "Violation" says; the same
// for exit-code-entry.md against the ExitCodeEntry definition.
//
// An example whose label is neither "**Valid — …**" nor "**Invalid — …**"
// cannot be classified: it is skipped by name, so -v shows it. (Neither
// document has one today: manifest-response.md labels all 34 of its
// examples, 21 valid and 13 invalid, and exit-code-entry.md all 9.)
func TestSchemaAcceptsSpecExamples(t *testing.T) {
	spec := specDir(t)
	for _, doc := range []struct {
		file     string
		fragment string
	}{
		{"schemas/manifest-response.md", ""},
		{"schemas/exit-code-entry.md", "#/definitions/ExitCodeEntry"},
	} {
		t.Run(filepath.Base(doc.file), func(t *testing.T) {
			schema := compileSchema(t, doc.fragment)
			examples := docExamples(t, filepath.Join(spec, doc.file))
			kinds := map[string]int{}
			for _, ex := range examples {
				kinds[ex.kind]++
			}
			if kinds["Valid"] == 0 || kinds["Invalid"] == 0 {
				t.Fatalf("found %v examples; the document's labels changed?", kinds)
			}
			t.Logf("%d valid, %d invalid, %d unclassified examples", kinds["Valid"], kinds["Invalid"], kinds[""])
			for _, ex := range examples {
				t.Run(ex.kind+" "+ex.label, func(t *testing.T) {
					err := schema.Validate(instance(t, ex.json))
					switch ex.kind {
					case "Valid":
						if err != nil {
							t.Errorf("the schema rejects a valid example: %v\n%s", err, ex.json)
						}
					case "Invalid":
						want, ok := violations[ex.label]
						switch {
						case err == nil:
							t.Errorf("the schema accepts an invalid example:\n%s", ex.json)
						case !ok:
							t.Errorf("new invalid example: add where it fails (one of %q) to violations", errorLocations(err))
						case !slices.Contains(errorLocations(err), want):
							t.Errorf("rejected at %q, want at %q: %v", errorLocations(err), want, err)
						}
					default:
						t.Skipf("unclassified example (label %q): neither Valid nor Invalid", ex.label)
					}
				})
			}
		})
	}
}

// TestSchemaPersonOnly checks ManifestResponse 3.21 against REQ-C-036,
// whose text postdates manifest-response.md: its wire-format manifest
// validates, and its acceptance criterion's manifests do not.
func TestSchemaPersonOnly(t *testing.T) {
	spec := specDir(t)
	schema := compileSchema(t, "")
	var wire []byte
	for _, ex := range docExamples(t, filepath.Join(spec, "requirements", "c-036-person-only-commands-declare-requires-person.md")) {
		if strings.Contains(string(ex.json), `"requires_person": true`) && strings.Contains(string(ex.json), `"schema_version"`) {
			wire = ex.json
			break
		}
	}
	if wire == nil {
		t.Fatal("REQ-C-036 has no wire-format manifest with requires_person")
	}
	const path = "decisions.approve"
	tests := []struct {
		name  string
		patch string // over the command entry; null removes a key
		at    string // where it fails, as a URI-fragment JSON pointer; "" when valid
	}{
		{"wire format", ``, ""},
		{"no mcp false", `{"mcp": null}`, "#/commands/" + path},
		{"no interactive", `{"interactive": null}`, "#/commands/" + path},
		{"interactive false", `{"interactive": false}`, "#/commands/" + path + "/interactive"},
		{"requires_person false", `{"requires_person": false}`, "#/commands/" + path + "/requires_person"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(wire, &doc); err != nil {
				t.Fatal(err)
			}
			commands := doc["commands"].(map[string]any)
			entry, err := json.Marshal(commands[path])
			if err != nil {
				t.Fatal(err)
			}
			commands[path] = merge(t, string(entry), tt.patch)
			checkRule(t, schema, doc, tt.at)
		})
	}
}

// TestSchemaRules pins each rule the schema transcribes, one manifest a
// rule, beside the spec's examples: a one-command manifest with the case's
// fields set over its root or its command "c".
func TestSchemaRules(t *testing.T) {
	schema := compileSchema(t, "")
	const (
		root = `{"schema_version": "3.21", "framework_version": "1.0.0", "etag": "sha256:0", "commands": {}}`
		cmd  = `{"description": "Do it", "danger_level": "mutating", "required_scopes": [], "flags": {}, "exit_codes": {}}`
		c    = "#/commands/c"
	)
	tests := []struct {
		name string
		root string // over the manifest's root
		cmd  string // over command c
		at   string // where it fails, as a URI-fragment JSON pointer; "" when valid
	}{
		// versions and closed entries
		{name: "3.0", root: `{"schema_version": "3.0"}`},
		{name: "2.x version", root: `{"schema_version": "1.0"}`, at: "#/schema_version"},
		{name: "minor with leading zero", root: `{"schema_version": "3.01"}`, at: "#/schema_version"},
		{name: "unknown root field", root: `{"generator": "duet"}`, at: "#"},
		{name: "unknown command field", cmd: `{"hidden": true}`, at: c},
		{name: "commands as an array", root: `{"commands": []}`, at: "#/commands"},
		{name: "builtin", cmd: `{"builtin": true}`},
		{name: "builtin not boolean", cmd: `{"builtin": "yes"}`, at: c + "/builtin"},

		// exit codes (ExitCodeEntry 1.1)
		{name: "exit code entries", root: `{"exit_codes": {"0": {"name": "SUCCESS", "description": "Done", "retryable": false, "side_effects": "complete"}}}`,
			cmd: `{"exit_codes": {"6": {"name": "CONFLICT", "description": "Exists", "retryable": false, "side_effects": "none", "error_codes": ["ALREADY_EXISTS"]}}}`},
		{name: "exit code key not an integer", cmd: `{"exit_codes": {"two": {"description": "Bad", "retryable": false, "side_effects": "none"}}}`, at: c + "/exit_codes/two"},
		{name: "exit code key with a leading zero", root: `{"exit_codes": {"02": {"description": "Bad", "retryable": false, "side_effects": "none"}}}`, at: "#/exit_codes/02"},
		{name: "retryable with partial side effects", cmd: `{"exit_codes": {"10": {"description": "Timed out", "retryable": true, "side_effects": "partial"}}}`, at: c + "/exit_codes/10/side_effects"},
		{name: "exit description over 120 characters", cmd: `{"exit_codes": {"1": {"description": "` + strings.Repeat("x", 121) + `", "retryable": false, "side_effects": "none"}}}`, at: c + "/exit_codes/1/description"},
		{name: "repeated error code", cmd: `{"exit_codes": {"6": {"description": "Exists", "retryable": false, "side_effects": "none", "error_codes": ["EXISTS", "EXISTS"]}}}`, at: c + "/exit_codes/6/error_codes"},
		{name: "command-specific code with its name", cmd: `{"exit_codes": {"79": {"name": "QUOTA_EXCEEDED", "description": "Over quota", "retryable": false, "side_effects": "none"}}}`},
		{name: "command-specific code without a name", cmd: `{"exit_codes": {"125": {"description": "Over quota", "retryable": false, "side_effects": "none"}}}`, at: c + "/exit_codes/125"},
		{name: "command-specific code still an ExitCodeEntry", cmd: `{"exit_codes": {"100": {"name": "X", "description": "X", "retryable": true, "side_effects": "partial"}}}`, at: c + "/exit_codes/100/side_effects"},
		{name: "framework code without a name", cmd: `{"exit_codes": {"10": {"description": "Derived", "retryable": false, "side_effects": "none"}}}`},
		{name: "unknown exit entry field", cmd: `{"exit_codes": {"0": {"description": "Done", "retryable": false, "side_effects": "none", "code": 0}}}`, at: c + "/exit_codes/0"},

		// requires_person (3.21)
		{name: "person only", cmd: `{"requires_person": true, "interactive": true, "mcp": false}`},
		{name: "person only without mcp false", cmd: `{"requires_person": true, "interactive": true}`, at: c},
		{name: "person only, not interactive", cmd: `{"requires_person": true, "interactive": false, "mcp": false}`, at: c + "/interactive"},

		// interruption (3.20)
		{name: "interruption", cmd: `{"interruption": {"detach": true, "resume": false, "max_lifetime_ms": 3600000}, "exit_codes": {"14": {"name": "INCOMPLETE", "description": "Continues", "retryable": true, "side_effects": "none"}}}`},
		{name: "interruption without exit 14", cmd: `{"interruption": {"detach": true, "resume": true}}`, at: c + "/exit_codes"},
		{name: "interruption with neither", cmd: `{"interruption": {"detach": false, "resume": false}, "exit_codes": {"14": {"description": "Continues", "retryable": true, "side_effects": "none"}}}`, at: c + "/interruption/detach"},
		{name: "interruption without resume", cmd: `{"interruption": {"detach": true}, "exit_codes": {"14": {"description": "Continues", "retryable": true, "side_effects": "none"}}}`, at: c + "/interruption"},
		{name: "interruption on an async command", cmd: `{"interruption": {"detach": true, "resume": false}, "async": true, "exit_codes": {"14": {"description": "Continues", "retryable": true, "side_effects": "none"}}}`, at: c + "/async"},
		{name: "interruption streaming by default", cmd: `{"interruption": {"detach": true, "resume": false}, "streaming_default": true, "exit_codes": {"14": {"description": "Continues", "retryable": true, "side_effects": "none"}}}`, at: c + "/streaming_default"},

		// protocol servers (3.16) and mcp (3.17)
		{name: "protocol server", cmd: `{"stdout": "protocol", "protocol": "mcp-stdio", "interactive": false, "mcp": false}`},
		{name: "stdout without protocol", cmd: `{"stdout": "protocol"}`, at: c},
		{name: "protocol without stdout", cmd: `{"protocol": "lsp"}`, at: c},
		{name: "protocol not kebab-case", cmd: `{"stdout": "protocol", "protocol": "MCP_stdio"}`, at: c + "/protocol"},
		{name: "protocol server reading stdin", cmd: `{"stdout": "protocol", "protocol": "lsp", "stdin": {"mode": "lines"}}`, at: c + "/stdin"},
		{name: "protocol server writing --output", cmd: `{"stdout": "protocol", "protocol": "lsp", "output_file": "formatted"}`, at: c + "/output_file"},
		{name: "protocol server with a background child", cmd: `{"stdout": "protocol", "protocol": "lsp", "cleanup_command": "tool stop"}`, at: c + "/cleanup_command"},
		{name: "protocol server with confirm flag", cmd: `{"stdout": "protocol", "protocol": "lsp", "confirm_flag": "yes"}`, at: c + "/confirm_flag"},
		{name: "protocol server that may prompt", cmd: `{"stdout": "protocol", "protocol": "lsp", "interactive": true}`, at: c + "/interactive"},
		{name: "protocol server passing through", cmd: `{"stdout": "protocol", "protocol": "lsp", "arguments": "passthrough", "option_placement": "strict"}`, at: c + "/arguments"},

		// passthrough (3.9)
		{name: "passthrough without option placement", cmd: `{"arguments": "passthrough"}`, at: c},
		{name: "passthrough with a flag", cmd: `{"arguments": "passthrough", "option_placement": "strict", "flags": {"x": {"type": "boolean", "required": false, "description": "X"}}}`, at: c + "/flags"},
		{name: "passthrough with positionals", cmd: `{"arguments": "passthrough", "option_placement": "strict", "positionals": []}`, at: c + "/positionals"},
		{name: "passthrough destructive", cmd: `{"arguments": "passthrough", "option_placement": "strict", "danger_level": "destructive"}`, at: c + "/danger_level"},
		{name: "help_argv on a declared command", cmd: `{"arguments": "declared", "help_argv": ["--help"]}`, at: c + "/arguments"},
		{name: "help_argv without arguments", cmd: `{"help_argv": ["--help"]}`, at: c},

		// confirm_flag (3.14)
		{name: "confirm flag", cmd: `{"confirm_flag": "yes", "safe_default": false}`},
		{name: "confirm flag on a safe command", cmd: `{"confirm_flag": "yes", "danger_level": "safe"}`, at: c + "/danger_level"},
		{name: "confirm flag on a passthrough command", cmd: `{"confirm_flag": "yes", "arguments": "passthrough", "option_placement": "strict"}`, at: c + "/arguments"},

		// flags
		{name: "enum flag with integer values", cmd: `{"flags": {"x": {"type": "enum", "required": false, "description": "X", "enum_values": [1, 2]}}}`, at: c + "/flags/x/enum_values/0"},
		{name: "string flag with values", cmd: `{"flags": {"x": {"type": "string", "required": false, "description": "X", "enum_values": ["a"]}}}`, at: c + "/flags/x/enum_values"},
		{name: "schema on an array flag", cmd: `{"flags": {"x": {"type": "array", "required": false, "description": "X", "schema": {"type": "string"}}}}`},
		{name: "schema on a string flag", cmd: `{"flags": {"x": {"type": "string", "required": false, "description": "X", "schema": {"type": "string"}}}}`, at: c + "/flags/x/schema"},
		{name: "pattern and pattern_type", cmd: `{"flags": {"x": {"type": "string", "required": false, "description": "X", "pattern": "^a$", "pattern_type": "uuid"}}}`, at: c + "/flags/x"},
		{name: "two-character short", cmd: `{"flags": {"x": {"type": "string", "required": false, "description": "X", "short": "xy"}}}`, at: c + "/flags/x/short"},
		{name: "flag variable without a description", cmd: `{"flags": {"x": {"type": "string", "required": false, "description": "X", "env_vars": [{"name": "TOOL_X"}, {"name": "OLD_X", "deprecated": true}]}}}`},
		{name: "flag variable with a bad name", cmd: `{"flags": {"x": {"type": "string", "required": false, "description": "X", "env_vars": [{"name": "1X"}]}}}`, at: c + "/flags/x/env_vars/0/name"},

		// media types (3.12)
		{name: "spec format value mapped elsewhere", root: `{"flags": {"format": {"type": "enum", "required": false, "description": "F", "enum_values": ["json", "html"], "media_types": {"json": "text/plain"}}}}`, at: "#/flags/format/media_types/json"},
		{name: "media type not lowercase", root: `{"flags": {"format": {"type": "enum", "required": false, "description": "F", "enum_values": ["html"], "media_types": {"html": "text/HTML"}}}}`, at: "#/flags/format/media_types/html"},
		{name: "media type with parameters", root: `{"flags": {"format": {"type": "enum", "required": false, "description": "F", "enum_values": ["html"], "media_types": {"html": "text/html; charset=utf-8"}}}}`, at: "#/flags/format/media_types/html"},
		{name: "empty media types", root: `{"flags": {"format": {"type": "enum", "required": false, "description": "F", "enum_values": ["json"], "media_types": {}}}}`, at: "#/flags/format/media_types"},
		{name: "media types on a non-enum format flag", root: `{"flags": {"format": {"type": "string", "required": false, "description": "F", "media_types": {"html": "text/html"}}}}`, at: "#/flags/format/media_types"},
		{name: "media types on another root flag", root: `{"flags": {"style": {"type": "enum", "required": false, "description": "S", "enum_values": ["html"], "media_types": {"html": "text/html"}}}}`, at: "#/flags/style/media_types"},
		{name: "command media types", cmd: `{"output_formats": ["csv"], "output_media_types": {"csv": "text/csv"}}`},
		{name: "output base without output file", cmd: `{"output_file_base": "project_root"}`, at: c},

		// positionals (3.0)
		{name: "integer positional with values", cmd: `{"positionals": [{"name": "level", "type": "integer", "required": true, "description": "L", "enum_values": [1, 2]}]}`},
		{name: "enum positional without values", cmd: `{"positionals": [{"name": "env", "type": "enum", "required": true, "description": "E"}]}`, at: c + "/positionals/0"},
		{name: "string positional with values", cmd: `{"positionals": [{"name": "env", "type": "string", "required": true, "description": "E", "enum_values": ["a"]}]}`, at: c + "/positionals/0/enum_values"},
		{name: "positional name not lowercase", cmd: `{"positionals": [{"name": "Env", "type": "string", "required": true, "description": "E"}]}`, at: c + "/positionals/0/name"},

		// requires (3.2)
		{name: "default when absent", cmd: `{"requires": [{"if_flag": "a", "target_flag": "b", "default": 3}, {"if_flag": "a", "prohibited": ["c"]}, {"any_of": ["a", "b"]}]}`},
		{name: "any_of with one flag", cmd: `{"requires": [{"any_of": ["a"]}]}`, at: c + "/requires/0"},
		{name: "one_of with a repeat", cmd: `{"requires": [{"one_of": ["a", "a"]}]}`, at: c + "/requires/0"},
		{name: "two shapes in one rule", cmd: `{"requires": [{"if_flag": "a", "prohibited": ["b"], "one_of": ["c", "d"]}]}`, at: c + "/requires/0"},

		// stdin (3.8) and side effects (3.10)
		{name: "records with its schema", cmd: `{"stdin": {"mode": "records", "max_line_bytes": 65536, "record_schema": {"type": "object"}}}`},
		{name: "lines with a total cap", cmd: `{"stdin": {"mode": "lines", "max_bytes": 65536}}`, at: c + "/stdin/max_bytes"},
		{name: "buffered with a record schema", cmd: `{"stdin": {"mode": "buffered", "record_schema": {"type": "object"}}}`, at: c + "/stdin/record_schema"},
		{name: "cache with a ttl", cmd: `{"filesystem_side_effects": [{"path": "~/.cache/tool/", "type": "cache", "ttl_seconds": 3600, "clearable_with": "tool cleanup"}]}`},
		{name: "output with a clear command", cmd: `{"filesystem_side_effects": [{"path": "out/", "type": "output", "clearable_with": "tool cleanup"}]}`, at: c + "/filesystem_side_effects/0/clearable_with"},

		// contracts the 2.x schema already had
		{name: "headless auth without tokens", cmd: `{"headless_supported": false}`, at: c},
		{name: "gui without headless behavior", cmd: `{"gui_operations": ["browser_open"]}`, at: c},
		{name: "dependency at any version", root: `{"dependencies": [{"name": "bean-format", "check_command": "command -v bean-format", "min_version": "*"}], "secret_env_vars": ["TOOL_API_KEY"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := merge(t, root, tt.root)
			if commands, ok := doc["commands"].(map[string]any); ok {
				commands["c"] = merge(t, cmd, tt.cmd)
			}
			checkRule(t, schema, doc, tt.at)
		})
	}
}

// checkRule validates doc and wants it valid when at is "", and otherwise
// rejected with an innermost error at that location.
func checkRule(t *testing.T, schema *jsonschema.Schema, doc map[string]any, at string) {
	t.Helper()
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	err = schema.Validate(instance(t, text))
	switch {
	case at == "" && err != nil:
		t.Errorf("rejected: %v\n%s", err, text)
	case at == "":
	case err == nil:
		t.Errorf("accepted, want a failure at %s:\n%s", at, text)
	case !slices.Contains(errorLocations(err), at):
		t.Errorf("rejected at %q, want at %q: %v", errorLocations(err), at, err)
	}
}
