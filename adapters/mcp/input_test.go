package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// inputTree is a tree with a flag of every type and both kinds of argument.
func inputTree(t testing.TB) *schema.Command {
	t.Helper()
	cmd := &schema.Command{
		Name: "put", Runnable: true,
		Flags: []schema.Flag{
			{Name: "name", Type: schema.String, Required: true},
			{Name: "mode", Type: schema.String, Enum: []string{"fast", "slow"}},
			{Name: "code", Type: schema.String, Pattern: "^[A-Z]{2}$"},
			{Name: "n", Type: schema.Integer},
			{Name: "ratio", Type: schema.Number},
			{Name: "force", Type: schema.Boolean},
			{Name: "tag", Type: schema.Array, Items: schema.String, Enum: []string{"a", "b"}},
			{Name: "sizes", Type: schema.Array, Items: schema.Integer},
			{Name: "label", Type: schema.Object, Items: schema.String},
			{Name: "secret", Type: schema.String, Hidden: true},
		},
		Args: []schema.Arg{
			{Name: "key", Required: true},
			{Name: "values", Variadic: true, Type: schema.Integer},
		},
	}
	root := &schema.Command{Name: "kv", Commands: []*schema.Command{{Name: "store", Commands: []*schema.Command{cmd}}}}
	if err := adapters.Prepare(root); err != nil {
		t.Fatal(err)
	}
	return root.Find("store.put")
}

// TestInputAgreesWithJSONSchema holds commandLine's checks to a JSON Schema
// validator on the input schema the tool advertises: every input one accepts
// the other accepts.
func TestInputAgreesWithJSONSchema(t *testing.T) {
	c := inputTree(t)
	compiled, err := validator.Compile(c.ToolInputSchema())
	if err != nil {
		t.Fatal(err)
	}
	base := `"name":"x","key":"k"`
	inputs := []string{
		`{` + base + `}`,
		`{"key":"k"}`,
		`{"name":"x"}`,
		`{}`,
		`null`,
		`{` + base + `,"mode":"fast"}`,
		`{` + base + `,"mode":"medium"}`,
		`{` + base + `,"mode":1}`,
		`{` + base + `,"code":"AB"}`,
		`{` + base + `,"code":"ab"}`,
		`{` + base + `,"code":"XABX"}`,
		`{` + base + `,"n":3}`,
		`{` + base + `,"n":3.0}`,
		`{` + base + `,"n":3.5}`,
		`{` + base + `,"n":"3"}`,
		`{` + base + `,"n":1e3}`,
		`{` + base + `,"n":null}`,
		`{` + base + `,"ratio":0.25}`,
		`{` + base + `,"ratio":-2}`,
		`{` + base + `,"ratio":true}`,
		`{` + base + `,"force":true}`,
		`{` + base + `,"force":"true"}`,
		`{` + base + `,"force":0}`,
		`{` + base + `,"tag":["a","b"]}`,
		`{` + base + `,"tag":["c"]}`,
		`{` + base + `,"tag":"a"}`,
		`{` + base + `,"tag":[]}`,
		`{` + base + `,"sizes":[1,2]}`,
		`{` + base + `,"sizes":[1,"2"]}`,
		`{` + base + `,"label":{"k":"v"}}`,
		`{` + base + `,"label":{"k":1}}`,
		`{` + base + `,"label":["k"]}`,
		`{` + base + `,"secret":"s"}`,
		`{` + base + `,"output":"text"}`,
		`{` + base + `,"format":"text"}`,
		`{` + base + `,"timeout":"5s"}`,
		`{` + base + `,"timeout":5}`,
		`{` + base + `,"values":[1,2]}`,
		`{` + base + `,"values":[]}`,
		`{` + base + `,"values":1}`,
		`{` + base + `,"values":["x"]}`,
		`{"name":"x","key":7}`,
		`{"name":["x"],"key":"k"}`,
		`{` + base + `,"unknown":1}`,
	}
	for _, in := range inputs {
		_, bad := commandLine(c, json.RawMessage(in), "")
		doc := in
		if doc == "null" {
			doc = "{}" // no arguments at all: an empty object to the schema
		}
		schemaErr := compiled.Validate(json.RawMessage(doc))
		if (bad == nil) != (schemaErr == nil) {
			t.Errorf("%s: commandLine says %v, the JSON Schema validator says %v", in, bad, schemaErr)
		}
	}
}

func TestCommandLine(t *testing.T) {
	c := inputTree(t)
	tests := []struct {
		in   string
		want []string
	}{
		{`{"name":"x","key":"k"}`, []string{"store", "put", "--name=x", "--", "k"}},
		{`{"name":"-rf /","key":"--k","values":[1,2],"force":false,"n":2.0,"ratio":0.5}`,
			[]string{"store", "put", "--force=false", "--n=2", "--name=-rf /", "--ratio=0.5", "--", "--k", "1", "2"}},
		{`{"name":"x","key":"k","tag":["b","a"],"label":{"z":"1","a":"2"},"force":true}`,
			[]string{"store", "put", "--force=true", "--label=a=2", "--label=z=1", "--name=x", "--tag=b", "--tag=a", "--", "k"}},
	}
	for _, tt := range tests {
		got, bad := commandLine(c, json.RawMessage(tt.in), "")
		if bad != nil {
			t.Errorf("%s: %v", tt.in, bad)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestCommandLineRefusesWhatIsNotAnObject(t *testing.T) {
	c := inputTree(t)
	for _, in := range []string{`[]`, `"x"`, `{`, `3`} {
		if _, bad := commandLine(c, json.RawMessage(in), ""); bad == nil || !strings.Contains(bad.Code, "INVALID_ARGUMENTS") {
			t.Errorf("%s: got %v, want INVALID_ARGUMENTS", in, bad)
		}
	}
}
