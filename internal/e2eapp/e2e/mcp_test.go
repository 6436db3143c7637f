//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-O-035 MCP wrapper schema staleness.

// TestO035MCPValidate: REQ-O-035's criteria and its v1.12 one, on the built
// binary, as CI would run it. The tool list `describe --mcp` gives, saved
// to mcp.json, validates: exit 0, empty drift — and approve, a person-only
// command marked mcp: false, is not missing from it. A stale list (status
// dropped, lookup's key an integer, a tool the CLI never had) exits 1
// SCHEMA_DRIFT with the drift as added, removed, changed and
// missing_from_mcp — status alone missing, never approve.
func TestO035MCPValidate(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	described := expect(t, "describe --mcp", sb.run(t, "describe", "--mcp"), 0)["data"].(map[string]any)
	current := sb.path("mcp.json")
	writeJSON(t, current, described)
	type drift struct {
		Added          []map[string]any `json:"added"`
		Removed        []map[string]any `json:"removed"`
		Changed        []map[string]any `json:"changed"`
		MissingFromMCP []string         `json:"missing_from_mcp"`
	}
	driftOf := func(env map[string]any) drift {
		t.Helper()
		raw, _ := json.Marshal(get(env, "data.drift"))
		var d drift
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("data.drift %s: %v", raw, err)
		}
		return d
	}
	env := expect(t, "mcp-validate", sb.run(t, "mcp-validate", "--mcp-schema-file", current), 0)
	empty := drift{Added: []map[string]any{}, Removed: []map[string]any{}, Changed: []map[string]any{}, MissingFromMCP: []string{}}
	if diff := cmp.Diff(empty, driftOf(env)); diff != "" {
		t.Errorf("the current list's drift (-want +got):\n%s", diff)
	}

	var tools []any
	for _, tool := range described["tools"].([]any) {
		switch get(tool, "name") {
		case "approve":
			t.Fatal("describe --mcp lists approve, which is mcp: false")
		case "status":
			continue
		case "lookup":
			get(tool, "inputSchema.properties").(map[string]any)["key"] = map[string]any{"type": "integer"}
		}
		tools = append(tools, tool)
	}
	tools = append(tools, map[string]any{"name": "legacy", "inputSchema": map[string]any{"type": "object"}})
	stale := sb.path("stale.json")
	writeJSON(t, stale, map[string]any{"tools": tools})
	env = expect(t, "mcp-validate, stale", sb.run(t, "mcp-validate", "--mcp-schema-file", stale), 1)
	want(t, "mcp-validate, stale", env, map[string]any{"error.code": "SCHEMA_DRIFT"})
	wantDrift := drift{
		Added:          []map[string]any{},
		Removed:        []map[string]any{{"command": "legacy", "field": nil}},
		Changed:        []map[string]any{{"command": "lookup", "field": "input.key", "cli_type": "string", "mcp_type": "integer"}},
		MissingFromMCP: []string{"status"},
	}
	if diff := cmp.Diff(wantDrift, driftOf(env)); diff != "" {
		t.Errorf("the stale list's drift (-want +got):\n%s", diff)
	}
}

// writeJSON writes v to path as JSON.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
