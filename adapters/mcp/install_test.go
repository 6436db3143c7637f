package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetMember writes one server's entry into a JSON configuration and
// keeps every other byte: comments are not JSON, but spacing, key order and
// the other entries are kept as they are.
func TestSetMember(t *testing.T) {
	entry := map[string]any{"command": "/bin/tool", "args": []string{"serve"}}
	tests := []struct{ name, doc, want string }{
		{"no file", "", "{\n  \"mcpServers\": {\n    \"tool\": {\n      \"args\": [\n        \"serve\"\n      ],\n      \"command\": \"/bin/tool\"\n    }\n  }\n}\n"},
		{"no servers", "{\"theme\":  \"dark\"}\n", "{\"theme\":  \"dark\",\n  \"mcpServers\": {\n    \"tool\": {\n      \"args\": [\n        \"serve\"\n      ],\n      \"command\": \"/bin/tool\"\n    }\n  }}\n"},
		{"another server", "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"tool\": {\n      \"args\": [\n        \"serve\"\n      ],\n      \"command\": \"/bin/tool\"\n    }\n  }\n}\n"},
		{"ours, changed", "{\"mcpServers\": {\"tool\": {\"command\": \"/old\"}, \"z\": 1}}", "{\"mcpServers\": {\"tool\": {\n      \"args\": [\n        \"serve\"\n      ],\n      \"command\": \"/bin/tool\"\n    }, \"z\": 1}}"},
		{"ours, the same", "{\"mcpServers\": {\"tool\": {\"command\": \"/bin/tool\", \"args\": [\"serve\"]}}}", "{\"mcpServers\": {\"tool\": {\"command\": \"/bin/tool\", \"args\": [\"serve\"]}}}"},
		{"empty object", "{}", "{\n  \"mcpServers\": {\n    \"tool\": {\n      \"args\": [\n        \"serve\"\n      ],\n      \"command\": \"/bin/tool\"\n    }\n  }}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setMember([]byte(tt.doc), "mcpServers", "tool", entry)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"{", "[1]", "{\"mcpServers\": 3}", "{} {}", "// a comment\n{}"} {
		if _, err := setMember([]byte(bad), "mcpServers", "tool", entry); err == nil {
			t.Errorf("setMember(%q) took it: want an error, the file left alone", bad)
		}
	}
}

// TestSetTable writes Codex's table for one server, keeping the rest.
func TestSetTable(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"no file", "", "[mcp_servers.tool]\ncommand = \"/bin/tool\"\nargs = [\"serve\"]\n"},
		{"other settings", "model = \"o3\"\n", "model = \"o3\"\n\n[mcp_servers.tool]\ncommand = \"/bin/tool\"\nargs = [\"serve\"]\n"},
		{"ours, changed, between others", "[a]\nx = 1\n\n[mcp_servers.tool]\ncommand = \"/old\"\n\n[b]\ny = 2\n",
			"[a]\nx = 1\n\n[mcp_servers.tool]\ncommand = \"/bin/tool\"\nargs = [\"serve\"]\n\n[b]\ny = 2\n"},
		{"ours, the same", "[mcp_servers.tool]\ncommand = \"/bin/tool\"\nargs = [\"serve\"]\n", "[mcp_servers.tool]\ncommand = \"/bin/tool\"\nargs = [\"serve\"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setTable([]byte(tt.doc), "tool", "/bin/tool", "serve")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(string(got), "[mcp_servers.tool]") {
				t.Error("no table")
			}
		})
	}
}
