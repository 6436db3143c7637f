//go:build linux

package e2e

// `meridian serve` over stdio, started as an MCP client starts a server: by
// the official go-sdk client's command transport, and by the MCP Inspector's
// CLI. Each tool call runs the binary itself, which starts run supervisors
// (meridian again) and fake harnesses: the tests count them.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/internal/mcpinspector"
	"github.com/duet-cli/duet/internal/mcptest"
)

// mcpTools are the spec's MCP tools ("MCP Surface"), sorted.
var mcpTools = []string{
	"doctor", "models_list", "models_show",
	"run_continue", "run_list", "run_show", "run_spawn", "run_stats", "run_wait",
	"skills_list", "skills_show",
}

func TestMCP(t *testing.T) {
	sb := newSandbox(t)
	exe := ownBinary(t)
	ctx := context.Background()
	cs := sb.serve(t, exe, sb.env) // no MERIDIAN_SPACE_ID: run_spawn creates s1

	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff(mcpTools, names); diff != "" {
		t.Errorf("tools/list names (-spec +served):\n%s", diff)
	}
	var described struct {
		Tools any `json:"tools"`
	}
	sb.ok(t, sb.env, &described, "describe", "--mcp")
	if diff := cmp.Diff(described.Tools, decoded(t, listed.Tools)); diff != "" {
		t.Errorf("tools/list differs from describe --mcp (-describe +tools/list):\n%s", diff)
	}

	spawned := callOK(t, cs, "run_spawn", map[string]any{"prompt": "Say hello over MCP\nThen stop.", "model": "sonnet", "wait": false})
	if spawned["id"] != "r1" || spawned["space"] != "s1" || spawned["harness"] != "claude" {
		t.Errorf("run_spawn answered %v, want run r1 of space s1 on claude", spawned)
	}
	// stderr is invisible over MCP: the auto-create warning is in the answer.
	if w, _ := spawned["warning"].(string); !strings.HasPrefix(w, "WARNING [SPACE_AUTO_CREATED]: ") || !strings.Contains(w, "MERIDIAN_SPACE_ID=s1") {
		t.Errorf("run_spawn warning %q, want WARNING [SPACE_AUTO_CREATED] naming MERIDIAN_SPACE_ID=s1", w)
	}

	waited := callOK(t, cs, "run_wait", map[string]any{"run-id": []any{"r1"}, "space": "s1"})
	if waited["succeeded"] != 1.0 || waited["any_failed"] != false {
		t.Fatalf("run_wait answered %v, want r1 succeeded", waited)
	}

	shown := callOK(t, cs, "run_show", map[string]any{"run-id": "r1", "space": "s1"})
	if r, _ := shown["report"].(string); strings.TrimSpace(r) != "fake claude report: Say hello over MCP" {
		t.Errorf("run_show report %q, want the fake's report of the prompt's first line", r)
	}
	if diff := cmp.Diff(cliData(t, sb, sb.env, "run", "show", "r1", "--space", "s1"), any(shown)); diff != "" {
		t.Errorf("run_show differs from `run show` (-cli +mcp):\n%s", diff)
	}
	listed1 := callOK(t, cs, "run_list", map[string]any{"space": "s1"})
	want := map[string]any{"items": cliData(t, sb, sb.env, "run", "list", "--space", "s1")}
	if diff := cmp.Diff(any(want), any(listed1)); diff != "" {
		t.Errorf("run_list differs from `run list` (-cli +mcp):\n%s", diff)
	}
	if items, _ := listed1["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != "r1" {
		t.Errorf("run_list items %v, want r1", listed1["items"])
	}

	// A failure is isError with the code and exit code the CLI fails with,
	// whether the server refused the input or the command failed.
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		cli  []string
		code string
		exit int
	}{
		{"unknown run", "run_show", map[string]any{"run-id": "r9", "space": "s1"}, []string{"run", "show", "r9", "--space", "s1"}, "RUN_NOT_FOUND", 5},
		{"bad enum", "run_list", map[string]any{"space": "s1", "status": "done"}, []string{"run", "list", "--space", "s1", "--status", "done"}, "INVALID_ENUM_VALUE", 2},
		{"bad run id", "run_show", map[string]any{"run-id": "x1", "space": "s1"}, []string{"run", "show", "x1", "--space", "s1"}, "PATTERN_MISMATCH", 2},
		{"no space", "run_list", map[string]any{}, []string{"run", "list"}, "SPACE_REQUIRED", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cliErr := sb.fails(t, sb.env, tc.code, tc.exit, tc.cli...)
			res := call(t, cs, tc.tool, tc.args)
			var got struct {
				Code     string `json:"code"`
				ExitCode int    `json:"exit_code"`
				Field    string `json:"field"`
			}
			if err := json.Unmarshal([]byte(textOf(res)), &got); err != nil || !res.IsError {
				t.Fatalf("%s %v: isError %v, text %s", tc.tool, tc.args, res.IsError, textOf(res))
			}
			type failure struct {
				Code, Field string
				Exit        int
			}
			if diff := cmp.Diff(failure{cliErr.Code, cliErr.Field, tc.exit}, failure{got.Code, got.Field, got.ExitCode}); diff != "" {
				t.Errorf("%s %v (-cli +mcp):\n%s", tc.tool, tc.args, diff)
			}
		})
	}

	// What a call costs: the server starts meridian once per call.
	var rtts []time.Duration
	for range 21 {
		start := time.Now()
		callOK(t, cs, "run_show", map[string]any{"run-id": "r1", "space": "s1"})
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	t.Logf("tools/call run_show round trip over %d calls: median %v, max %v", len(rtts), rtts[len(rtts)/2], rtts[len(rtts)-1])

	// A server given MERIDIAN_SPACE_ID works in that space, and an answer
	// without a warning has no warning member at all.
	inSpace := sb.serve(t, exe, sb.inSpace("s1"))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"run_list", map[string]any{}},
		{"run_spawn", map[string]any{"prompt": "Again", "model": "sonnet", "wait": true}},
	} {
		got := callOK(t, inSpace, c.tool, c.args)
		if w, ok := got["warning"]; ok {
			t.Errorf("%s in space s1 has a warning member %q", c.tool, w)
		}
		if c.tool == "run_spawn" && (got["id"] != "r2" || got["space"] != "s1" || got["status"] != "succeeded") {
			t.Errorf("run_spawn in space s1 answered %v, want r2 of s1, succeeded", got)
		}
	}

	cs.Close()
	inSpace.Close()
	noneLeft(t, exe, harnesstest.Records(t, sb.record))
}

