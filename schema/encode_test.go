package schema

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/jsontest"
)

// The hand-written Doc encoding must equal encoding/json's from the struct
// tags. plainDoc has Doc's fields without its methods; the nested Arg and
// input-schema properties are then encoded by reflection too, since they
// only have AppendJSON. FlagEntry encodes itself (an integer flag's values
// are numbers): TestFlagEntryEncoding holds the rest of it to its tags.
func TestDocEncodingMatchesEncodingJSON(t *testing.T) {
	type plainDoc Doc
	type record struct {
		ID   string   `json:"id" doc:"stable <id>"`
		Tags []string `json:"tags,omitempty"`
		Size float64  `json:"size"`
	}
	root := &Command{Name: "tool", Flags: []Flag{{Name: "config", Type: String, Persistent: true, Env: []string{"TOOL_CONFIG"}}}}
	full := &Command{
		Name: "run", Path: []string{"run"}, Aliases: []string{"r", "go"}, Usage: "Run it & \"more\"", Parent: root, Runnable: true,
		Flags: []Flag{
			{Name: "name", Short: "n", Type: String, Usage: "the <name>", Required: true, Pattern: "^[a-z]+$"},
			{Name: "count", Type: Integer, Default: 10},
			{Name: "ratio", Type: Number, Default: 0.5, Usage: "ratio"},
			{Name: "when", Type: String, Format: "duration", Default: "1m30s"},
			{Name: "tag", Type: Array, Items: String},
			{Name: "label", Type: Object},
			{Name: "mode", Type: String, Enum: []string{"fast", "safe"}, Default: "safe"},
			{Name: "token", Type: String, Sensitive: true, Default: "secret"},
			{Name: "hidden", Type: Boolean, Hidden: true},
			{Name: "repo", Type: String, Subprocess: true},
			{Name: "config", Type: String, Format: FormatJSON, Pipe: true, Subprocess: true},
			{Name: "timeout", Type: String, Builtin: true},
			{Name: "body", Type: String, MaxBytes: 255, Deprecated: "use --text"},
		},
		Args: []Arg{
			{Name: "id", Required: true, Type: String, ID: true, Usage: "the id", Pattern: "^t[0-9]+$"},
			{Name: "rest", Variadic: true, Required: true, Enum: []string{"a", "b"}, Subprocess: true, Pipe: true},
		},
		Meta: Meta{
			Danger: Destructive, List: true, Audience: AgentOnly, Timeout: 90 * time.Second, LongRunning: true, Protocol: "mcp",
			Output:     Of[[]record](),
			Examples:   []Example{{Description: "one", Command: "tool run t1 --name x"}},
			Groups:     []Group{{Kind: MutuallyExclusive, Flags: []string{"count", "ratio"}}, {Kind: OneRequired, Flags: nil}},
			ExitCodes:  exitcode.Table{80: {Name: "CUSTOM", Description: "a custom code", SideEffects: exitcode.None}},
			Subprocess: Subprocess{Binary: "git", Hardcoded: []string{"--no-pager"}}, PreserveLocale: true,
			Background: &Background{CleanupCommand: "tool run stop", MaxLifetime: time.Hour},
			// input
			Stdin: "JSON lines", RawPayload: true, Traverses: true,
			Requires: []Rule{IfValue("mode", "fast", "count"), IfPresent("count", "ratio"), DefaultWhenAbsent("mode", "count", 3), AnyOf("mode", "count"), OneOf("count", "ratio")},
			// long work
			Steps: []string{"backup", "apply <schema>"}, Rollback: true, Async: true,
			Prompts: true, Editor: true, Alternatives: []string{"name", "when"}, GUI: []string{"browser_open"},
			Headless: EmitInOutput, HighEntropy: []string{"token"},
			IntroducedIn: "1.0.0", DeprecatedIn: "2.0.0", Replacement: "tool go", RemovedIn: "3.0.0",
			OptionPlacement: Strict, StreamingDefault: true, SchemaVersion: 2, MinSchemaVersion: 1, SortKey: "id",
		},
		Commands: []*Command{{Name: "sub", Path: []string{"run", "sub"}}},
	}
	full.Commands[0].Parent = full
	root.Commands = []*Command{full}
	bare := &Command{Name: "bare", Path: []string{"bare"}, Parent: root}
	binaryOnly := &Command{Name: "git", Path: []string{"git"}, Parent: root, Meta: Meta{Subprocess: Subprocess{Binary: "git"}}}

	for _, c := range []*Command{root, full, bare, binaryOnly} {
		for _, agent := range []bool{false, true} {
			d, err := c.Document(agent)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			got, err := d.MarshalJSON()
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if want := jsontest.Encode(t, plainDoc(d)); string(got) != want {
				t.Errorf("%s (agent %v):\nhand-written:  %s\nencoding/json: %s", c.Name, agent, got, want)
			}
		}
	}
}

