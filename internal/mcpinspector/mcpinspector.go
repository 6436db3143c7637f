// Package mcpinspector finds the MCP Inspector's CLI, a third-party MCP
// client that end-to-end tests drive a server with, and runs it:
//
//	inspector := mcpinspector.CLI(t)
//	listed := mcpinspector.Run(t, inspector, mcpinspector.Call{Server: []string{bin, "serve"}, Args: []string{"--method", "tools/list"}})
package mcpinspector

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Version is the newest MCP Inspector whose CLI runs on Node 20, the Node
// this project's machines have: later versions need Node 22. .ci/run
// installs the same.
const Version = "0.15.0"

// CLI returns the path of mcp-inspector: $DUET_MCP_INSPECTOR when set (.ci/run
// sets it), else one installed with npm into the user's cache, installing it
// there the first time. It skips the test only when there is no node or npm.
func CLI(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("DUET_MCP_INSPECTOR"); p != "" {
		return p
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the MCP Inspector cannot run")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the MCP Inspector cannot be installed")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "duet", "mcp-inspector-"+Version)
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	// Test binaries of several packages may get here at once: each installs
	// into a directory of its own and moves it into place, and a loser of
	// that race uses the winner's.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".mcp-inspector-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Logf("installing @modelcontextprotocol/inspector@%s into %s", Version, dir)
	//duetvet:allow rawexec -- a test tool's installer
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", tmp, "@modelcontextprotocol/inspector@"+Version)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(bin); statErr != nil {
			t.Fatalf("install the MCP Inspector: %v", err)
		}
	}
	return bin
}

// Call is one run of the inspector's CLI.
type Call struct {
	Server    []string // the server's command line
	ServerEnv []string // KEY=value given to the server (-e): it gets only these and a few of the inspector's choosing
	Env       []string // the inspector's own environment
	Dir       string   // the inspector's working directory
	Args      []string // what to do: --method tools/list ...
}

// Run runs the inspector at cli as c says and returns the JSON it printed,
// failing the test when it fails or prints none.
func Run(t testing.TB, cli string, c Call) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--cli"}
	for _, kv := range c.ServerEnv {
		args = append(args, "-e", kv)
	}
	args = append(append(args, c.Server...), c.Args...)
	//duetvet:allow rawexec -- a test tool
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("mcp-inspector %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("mcp-inspector printed no JSON: %v\n%s", err, out)
	}
	return v
}