// TestMCPInspector drives `meridian serve` with a third-party client, the MCP
// Inspector's CLI, over stdio and over streamable HTTP (serve --http): it
// lists the tools and calls one.
func TestMCPInspector(t *testing.T) {
	inspector := mcpinspector.CLI(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			sb := newSandbox(t)
			exe := ownBinary(t)
			call := mcpinspector.Call{
				Server: []string{exe, "serve"},
				// The inspector gives a server it starts only the variables
				// it is told (and a few of its own choosing); PATH holds the
				// fake harnesses.
				ServerEnv: []string{"HOME=" + sb.home, "PATH=" + getenv(sb.env, "PATH")},
				Env:       sb.with("HOME=" + filepath.Join(t.TempDir(), "inspector-home")),
				Dir:       sb.dir,
			}
			if transport == "http" {
				call.Server, call.ServerEnv = []string{sb.serveHTTP(t, exe)}, nil
			}
			inspect := func(args ...string) map[string]any {
				t.Helper()
				c := call
				c.Args = args
				return mcpinspector.Run(t, inspector, c)
			}

			listed := inspect("--method", "tools/list")
			var names []string
			for _, tool := range listed["tools"].([]any) {
				names = append(names, tool.(map[string]any)["name"].(string))
			}
			slices.Sort(names)
			if diff := cmp.Diff(mcpTools, names); diff != "" {
				t.Errorf("inspector tools/list (-spec +served):\n%s", diff)
			}

			called := inspect("--method", "tools/call", "--tool-name", "models_show", "--tool-arg", "model=sonnet")
			want := cliData(t, sb, sb.env, "models", "show", "sonnet")
			if diff := cmp.Diff(want, called["structuredContent"]); diff != "" || called["isError"] == true {
				t.Errorf("inspector tools/call models_show (-cli +inspector):\n%s\n%v", diff, called)
			}
			if transport == "stdio" { // the HTTP server runs on until the test ends
				noneLeft(t, exe, nil)
			}
		})
	}
}

