package adapters_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/feature/json5"
	"github.com/duet-cli/duet/schema"
)

// objectFlagApp has `watch --filter <object> --sig-type <0|1|2>`; ran
// records the --filter value each run was given.
func objectFlagApp(ran *[]string, meta map[string]schema.FlagMeta, flags ...cli.Flag) *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "watch", Flags: flags,
			Action: func(_ context.Context, c *cli.Command) error {
				*ran = append(*ran, c.String("filter"))
				return nil
			}}, schema.Meta{Danger: schema.Safe, NoArgs: true, Flags: meta}),
	}}
}

var statusFilter = schema.Schema{"type": "object", "required": []string{"status"}, "additionalProperties": false,
	"properties": map[string]any{"status": map[string]any{"type": "string", "enum": []string{"open", "closed"}}}}

// TestObjectFlag: a string flag that declares FlagMeta.Schema takes one
// JSON object (JSON5 accepted), which the command gets as strict JSON; a
// value that is not JSON, or does not match the schema, is refused before
// the command runs, exit 2, the flag named; --schema lists the flag as type
// "object" with its schema (C-015, ManifestResponse 3.7).
func TestObjectFlag(t *testing.T) {
	var ran []string
	app := func() *cli.Command {
		return objectFlagApp(&ran, map[string]schema.FlagMeta{"filter": {Schema: statusFilter}},
			&cli.StringFlag{Name: "filter", Usage: "what to watch"})
	}
	home := t.TempDir()
	json5Read := []urfave.Option{adapters.WithFeatures(json5.New())}
	wantOK(t, runAgentIn(t, home, app(), json5Read, "watch", "--filter", `{status: 'open',}`))
	if diff := cmp.Diff([]string{`{"status":"open"}`}, ran); diff != "" {
		t.Errorf("the command's --filter (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ value, code, says string }{
		{"status=open", "INVALID_JSON", "--filter: "},
		{`{"status":3}`, "INVALID_FLAG_VALUE", "--filter: at /status: 3 is a number, not string"},
		{`{"status":"open","extra":true}`, "INVALID_FLAG_VALUE", `"extra" is not an allowed property`},
		{`"open"`, "INVALID_FLAG_VALUE", "is a string, not object"},
	} {
		ran = nil
		r := runAgentIn(t, home, app(), json5Read, "watch", "--filter", tc.value)
		w := envelopeOf(t, r)
		if r.code != 2 || w.Error == nil || w.Error.Code != tc.code || w.Error.Field != "filter" || !strings.Contains(w.Error.Message, tc.says) {
			t.Errorf("--filter %s: exit %d, error %+v; want 2, %s on filter saying %q", tc.value, r.code, w.Error, tc.code, tc.says)
		}
		if strings.Contains(r.stdout, "corrected_input") {
			t.Errorf("--filter %s: a corrected_input that is no value of the schema: %s", tc.value, r.stdout)
		}
		if len(ran) > 0 {
			t.Errorf("--filter %s: the command ran", tc.value)
		}
	}
	w := wantOK(t, runAgentIn(t, home, app(), nil, "watch", "--schema"))
	var doc struct {
		Parameters map[string]json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(w.Data, &doc); err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	json.Unmarshal(doc.Parameters["filter"], &entry)
	if entry["type"] != "object" || entry["schema"] == nil || get(entry, "schema.properties.status.type") != "string" {
		t.Errorf("--schema's --filter: %v, want type object with its schema", entry)
	}
}

// get follows a dot path through decoded JSON objects.
func get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// TestObjectFlagRefused: Wrap refuses a Schema on a flag that is not a
// string, a Schema that is not an object's, one with a keyword its values
// would not be checked against, and an integer flag whose Enum lists a
// value that is not an integer as the manifest writes one (C-015).
func TestObjectFlagRefused(t *testing.T) {
	var ran []string
	for _, tc := range []struct {
		name string
		meta schema.FlagMeta
		flag cli.Flag
		want string
	}{
		{"filter", schema.FlagMeta{Schema: statusFilter}, &cli.IntFlag{Name: "filter"}, "flag --filter declares a Schema, but its values are of type integer"},
		{"filter", schema.FlagMeta{Schema: schema.Schema{"type": "string"}}, &cli.StringFlag{Name: "filter"}, `declare "type": "object"`},
		{"filter", schema.FlagMeta{Schema: schema.Schema{"type": "object", "minProperties": 1}}, &cli.StringFlag{Name: "filter"}, "keywords a value is not checked against: #/minProperties"},
		{"filter", schema.FlagMeta{Schema: schema.Schema{"type": "object", "pattern": "("}}, &cli.StringFlag{Name: "filter"}, "pattern"},
		{"sig-type", schema.FlagMeta{Enum: []string{"0", "01"}}, &cli.IntFlag{Name: "sig-type"}, `flag --sig-type takes integers, but its Enum lists "01"`},
	} {
		_, err := urfave.Wrap(objectFlagApp(&ran, map[string]schema.FlagMeta{tc.name: tc.meta}, tc.flag))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: wrap error %v, want %q", tc.want, err, tc.want)
		}
	}
}

// TestIntegerEnum: an integer flag with an Enum is listed as type
// "integer" with its values as numbers, and a value outside them is
// refused before the command runs (C-015, ManifestResponse 3.18).
func TestIntegerEnum(t *testing.T) {
	var ran []string
	app := func() *cli.Command {
		return objectFlagApp(&ran, map[string]schema.FlagMeta{"sig-type": {Enum: []string{"0", "1", "2"}}},
			&cli.IntFlag{Name: "sig-type", Usage: "the signature type"})
	}
	home := t.TempDir()
	w := wantOK(t, runAgentIn(t, home, app(), nil, "watch", "--schema"))
	var doc struct {
		Parameters map[string]json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(w.Data, &doc); err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Type       string `json:"type"`
		EnumValues []any  `json:"enum_values"`
	}
	json.Unmarshal(doc.Parameters["sig-type"], &entry)
	if diff := cmp.Diff(struct {
		Type       string
		EnumValues []any
	}{"integer", []any{0.0, 1.0, 2.0}}, struct {
		Type       string
		EnumValues []any
	}(entry)); diff != "" {
		t.Errorf("--schema's --sig-type (-want +got):\n%s", diff)
	}
	wantOK(t, runAgentIn(t, home, app(), nil, "watch", "--sig-type", "2"))
	ran = nil
	if r := runAgentIn(t, home, app(), nil, "watch", "--sig-type", "5"); r.code != 2 || len(ran) > 0 {
		t.Errorf("--sig-type 5: exit %d, ran %v; want 2, not run", r.code, ran)
	}
}
