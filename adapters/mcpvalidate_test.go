package adapters_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
)

// TestMCPValidate holds `app mcp-validate` to O-035, as CI runs it: the
// tool list `describe --mcp` writes validates with exit 0 and an empty
// drift; a stale list exits 1 with the drift as data — a command it lacks
// in missing_from_mcp, a property only the CLI has in added, one only the
// list has (or a tool the CLI no longer has) in removed, a type that
// differs in changed — and a missing file is a structured error.
func TestMCPValidate(t *testing.T) {
	serving := run{opts: []urfave.Option{mcp.Command("serve")}} // mcp-validate is an MCP server's
	w := wantOK(t, serving.do(t, newHarness(t), "describe", "--mcp"))
	dir := t.TempDir()
	current := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(current, w.Data, 0o600); err != nil {
		t.Fatal(err)
	}
	type field struct {
		Command string  `json:"command"`
		Field   *string `json:"field"`
	}
	type change struct {
		Command string `json:"command"`
		Field   string `json:"field"`
		CLIType string `json:"cli_type"`
		MCPType string `json:"mcp_type"`
	}
	type drift struct {
		Added          []field  `json:"added"`
		Removed        []field  `json:"removed"`
		Changed        []change `json:"changed"`
		MissingFromMCP []string `json:"missing_from_mcp"`
	}
	validate := func(path string) (int, drift, string) {
		t.Helper()
		r := serving.do(t, newHarness(t), "mcp-validate", "--mcp-schema-file", path)
		w := envelopeOf(t, r)
		var data struct {
			Drift drift `json:"drift"`
		}
		if err := json.Unmarshal(w.Data, &data); err != nil {
			t.Fatalf("data: %v\n%s", err, r.stdout)
		}
		code := ""
		if w.Error != nil {
			code = w.Error.Code
		}
		if w.OK != (r.code == 0) {
			t.Errorf("ok %v with exit %d", w.OK, r.code)
		}
		return r.code, data.Drift, code
	}
	empty := drift{Added: []field{}, Removed: []field{}, Changed: []change{}, MissingFromMCP: []string{}}
	if code, d, _ := validate(current); code != 0 || !cmp.Equal(empty, d) {
		t.Errorf("the current list: exit %d, drift %+v; want 0 and none", code, d)
	}

	// A stale list: no count tool, need's space an integer, show's output
	// without name and with a colour, and a tool the CLI never had.
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(w.Data, &list); err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	for _, tool := range list.Tools {
		switch tool["name"] {
		case "count":
			continue
		case "need":
			tool["inputSchema"].(map[string]any)["properties"].(map[string]any)["space"] = map[string]any{"type": "integer"}
		case "show":
			props := tool["outputSchema"].(map[string]any)["properties"].(map[string]any)
			delete(props, "name")
			props["colour"] = map[string]any{"type": "string"}
		}
		tools = append(tools, tool)
	}
	tools = append(tools, map[string]any{"name": "legacy", "inputSchema": map[string]any{"type": "object"}})
	raw, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "stale.json")
	if err := os.WriteFile(stale, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	name, colour := "output.name", "output.colour"
	want := drift{
		Added:          []field{{Command: "show", Field: &name}},
		Removed:        []field{{Command: "legacy"}, {Command: "show", Field: &colour}},
		Changed:        []change{{Command: "need", Field: "input.space", CLIType: "string", MCPType: "integer"}},
		MissingFromMCP: []string{"count"},
	}
	code, d, errCode := validate(stale)
	if code != 1 || errCode != "SCHEMA_DRIFT" {
		t.Errorf("a stale list: exit %d error %q, want 1 SCHEMA_DRIFT", code, errCode)
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}

	r := serving.do(t, newHarness(t), "mcp-validate", "--mcp-schema-file", filepath.Join(dir, "none.json"))
	if w := wantError(t, r, 5, "MCP_SCHEMA_UNREADABLE"); w.Error.Field != "mcp-schema-file" {
		t.Errorf("error.field %q, want mcp-schema-file", w.Error.Field)
	}
}
