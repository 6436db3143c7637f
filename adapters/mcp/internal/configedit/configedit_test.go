package configedit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var entry = map[string]any{"command": "/bin/tool", "args": []string{"serve"}}

const written = "{\n      \"args\": [\n        \"serve\"\n      ],\n      \"command\": \"/bin/tool\"\n    }"

// TestJSON sets one server's entry in a JSON configuration, keeping every
// other byte, and removes it again: the document comes back as it was.
func TestJSON(t *testing.T) {
	tests := []struct{ name, doc, set string }{
		{"no file", "", "{\n  \"mcpServers\": {\n    \"tool\": " + written + "\n  }\n}\n"},
		{"no servers", "{\"theme\":  \"dark\"}\n", "{\"theme\":  \"dark\",\n  \"mcpServers\": {\n    \"tool\": " + written + "\n  }}\n"},
		{"another server", "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"tool\": " + written + "\n  }\n}\n"},
		{"empty object", "{}", "{\n  \"mcpServers\": {\n    \"tool\": " + written + "\n  }}"},
		{"empty servers", "{\"mcpServers\": {}, \"z\": 1}", "{\"mcpServers\": {\n    \"tool\": " + written + "}, \"z\": 1}"},
		{"servers first", "{\"mcpServers\": {\"a\": 1}, \"z\": 1}", "{\"mcpServers\": {\"a\": 1,\n    \"tool\": " + written + "}, \"z\": 1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetJSON([]byte(tt.doc), "mcpServers", "tool", entry)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.set, string(got)); diff != "" {
				t.Errorf("SetJSON (-want +got):\n%s", diff)
			}
			if again, _ := SetJSON(got, "mcpServers", "tool", entry); string(again) != string(got) {
				t.Errorf("SetJSON again changed it:\n%s", again)
			}
			if v, ok, err := GetJSON(got, "mcpServers", "tool"); !ok || err != nil || !sameJSON(v, []byte(written)) {
				t.Errorf("GetJSON = %s, %v, %v", v, ok, err)
			}
			back, found, err := RemoveJSON(got, "mcpServers", "tool")
			if err != nil || !found || string(back) != tt.doc {
				t.Errorf("RemoveJSON = %q, %v, %v; want the document as it was, %q", back, found, err, tt.doc)
			}
		})
	}
}

// TestJSONOurs: an entry of ours that changed is rewritten in place;
// removing the first of several servers takes the separator after it.
func TestJSONOurs(t *testing.T) {
	doc := "{\"mcpServers\": {\"tool\": {\"command\": \"/old\"}, \"z\": 1}}"
	got, err := SetJSON([]byte(doc), "mcpServers", "tool", entry)
	if want := "{\"mcpServers\": {\"tool\": " + written + ", \"z\": 1}}"; err != nil || string(got) != want {
		t.Errorf("SetJSON = %q, %v; want %q", got, err, want)
	}
	back, _, err := RemoveJSON(got, "mcpServers", "tool")
	if want := "{\"mcpServers\": {\"z\": 1}}"; err != nil || string(back) != want {
		t.Errorf("RemoveJSON = %q, %v; want %q", back, err, want)
	}
	if same, found, err := RemoveJSON(back, "mcpServers", "tool"); found || err != nil || string(same) != string(back) {
		t.Errorf("RemoveJSON of what is not there = %q, %v, %v", same, found, err)
	}
}

// TestBrokenRefused: a document that does not parse is refused by every
// edit, to be reported and left alone.
func TestBrokenRefused(t *testing.T) {
	for _, bad := range []string{"{", "[1]", "{\"mcpServers\": 3}", "{} {}", "// a comment\n{}"} {
		if _, err := SetJSON([]byte(bad), "mcpServers", "tool", entry); err == nil {
			t.Errorf("SetJSON(%q) took it", bad)
		}
		if _, _, err := RemoveJSON([]byte(bad), "mcpServers", "tool"); err == nil && bad != "{}" {
			t.Errorf("RemoveJSON(%q) took it", bad)
		}
	}
	for _, bad := range []string{"[a\n", "x = \n", "[mcp_servers.tool]\ncommand = 1\n[mcp_servers.tool]\n"} {
		if _, err := SetTOML([]byte(bad), server, "mcp_servers", "tool"); err == nil {
			t.Errorf("SetTOML(%q) took it", bad)
		}
		if _, _, err := RemoveTOML([]byte(bad), "mcp_servers", "tool"); err == nil {
			t.Errorf("RemoveTOML(%q) took it", bad)
		}
	}
}

var server = Table{
	Keys:   []KV{{Key: "command", String: "/bin/tool"}, {Key: "args", List: []string{"serve"}}},
	Tables: map[string][]KV{"env": {{Key: "TOOL_HOME", String: "/srv/\"tool\""}}},
}

