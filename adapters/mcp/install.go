package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/schema"
)

// The coding agents whose configuration [InstallCommand] registers a server
// in.
const (
	ClaudeCode = "claude"
	Codex      = "codex"
	GeminiCLI  = "gemini"
	OpenCode   = "opencode"
)

// InstallCommand returns the option that adds the built-in command name to
// an app: `<tool> <name> claude|codex|gemini|opencode` registers the app's
// MCP server — this executable, by its absolute path, with the serve command
// serve (see [Command]) — in that coding agent's configuration: the
// project's for Claude Code (.mcp.json), Gemini CLI (.gemini/settings.json)
// and OpenCode (opencode.json), the user's for Codex (~/.codex/config.toml,
// or $CODEX_HOME's). Only the app's own entry is written: the rest of the
// file is kept byte for byte, a file that does not parse is reported and
// left alone, and registering again changes nothing. It is a person's
// command: agents do not see it, and it is never a tool.
func InstallCommand(name, serve string) adapters.Option {
	return adapters.WithExtension(adapters.Extension{
		Command: schema.Command{
			Name:  name,
			Usage: "Register this tool's MCP server with a coding agent: claude, codex, gemini or opencode",
			Args:  []schema.Arg{{Name: "client", Usage: "the coding agent", Required: true, Type: schema.String, Enum: []string{ClaudeCode, Codex, GeminiCLI, OpenCode}}},
			Meta: schema.Meta{
				Danger:   schema.Mutating,
				Audience: schema.HumanOnly,
				Tool:     schema.ToolNever,
				Examples: []schema.Example{{Description: "serve this tool's commands to Claude Code in this project", Command: name + " claude"}},
			},
		},
		Run: func(ctx context.Context, h *adapters.Host) int { return install(h, serve) },
	})
}

// install registers the server with the client h's argument names.
func install(h *adapters.Host, serve string) int {
	root := h.App.Tree().Name
	fail := func(e *envelope.Error) int {
		fmt.Fprintf(h.Stderr, "%s: %s\n", root, envelope.Human(e))
		return int(e.Exit)
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fail(envelope.Errorf(exitcode.GeneralError, "NO_EXECUTABLE", "cannot find this program to register it: %v", err))
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(envelope.Errorf(exitcode.GeneralError, "NO_WORKING_DIRECTORY", "%v", err))
	}
	getenv := func(k string) string { v, _ := h.LookupEnv(k); return v }
	client := h.Args()[0]
	path, edit := registration(client, cwd, getenv)
	if path == "" {
		return fail(envelope.Errorf(exitcode.Precondition, "NO_HOME", "HOME is not set: there is no user configuration of %s to write", client))
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(envelope.Errorf(exitcode.GeneralError, "CONFIG_UNREADABLE", "%s: %v", path, err))
	}
	updated, err := edit(old, root, exe, serve)
	if err != nil {
		return fail(envelope.Errorf(exitcode.Precondition, "CONFIG_INVALID", "%s does not parse, and is left as it is: %v", path, err).
			WithSuggestion("fix the file, then register again"))
	}
	if bytes.Equal(updated, old) {
		fmt.Fprintf(h.Stdout, "%s is registered with %s in %s already.\n", root, client, path)
		return int(exitcode.Success)
	}
	if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		err = atomicfile.Write(path, updated, 0o644)
	}
	if err != nil {
		return fail(envelope.Errorf(exitcode.GeneralError, "CONFIG_UNWRITABLE", "%s: %v", path, err))
	}
	fmt.Fprintf(h.Stdout, "Registered %s (%s %s) with %s in %s.\n", root, exe, serve, client, path)
	return int(exitcode.Success)
}

// registration is where client keeps its MCP servers, and the edit that
// puts one there.
func registration(client, cwd string, getenv func(string) string) (string, func(old []byte, name, exe, serve string) ([]byte, error)) {
	switch client {
	case ClaudeCode:
		return filepath.Join(cwd, ".mcp.json"), func(old []byte, name, exe, serve string) ([]byte, error) {
			return setMember(old, "mcpServers", name, map[string]any{"type": "stdio", "command": exe, "args": []string{serve}, "env": map[string]string{}})
		}
	case GeminiCLI:
		return filepath.Join(cwd, ".gemini", "settings.json"), func(old []byte, name, exe, serve string) ([]byte, error) {
			return setMember(old, "mcpServers", name, map[string]any{"command": exe, "args": []string{serve}})
		}
	case OpenCode:
		return filepath.Join(cwd, "opencode.json"), func(old []byte, name, exe, serve string) ([]byte, error) {
			return setMember(old, "mcp", name, map[string]any{"type": "local", "command": []string{exe, serve}, "enabled": true})
		}
	case Codex:
		dir := getenv("CODEX_HOME")
		if dir == "" {
			if getenv("HOME") == "" {
				return "", nil
			}
			dir = filepath.Join(getenv("HOME"), ".codex")
		}
		return filepath.Join(dir, "config.toml"), setTable
	}
	return "", nil
}