// properties encode as the map of the same properties would, and an argument
// named like a flag replaces it, as in a map.
func TestPropertiesEncodeAsAMap(t *testing.T) {
	c := &Command{
		Name: "cmd",
		Flags: []Flag{
			{Name: "zeta", Type: String, Usage: "last <z>"},
			{Name: "alpha", Type: Array, Items: Integer, Default: []int{1}},
			{Name: "id", Type: String, Usage: "the flag"},
			{Name: "label", Type: Object},
		},
		Args: []Arg{{Name: "id", Usage: "the argument", Required: true}, {Name: "rest", Variadic: true}},
	}
	props := c.InputSchema()["properties"].(properties)
	asMap := map[string]*property{}
	for _, p := range props {
		asMap[p.name] = p.property
	}
	if len(asMap) != len(props) {
		t.Errorf("properties hold a name twice: %v", props)
	}
	if asMap["id"].Description != "the argument" {
		t.Errorf("id is %q, want the argument's property", asMap["id"].Description)
	}
	got, _ := props.MarshalJSON()
	if want := jsontest.Encode(t, asMap); string(got) != want {
		t.Errorf("properties:\nhand-written:  %s\nencoding/json: %s", got, want)
	}
}

// TestFlagEntryEncoding: an integer flag's enum_values are numbers, an
// object flag is type "object" with its schema, and a FlagEntry encodes
// alike through AppendJSON and encoding/json; the rest of the entry is
// encoded as its struct tags say (C-015, ManifestResponse 3.7 and 3.18).
func TestFlagEntryEncoding(t *testing.T) {
	type plain FlagEntry
	for _, tc := range []struct {
		flag Flag
		want string
	}{
		{Flag{Name: "sig-type", Type: Integer, Enum: []string{"0", "1", "2"}, Usage: "u", Default: 0},
			`{"type":"integer","required":false,"description":"u","default":0,"enum_values":[0,1,2]}`},
		{Flag{Name: "mode", Type: String, Enum: []string{"a", "b"}, Usage: "u"},
			`{"type":"enum","required":false,"description":"u","enum_values":["a","b"]}`},
		{Flag{Name: "filter", Type: String, Format: FormatJSON, Usage: "u", Schema: Schema{"type": "object", "required": []string{"status"}}},
			`{"type":"object","required":false,"description":"u","json":true,"schema":{"required":["status"],"type":"object"}}`},
		{Flag{Name: "all", Short: "a", Type: String, Usage: "the <all> & \"more\"", Required: true, Default: "x", Env: []string{"T_ALL"},
			Format: FormatJSON, Pipe: true, Subprocess: true, MaxBytes: 9, Deprecated: "use --b"},
			`{"type":"string","required":true,"description":"the <all> & \"more\" (deprecated: use --b)","default":"x","short":"a","env":["T_ALL"],"json":true,"pipe_compatible":true,"subprocess":true,"max_bytes":9,"deprecated":"use --b"}`},
		{Flag{Name: "token", Type: String, Sensitive: true, Default: "secret"},
			`{"type":"string","required":false,"description":"","sensitive":true}`},
	} {
		e := tc.flag.Entry()
		if got := string(e.AppendJSON(nil)); got != tc.want {
			t.Errorf("--%s: AppendJSON\n got %s\nwant %s", tc.flag.Name, got, tc.want)
		}
		same := func(what string, v any) {
			t.Helper()
			raw, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			json.Unmarshal(raw, &got)
			json.Unmarshal([]byte(tc.want), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("--%s: %s (-want +got):\n%s", tc.flag.Name, what, diff)
			}
		}
		same("encoding/json", e)
		if tc.flag.Type != Integer { // only an integer's values differ from the struct tags' encoding
			same("struct tags", plain(e))
		}
	}
}
