package adapters

import "testing"

// TestProtocolName: the names REQ-C-032 documents pass, and nothing that is
// not lowercase kebab-case.
func TestProtocolName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"mcp-stdio", true}, {"lsp", true}, {"dap", true}, {"mcp", true}, {"a2-b3", true},
		{"", false}, {"MCP", false}, {"mcp_stdio", false}, {"-lsp", false}, {"lsp-", false},
		{"mcp--stdio", false}, {"2lsp", false}, {"mcp stdio", false},
	} {
		if got := isProtocolName(tt.name); got != tt.ok {
			t.Errorf("isProtocolName(%q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