// setMember sets the member name of the object under key parent of the JSON
// object doc to value, changing no other byte of doc; an empty doc becomes
// an object holding just that.
func setMember(doc []byte, parent, name string, value any) ([]byte, error) {
	raw, err := json.MarshalIndent(value, "    ", "  ")
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		out, _ := json.MarshalIndent(map[string]any{parent: map[string]json.RawMessage{name: raw}}, "", "  ")
		return append(out, '\n'), nil
	}
	top, err := members(doc, 0)
	if err != nil {
		return nil, err
	}
	p, ok := top.find(parent)
	if !ok {
		entry := fmt.Sprintf("%s: {\n    %s: %s\n  }", strconv.Quote(parent), strconv.Quote(name), raw)
		return top.insert(doc, entry, "  "), nil
	}
	if doc[p.start] != '{' {
		return nil, fmt.Errorf("%q is not an object", parent)
	}
	inner, err := members(doc[:p.end], p.start)
	if err != nil {
		return nil, err
	}
	if m, ok := inner.find(name); ok {
		var was, now any
		json.Unmarshal(doc[m.start:m.end], &was)
		json.Unmarshal(raw, &now)
		if fmt.Sprint(was) == fmt.Sprint(now) {
			return doc, nil
		}
		return splice(doc, m.start, m.end, string(raw)), nil
	}
	return inner.insert(doc, strconv.Quote(name)+": "+string(raw), "    "), nil
}

// object is the members of one JSON object in a document: each value's
// span, and where the object closes.
type object struct {
	values map[string]span
	count  int
	close  int // the offset of its closing brace
	last   int // the end of its last value, or just past its opening brace
}

type span struct{ start, end int }

func (o object) find(key string) (span, bool) { s, ok := o.values[key]; return s, ok }

// insert adds a member, written as entry, after the object's last, on a
// line of its own at indent.
func (o object) insert(doc []byte, entry, indent string) []byte {
	sep := "\n" + indent
	if o.count > 0 {
		sep = "," + sep
	}
	return splice(doc, o.last, o.last, sep+entry)
}

// members reads the object that starts at offset from in doc.
func members(doc []byte, from int) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(doc[from:]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return object{}, fmt.Errorf("not a JSON object (%v)", err)
	}
	o := object{values: map[string]span{}, last: from + int(dec.InputOffset())}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return object{}, err
		}
		end := from + int(dec.InputOffset())
		o.values[key] = span{end - len(v), end}
		o.count++
		o.last = end
	}
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	o.close = from + int(dec.InputOffset()) - 1
	if _, err := dec.Token(); from == 0 && !errors.Is(err, io.EOF) {
		return object{}, errors.New("more than one JSON value")
	}
	return o, nil
}

func splice(doc []byte, start, end int, with string) []byte {
	out := make([]byte, 0, len(doc)+len(with))
	out = append(append(append(out, doc[:start]...), with...), doc[end:]...)
	return out
}

// setTable sets Codex's [mcp_servers.<name>] table in a TOML document: the
// table's lines are replaced, or appended at the end, and every other byte is
// kept.
func setTable(doc []byte, name, exe, serve string) ([]byte, error) {
	header := "[mcp_servers." + name + "]"
	table := header + "\ncommand = " + strconv.Quote(exe) + "\nargs = [" + strconv.Quote(serve) + "]\n"
	lines := strings.SplitAfter(string(doc), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		if strings.TrimSpace(l) == header {
			start = i
			break
		}
	}
	for i := start + 1; start >= 0 && i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "[") {
			end = i
			break
		}
	}
	if start < 0 {
		prefix := string(doc)
		if prefix != "" && !strings.HasSuffix(prefix, "\n") {
			prefix += "\n"
		}
		if prefix != "" {
			prefix += "\n"
		}
		return []byte(prefix + table), nil
	}
	old := strings.Join(lines[start:end], "")
	if strings.TrimSpace(old) == strings.TrimSpace(table) {
		return doc, nil
	}
	if end < len(lines) {
		table += "\n"
	}
	return []byte(strings.Join(lines[:start], "") + table + strings.Join(lines[end:], "")), nil
}
