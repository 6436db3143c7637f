package mcp

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/duet-cli/duet/adapters/mcp/internal/configedit"
)

// The MCP clients whose configuration the clients command edits, by the
// name a person types.
const (
	claudeCode    = "claude"
	codex         = "codex"
	geminiCLI     = "gemini"
	openCode      = "opencode"
	cursor        = "cursor"
	vsCode        = "vscode"
	claudeDesktop = "claude-desktop"
)

// Scopes of a registration: the project's configuration, in the working
// directory, or the user's.
const (
	projectScope = "project"
	userScope    = "user"
)

// server is the registration of a server: its name in the client's
// configuration, the command line a client starts it with, and the
// environment it is given.
type server struct {
	name string
	argv []string          // an absolute executable, then its arguments
	env  map[string]string // never nil
}

// client is where one MCP client keeps its servers, and how it writes one.
type client struct {
	name, title string
	// project and user return the configuration file of each scope; an
	// empty path means the client has no such scope, or it cannot be
	// found (no home directory).
	project func(cwd string) string
	user    func(env func(string) string) string
	// parent is the key of the JSON object of servers; a client with a
	// TOML configuration (Codex) has table instead, its path's first key.
	parent string
	table  string
	entry  func(s server) any
}

// clients returns the clients in the order they are listed.
func clients() []client {
	stdio := func(typ string) func(s server) any {
		return func(s server) any {
			e := map[string]any{"command": s.argv[0], "args": s.argv[1:]}
			if typ != "" {
				e["type"] = typ
			}
			if len(s.env) > 0 {
				e["env"] = s.env
			}
			return e
		}
	}
	in := func(dirs ...string) func(string) string {
		return func(cwd string) string { return filepath.Join(append([]string{cwd}, dirs...)...) }
	}
	home := func(dirs ...string) func(func(string) string) string {
		return func(env func(string) string) string {
			if env("HOME") == "" {
				return ""
			}
			return filepath.Join(append([]string{env("HOME")}, dirs...)...)
		}
	}
	return []client{
		{name: claudeCode, title: "Claude Code", parent: "mcpServers", project: in(".mcp.json"), user: home(".claude.json"),
			entry: func(s server) any { // as `claude mcp add` writes it: env always
				return map[string]any{"type": "stdio", "command": s.argv[0], "args": s.argv[1:], "env": s.env}
			}},
		{name: codex, title: "Codex", table: "mcp_servers", user: func(env func(string) string) string {
			if dir := env("CODEX_HOME"); dir != "" {
				return filepath.Join(dir, "config.toml")
			}
			return home(".codex", "config.toml")(env)
		}},
		{name: geminiCLI, title: "Gemini CLI", parent: "mcpServers", project: in(".gemini", "settings.json"), user: home(".gemini", "settings.json"), entry: stdio("")},
		{name: openCode, title: "OpenCode", parent: "mcp", project: in("opencode.json"), user: func(env func(string) string) string {
			if dir := env("XDG_CONFIG_HOME"); dir != "" {
				return filepath.Join(dir, "opencode", "opencode.json")
			}
			return home(".config", "opencode", "opencode.json")(env)
		}, entry: func(s server) any {
			e := map[string]any{"type": "local", "command": s.argv, "enabled": true}
			if len(s.env) > 0 {
				e["environment"] = s.env
			}
			return e
		}},
		{name: cursor, title: "Cursor", parent: "mcpServers", project: in(".cursor", "mcp.json"), user: home(".cursor", "mcp.json"), entry: stdio("")},
		{name: vsCode, title: "VS Code", parent: "servers", project: in(".vscode", "mcp.json"), user: func(env func(string) string) string {
			return userConfigDir(env, "Code", "User", "mcp.json")
		}, entry: stdio("stdio")},
		{name: claudeDesktop, title: "Claude Desktop", parent: "mcpServers", user: func(env func(string) string) string {
			return userConfigDir(env, "Claude", "claude_desktop_config.json")
		}, entry: stdio("")},
	}
}

// userConfigDir is where a desktop application keeps its user
// configuration: ~/Library/Application Support on macOS, %APPDATA% on
// Windows, $XDG_CONFIG_HOME or ~/.config elsewhere.
func userConfigDir(env func(string) string, dirs ...string) string {
	var base string
	switch {
	case runtime.GOOS == "darwin" && env("HOME") != "":
		base = filepath.Join(env("HOME"), "Library", "Application Support")
	case runtime.GOOS == "windows":
		base = env("APPDATA")
	case env("XDG_CONFIG_HOME") != "":
		base = env("XDG_CONFIG_HOME")
	case env("HOME") != "":
		base = filepath.Join(env("HOME"), ".config")
	}
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base}, dirs...)...)
}

// path is the client's configuration file in scope, or "" when it has no
// such scope or it cannot be found.
func (c client) path(scope, cwd string, env func(string) string) string {
	if scope == projectScope && c.project != nil {
		return c.project(cwd)
	}
	if scope == userScope && c.user != nil {
		return c.user(env)
	}
	return ""
}

// defaultScope is the project's where the client has one, else the user's.
func (c client) defaultScope() string {
	if c.project != nil {
		return projectScope
	}
	return userScope
}

// set returns doc with s registered.
func (c client) set(doc []byte, s server) ([]byte, error) {
	if c.table != "" {
		t := configedit.Table{Keys: []configedit.KV{{Key: "command", String: s.argv[0]}, {Key: "args", List: s.argv[1:]}}}
		if len(s.env) > 0 {
			t.Tables = map[string][]configedit.KV{"env": kvs(s.env)}
		}
		return configedit.SetTOML(doc, t, c.table, s.name)
	}
	return configedit.SetJSON(doc, c.parent, s.name, c.entry(s))
}

// remove returns doc without the server named name, and whether it had it.
func (c client) remove(doc []byte, name string) ([]byte, bool, error) {
	if c.table != "" {
		return configedit.RemoveTOML(doc, c.table, name)
	}
	return configedit.RemoveJSON(doc, c.parent, name)
}

// command returns the command line of the server named name in doc, and
// whether doc registers it.
func (c client) command(doc []byte, name string) ([]string, bool, error) {
	if c.table != "" {
		t, ok, err := configedit.GetTOML(doc, c.table, name)
		if !ok || err != nil {
			return nil, ok, err
		}
		argv := []string{str(t["command"])}
		if args, ok := t["args"].([]any); ok {
			for _, a := range args {
				argv = append(argv, str(a))
			}
		}
		return argv, true, nil
	}
	raw, ok, err := configedit.GetJSON(doc, c.parent, name)
	if !ok || err != nil {
		return nil, ok, err
	}
	var e struct {
		Command any      `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, true, err
	}
	switch cmd := e.Command.(type) {
	case string:
		return append([]string{cmd}, e.Args...), true, nil
	case []any: // openCode's: the command line as one list
		var argv []string
		for _, a := range cmd {
			argv = append(argv, str(a))
		}
		return argv, true, nil
	}
	return nil, true, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func kvs(m map[string]string) []configedit.KV {
	var out []configedit.KV
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, configedit.KV{Key: k, String: m[k]})
	}
	return out
}
