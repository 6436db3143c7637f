//go:build linux

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// TestC015InputAndOutputSchema: REQ-C-015 (v1.16) on e2eapp's watch
// <target> <level> --filter <object> [--sig-type 0|1|2], which saves the
// watch to a file (its side effect). `watch --schema` is JSON with
// parameters and an output_schema that compiles as a JSON Schema and that
// watch's own answer matches; `e2eapp --schema` is the whole tree, each
// command with its flags and output_schema (with the answer cap raised:
// the tree is 1.8 MB); every flag watch declares
// to urfave appears in parameters with no declaration of it to Duet
// beyond the command's; the manifest lists watch's positionals in call
// order (target, then level, an integer with enum_values [1, 2, 3]);
// --filter is type "object" with its schema (also in --schema), and
// --sig-type type "integer" with enum_values [0, 1, 2], numbers, and the
// manifest is a valid ManifestResponse 3.21; --filter '{"status":"open"}'
// passes (so does JSON5), while --filter 'status=open' and --filter
// '{"status":3}' exit 2 (validation) naming the flag, as do --sig-type 5
// and level 4, and none of them writes the watch's file.
func TestC015InputAndOutputSchema(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)

	doc := sb.schemaOf(t, "watch")
	for _, k := range []string{"parameters", "output_schema"} {
		if doc[k] == nil {
			t.Errorf("watch --schema has no %s", k)
		}
	}
	raw, _ := json.Marshal(doc["output_schema"])
	output, err := validator.Compile(schema.MustParse(string(raw)))
	if err != nil {
		t.Fatalf("watch's output_schema is not a JSON Schema: %v", err)
	}
	params, _ := doc["parameters"].(map[string]any)
	for _, name := range []string{"filter", "sig-type"} {
		if params[name] == nil {
			t.Errorf("watch --schema: parameter --%s, declared to urfave, is missing: %v", name, keys(params))
		}
	}
	want(t, "watch --schema", map[string]any{"data": doc}, map[string]any{
		"data.parameters.filter.type":                     "object",
		"data.parameters.filter.required":                 true,
		"data.parameters.filter.schema.required":          []any{"status"},
		"data.parameters.filter.schema.properties.status": map[string]any{"type": "string", "enum": []any{"open", "closed"}, "description": "the state of the items watched"},
		"data.parameters.sig-type.type":                   "integer",
		"data.parameters.sig-type.enum_values":            []any{0.0, 1.0, 2.0},
	})

	// The whole tree: 1.8 MB for e2eapp, past the default 1 MiB cap on an
	// answer (which would drop data with FIELD_TRUNCATED), so the cap is
	// raised as its truncation hint says.
	tree := expect(t, "e2eapp --schema", sb.runEnv(t, []string{"E2EAPP_MAX_OUTPUT_BYTES=16000000"}, "--schema"), 0)
	commands, _ := get(tree, "data.commands").(map[string]any)
	if commands == nil {
		t.Fatalf("e2eapp --schema: no commands: %v", keys(tree["data"].(map[string]any)))
	}
	if w, _ := commands["watch"].(map[string]any); w == nil || w["output_schema"] == nil || get(w, "flags.filter.type") != "object" {
		t.Errorf("e2eapp --schema's watch: %v", commands["watch"])
	}

	// The manifest: positionals in call order, the object flag with its
	// schema, the integers as numbers, all of it a valid ManifestResponse.
	m := sb.manifest(t)
	_, manifestSchema := specSchemas(t)
	var asJSON any
	rawManifest, _ := json.Marshal(m)
	json.Unmarshal(rawManifest, &asJSON)
	if err := manifestSchema.Validate(asJSON); err != nil {
		t.Errorf("the manifest is not a valid ManifestResponse: %v", err)
	}
	want(t, "manifest", map[string]any{"data": m}, map[string]any{
		"data.commands.watch.positionals": []any{
			map[string]any{"name": "target", "type": "string", "required": true, "description": "the target to watch"},
			map[string]any{"name": "level", "type": "integer", "required": true, "description": "how closely to watch: 1, 2 or 3", "enum_values": []any{1.0, 2.0, 3.0}},
		},
		"data.commands.watch.flags.filter.type":          "object",
		"data.commands.watch.flags.filter.schema.type":   "object",
		"data.commands.watch.flags.sig-type.type":        "integer",
		"data.commands.watch.flags.sig-type.enum_values": []any{0.0, 1.0, 2.0},
	})
	// Every object flag of every command carries its schema; no other does.
	for path, c := range m["commands"].(map[string]any) {
		flags, _ := c.(map[string]any)["flags"].(map[string]any)
		for name, f := range flags {
			f := f.(map[string]any)
			if (f["type"] == "object") != (f["schema"] != nil) {
				t.Errorf("manifest: %s --%s: type %v with schema %v", path, name, f["type"], f["schema"])
			}
		}
	}

	// Phase 1: what passes, and what is refused before the file is written.
	file := sb.path("data", "e2eapp", "watches", "site-a.json")
	for _, tt := range []struct {
		name  string
		args  []string
		field string
		code  string
	}{
		{"not JSON", []string{"site-a", "2", "--filter", "status=open"}, "filter", "INVALID_JSON"},
		{"not of the schema", []string{"site-a", "2", "--filter", `{"status":3}`}, "filter", "INVALID_FLAG_VALUE"},
		{"a property the schema does not allow", []string{"site-a", "2", "--filter", `{"status":"open","owner":"me"}`}, "filter", "INVALID_FLAG_VALUE"},
		{"an integer flag's value outside its enum", []string{"site-a", "2", "--filter", `{"status":"open"}`, "--sig-type", "5"}, "sig-type", "INVALID_ENUM_VALUE"},
		{"an integer positional's value outside its enum", []string{"site-a", "4", "--filter", `{"status":"open"}`}, "level", "INVALID_ENUM_VALUE"},
	} {
		env := expect(t, tt.name, sb.run(t, append([]string{"watch"}, tt.args...)...), 2)
		want(t, tt.name, env, map[string]any{"error.code": tt.code, "error.field": tt.field, "error.phase": "validation"})
		if msg, _ := get(env, "error.message").(string); tt.field == "filter" && !strings.HasPrefix(msg, "--filter: ") {
			t.Errorf("%s: the message does not name the flag: %q", tt.name, msg)
		}
		if exists(file) {
			t.Fatalf("%s: the watch's file was written", tt.name)
		}
	}
	for _, filter := range []string{`{"status":"open"}`, `{status: 'closed', labels: ['x',],}`} {
		r := sb.run(t, "watch", "site-a", "2", "--filter", filter, "--sig-type", "1")
		env := expect(t, "--filter "+filter, r, 0)
		if err := output.Validate(jsonOf(t, env["data"])); err != nil {
			t.Errorf("--filter %s: data does not match the output_schema: %v", filter, err)
		}
		if !exists(file) {
			t.Errorf("--filter %s: no watch file", filter)
		}
	}
	var saved struct {
		Filter map[string]any `json:"filter"`
	}
	if err := json.Unmarshal([]byte(readFile(t, file)), &saved); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"status": "closed", "labels": []any{"x"}}, saved.Filter); diff != "" {
		t.Errorf("the JSON5 filter, as the command got it (-want +got):\n%s", diff)
	}
}