const table = "[mcp_servers.tool]\ncommand = \"/bin/tool\"\nargs = [\"serve\"]\n\n[mcp_servers.tool.env]\nTOOL_HOME = \"/srv/\\\"tool\\\"\"\n"

// TestTOML writes Codex's table for one server, with its environment as a
// sub-table as Codex writes it, keeping the rest, and removes it again.
func TestTOML(t *testing.T) {
	tests := []struct{ name, doc, set string }{
		{"no file", "", table},
		{"other settings", "model = \"o3\"\n", "model = \"o3\"\n\n" + table},
		{"no newline at the end", "model = \"o3\"", "model = \"o3\"\n\n" + table},
		{"another server", "[mcp_servers.other]\ncommand = \"x\"\n", "[mcp_servers.other]\ncommand = \"x\"\n\n" + table},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetTOML([]byte(tt.doc), server, "mcp_servers", "tool")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.set, string(got)); diff != "" {
				t.Errorf("SetTOML (-want +got):\n%s", diff)
			}
			if again, _ := SetTOML(got, server, "mcp_servers", "tool"); string(again) != string(got) {
				t.Errorf("SetTOML again changed it:\n%s", again)
			}
			m, ok, err := GetTOML(got, "mcp_servers", "tool")
			if env, _ := m["env"].(map[string]any); !ok || err != nil || m["command"] != "/bin/tool" || env["TOOL_HOME"] != `/srv/"tool"` {
				t.Errorf("GetTOML = %v, %v, %v", m, ok, err)
			}
			back, found, err := RemoveTOML(got, "mcp_servers", "tool")
			want := tt.doc
			if tt.name == "no newline at the end" {
				want += "\n" // the newline SetTOML ended the last line with stays
			}
			if err != nil || !found || string(back) != want {
				t.Errorf("RemoveTOML = %q, %v, %v; want %q", back, found, err, want)
			}
		})
	}
}

// TestTOMLBetween: our table between others is replaced in place, its
// sub-table with it, and removed without the others' lines.
func TestTOMLBetween(t *testing.T) {
	doc := "[a]\nx = 1\n\n[mcp_servers.tool]\ncommand = \"/old\"\n\n[mcp_servers.tool.env]\nOLD = \"1\"\n\n[b]\ny = 2\n"
	got, err := SetTOML([]byte(doc), server, "mcp_servers", "tool")
	if want := "[a]\nx = 1\n\n" + table + "\n[b]\ny = 2\n"; err != nil || string(got) != want {
		t.Errorf("SetTOML = %q, %v; want %q", got, err, want)
	}
	back, _, err := RemoveTOML(got, "mcp_servers", "tool")
	if want := "[a]\nx = 1\n\n[b]\ny = 2\n"; err != nil || string(back) != want {
		t.Errorf("RemoveTOML = %q, %v; want %q", back, err, want)
	}
}

// TestDiffApplies holds Diff to patch(1): the diff of each edit, applied to
// the file before it, gives the file after it.
func TestDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("no patch(1) on PATH")
	}
	edits := map[string][2]string{}
	for _, doc := range []string{"", "{\"theme\":  \"dark\"}\n", "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n", "{}", "{\"a\": 1,\n\"b\": 2,\n\"c\": 3,\n\"d\": 4,\n\"e\": 5,\n\"f\": 6,\n\"g\": 7}\n"} {
		set, err := SetJSON([]byte(doc), "mcpServers", "tool", entry)
		if err != nil {
			t.Fatal(err)
		}
		edits["set "+doc] = [2]string{doc, string(set)}
		edits["remove "+doc] = [2]string{string(set), doc}
	}
	for _, doc := range []string{"", "model = \"o3\"", "[a]\nx = 1\n\n[mcp_servers.tool]\ncommand = \"/old\"\n\n[b]\ny = 2\n"} {
		set, err := SetTOML([]byte(doc), server, "mcp_servers", "tool")
		if err != nil {
			t.Fatal(err)
		}
		edits["set "+doc] = [2]string{doc, string(set)}
	}
	for name, e := range edits {
		dir := t.TempDir()
		path := filepath.Join(dir, "config")
		if e[0] != "" {
			os.WriteFile(path, []byte(e[0]), 0o644)
		}
		cmd := exec.Command("patch", "-p0", "-s", "-E", "--no-backup-if-mismatch")
		cmd.Dir = dir
		cmd.Stdin = stringsReader(Diff("config", []byte(e[0]), []byte(e[1])))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%q: patch: %v\n%s\n%s", name, err, out, Diff("config", []byte(e[0]), []byte(e[1])))
			continue
		}
		got, _ := os.ReadFile(path)
		if string(got) != e[1] {
			t.Errorf("%q: patched\n%q, want\n%q", name, got, e[1])
		}
	}
	if d := Diff("config", []byte("x\n"), []byte("x\n")); d != "" {
		t.Errorf("Diff of no change = %q", d)
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