// serveHTTP starts `exe serve --http 127.0.0.1:0` in the sandbox's project,
// as a person starts a server for clients to reach, and returns the URL it
// serves at. It is interrupted when the test ends, and must exit as an
// interrupted command does (130).
func (sb *sandbox) serveHTTP(t *testing.T, exe string) string {
	t.Helper()
	cmd := exec.Command(exe, "serve", "--http", "127.0.0.1:0")
	cmd.Env, cmd.Dir = sb.env, sb.dir
	url, _ := mcptest.ServeHTTP(t, cmd, syscall.SIGINT, 130)
	return url
}

// ownBinary copies meridian into the test's directory, so that the
// processes running it — servers, the calls they run, the run supervisors
// those start — are this test's alone and can be counted. Any left when the
// test ends are killed.
func ownBinary(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "meridian")
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range processesOf(t, exe) {
			syscall.Kill(pid, syscall.SIGKILL) // a supervisor's harness dies with it (Pdeathsig)
		}
	})
	return exe
}

// serve starts `exe serve` in the sandbox's project with env, as an MCP
// client starts a server, and connects to it.
func (sb *sandbox) serve(t *testing.T, exe string, env []string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(exe, "serve")
	cmd.Env, cmd.Dir = env, sb.dir
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "meridian-e2e", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to meridian serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// callOK calls a tool that must succeed and returns its structured content,
// which its text content must repeat.
func callOK(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s %v failed: %s", tool, args, textOf(res))
	}
	got, _ := decoded(t, res.StructuredContent).(map[string]any)
	var text any
	if err := json.Unmarshal([]byte(textOf(res)), &text); err != nil {
		t.Fatalf("%s: text content is not JSON: %v", tool, err)
	}
	if diff := cmp.Diff(any(got), text); diff != "" {
		t.Errorf("%s: text content differs from structured content:\n%s", tool, diff)
	}
	return got
}

// cliData is the data of the CLI's answer to args.
func cliData(t *testing.T, sb *sandbox, env []string, args ...string) any {
	t.Helper()
	var v any
	sb.ok(t, env, &v, args...)
	return v
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// decoded is v as encoding/json reads it back into an any.
func decoded(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func getenv(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// noneLeft waits for every process of exe to end — servers whose client has
// gone, run supervisors — and checks that no harness recorded in recs lives.
func noneLeft(t *testing.T, exe string, recs []harnesstest.Record) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(processesOf(t, exe)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := processesOf(t, exe); len(pids) > 0 {
		t.Errorf("meridian processes %v left after the clients closed", pids)
	}
	for _, r := range recs {
		if alive(r.PID) {
			t.Errorf("the %s harness (pid %d) is still running", r.Harness, r.PID)
		}
	}
}

// processesOf lists the live processes running exe.
func processesOf(t *testing.T, exe string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if path, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && path == exe && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestLongPromptOffTheCommandLine: a prompt of 360 KB reaches the harness
// whole on its stdin, through an MCP tool call and through the web UI,
// and is on no process's command line — where every local user reads it
// in ps, and where one argument cannot pass 128 KiB (issue 34: HTTP 500 in
// the UI, RUN_FAILED over MCP).
func TestLongPromptOffTheCommandLine(t *testing.T) {
	sb := newSandbox(t)
	prompt := strings.Repeat("review every line of this module with care. ", 8000)
	cs := sb.serve(t, ownBinary(t), sb.env)
	callOK(t, cs, "run_spawn", map[string]any{"prompt": "over MCP: " + prompt, "wait": true})

	url := sb.ui(t)
	base, token, _ := strings.Cut(url, "?t=")
	body, _ := json.Marshal(map[string]string{"prompt": "from the UI: " + prompt, "space": "s1"})
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(base, "/")+"/api/runs", bytes.NewReader(body))
	req.Header.Set("X-Meridian-Token", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/runs with a long prompt: %d %.300s", res.StatusCode, answer)
	}
	sb.ok(t, sb.inSpace("s1"), nil, "run", "wait")

	got := map[string]bool{}
	for _, rec := range harnesstest.Records(t, sb.record) {
		for _, via := range []string{"over MCP: ", "from the UI: "} {
			if strings.TrimSpace(rec.Stdin) == strings.TrimSpace(via+prompt) {
				got[via] = true
			}
		}
		for _, arg := range rec.Argv {
			if strings.Contains(arg, "review every line") {
				t.Errorf("the prompt is on the harness's command line: %.80s…", arg)
			}
		}
	}
	if !got["over MCP: "] || !got["from the UI: "] {
		t.Errorf("the harness got the whole prompt on stdin: %v; want both calls'", got)
	}
}