// jsonOf is v encoded.
func jsonOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestC015ObjectFlagsRefused: REQ-C-015 (v1.16) declarations e2eapp-
// misdeclared must not start with: an object flag (FlagMeta.Schema) that
// is not a string flag, whose schema is not an object's, or whose schema
// uses a keyword its values would not be checked against; and an integer
// flag whose enum lists a word. Each exits 1 before anything runs, naming
// the command and the flag.
func TestC015ObjectFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ misdeclare, says string }{
		{"object-flag-int", "flag --filter declares a Schema, but its values are of type integer"},
		{"object-flag-not-object", `flag --filter: Schema: an object flag's value is a JSON object: declare "type": "object"`},
		{"object-flag-unchecked-keyword", "flag --filter: Schema: schema: keywords a value is not checked against: #/patternProperties"},
		{"integer-enum-word", `flag --sig-type takes integers, but its Enum lists "one"`},
	} {
		t.Run(tt.misdeclare, func(t *testing.T) {
			t.Parallel()
			sb := sandboxFor(t, misdeclared)
			for _, args := range [][]string{{"status"}, {"track", "--schema"}} {
				r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=" + tt.misdeclare}, args...)
				if r.code != 1 || r.stdout != "" {
					t.Fatalf("%v: exit %d, stdout %q; want it not to start", args, r.code, r.stdout)
				}
				for _, s := range []string{`command "track"`, tt.says} {
					if !strings.Contains(r.stderr, s) {
						t.Errorf("%v: stderr does not say %q:\n%s", args, s, r.stderr)
					}
				}
			}
		})
	}
}
