package e2e

// The MCP server of the built binaries: `todo mcp`, driven over stdio by the
// SDK's client and by the MCP Inspector's CLI.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/internal/mcpinspector"
)

// mcpClient starts `bin mcp` in the sandbox and connects to it.
func mcpClient(t testing.TB, sb *sandbox, bin string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = sb.env
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to %s mcp: %v", bin, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestE2EMCP(t *testing.T) { onEach(t, testMCP) }

func testMCP(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "write the docs", false), item("t2", "ship it", true))
	cs := mcpClient(t, sb, bin)
	ctx := context.Background()

	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	described := expectEnvelope(t, "describe --mcp", sb.run(t, "describe", "--mcp"), 0)["data"].(map[string]any)
	if diff := cmp.Diff(described["tools"], decoded(t, listed.Tools)); diff != "" {
		t.Errorf("tools/list differs from describe --mcp (-describe +tools/list):\n%s", diff)
	}
	manifest := expectEnvelope(t, "describe", sb.run(t, "describe"), 0)["data"].(map[string]any)
	if described["etag"] != manifest["etag"] {
		t.Errorf("describe --mcp etag %v, describe etag %v", described["etag"], manifest["etag"])
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
		if tool.Name == "purge" {
			a := tool.Annotations
			if a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint {
				t.Errorf("purge annotations: %+v, want destructive, not read-only, not idempotent", a)
			}
		}
	}
	if diff := cmp.Diff([]string{"add", "archive", "done", "import", "list", "purge", "remove", "show", "tag", "watch"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	// Each call answers with the data the CLI answers with.
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	cliData := func(args ...string) any {
		return expectEnvelope(t, strings.Join(args, " "), sb.run(t, args...), 0)["data"]
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
		wrap string // the member a list is carried in
	}{
		{"list", nil, []string{"list"}, "items"},
		{"list", map[string]any{"status": "all"}, []string{"list", "--status", "all"}, "items"},
		{"show", map[string]any{"id": "t2"}, []string{"show", "t2"}, ""},
	} {
		res := call(c.tool, c.args)
		if res.IsError {
			t.Fatalf("%s %v: %s", c.tool, c.args, textOf(res))
		}
		got := decoded(t, res.StructuredContent)
		want := cliData(c.cli...)
		if c.wrap != "" {
			want = map[string]any{c.wrap: want}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %v: structured content differs from `todo %s` data (-cli +mcp):\n%s", c.tool, c.args, strings.Join(c.cli, " "), diff)
		}
		if diff := cmp.Diff(got, decodedText(t, res)); diff != "" {
			t.Errorf("%s: text content differs from structured content:\n%s", c.tool, diff)
		}
	}

	added := call("add", map[string]any{"title": "from a tool", "priority": "high", "tag": []any{"mcp", "e2e"}})
	if added.IsError {
		t.Fatalf("add: %s", textOf(added))
	}
	got := decoded(t, added.StructuredContent).(map[string]any)
	if diff := cmp.Diff(cliData("show", got["id"].(string)), got); diff != "" {
		t.Errorf("add answered other than show of what it added (-show +add):\n%s", diff)
	}
	if _, ok := got["warning"]; ok {
		t.Errorf("a call without warnings has a warning member: %v", got)
	}

	bad := call("add", map[string]any{"title": "x", "priority": "urgent"})
	errObj := decodedText(t, bad).(map[string]any)
	want := map[string]any{"code": "INVALID_ENUM_VALUE", "field": "priority", "exit_code": 2.0, "valid_values": []any{"low", "normal", "high"}}
	if diff := cmp.Diff(want, pickMap(errObj, want)); !bad.IsError || diff != "" {
		t.Errorf("a bad argument: isError %v (-want +got):\n%s", bad.IsError, diff)
	}
	if n := len(expectEnvelope(t, "list", sb.run(t, "list", "--status", "all"), 0)["data"].([]any)); n != 3 {
		t.Errorf("the store holds %d to-dos after a refused add, want 3", n)
	}

	missing := call("show", map[string]any{"id": "t99"})
	errObj = decodedText(t, missing).(map[string]any)
	want = map[string]any{"code": "TODO_NOT_FOUND", "exit_code": 5.0, "retryable": false}
	if diff := cmp.Diff(want, pickMap(errObj, want)); !missing.IsError || diff != "" {
		t.Errorf("show of a missing id: isError %v (-want +got):\n%s", missing.IsError, diff)
	}

	refused := call("purge", map[string]any{})
	if !refused.IsError || !strings.Contains(textOf(refused), "CONFIRMATION_REQUIRED") {
		t.Errorf("purge without yes: %s", textOf(refused))
	}
}

// TestE2EMCPLoad makes 100 sequential calls on one server and runs 8 clients
// at once, and counts the processes of the binary before and after: none may
// be left. It logs the median round trip of a tools/call.
func TestE2EMCPLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	t.Parallel()
	// A name of its own, so that only this test's processes run it (their
	// /proc/<pid>/exe names it). A hard link, not a copy: a copy is written
	// through a descriptor that a process another parallel test forks in
	// the meantime holds until it execs, and exec of a file open for
	// writing fails with ETXTBSY ("text file busy", golang.org/issue/22315).
	bin := filepath.Join(t.TempDir(), "todo-load")
	if err := os.Link(binaries[0].path, bin); err != nil {
		copyFile(t, binaries[0].path, bin) // another file system
	}
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "one", false), item("t2", "two", false))
	if n := processesOf(t, bin); n != 0 {
		t.Fatalf("%d processes of %s before the test", n, bin)
	}

	cs := mcpClient(t, sb, bin)
	if n := processesOf(t, bin); n == 0 {
		t.Fatalf("premise: no process of %s while its server runs, so none left would prove nothing", bin)
	}
	var rtts []time.Duration
	for i := range 100 {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "show", Arguments: map[string]any{"id": fmt.Sprintf("t%d", i%2+1)}})
		rtts = append(rtts, time.Since(start))
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %s", i, err, textOf(res))
		}
	}
	slices.Sort(rtts)
	t.Logf("tools/call round trip over 100 sequential calls: median %v, p90 %v, max %v", rtts[50], rtts[90], rtts[99])
	cs.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 8*10)
	for c := range 8 {
		wg.Go(func() {
			cs := mcpClient(t, sb, bin)
			defer cs.Close()
			for i := range 10 {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "list", Arguments: map[string]any{"limit": 1}})
				switch {
				case err != nil:
					errs <- fmt.Errorf("client %d call %d: %w", c, i, err)
				case res.IsError:
					errs <- fmt.Errorf("client %d call %d: %s", c, i, textOf(res))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Closing a client ends its server; their exit is not instant.
	deadline := time.Now().Add(20 * time.Second)
	for processesOf(t, bin) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := processesOf(t, bin); n != 0 {
		t.Errorf("%d processes of the binary left after every client closed", n)
	}
}

// TestE2EMCPInspector drives `todo mcp` with a third-party client, the MCP
// Inspector's CLI (see internal/mcpinspector: .ci/run installs it, else the
// test does with npm; it skips only when there is no node).
func TestE2EMCPInspector(t *testing.T) {
	inspector := mcpinspector.CLI(t)
	bin := binaries[0].path
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "write the docs", false))
	inspect := func(args ...string) map[string]any {
		t.Helper()
		// The inspector gives the server only the variables it is told.
		return mcpinspector.Run(t, inspector, mcpinspector.Call{
			Server:    []string{bin, "mcp"},
			ServerEnv: []string{"TODO_FILE=" + sb.file, "HOME=" + filepath.Join(sb.dir, "home")},
			Env:       append(slices.Clone(sb.env), "HOME="+filepath.Join(sb.dir, "inspector-home")),
			Args:      args,
		})
	}

	listed := inspect("--method", "tools/list")
	var names []string
	for _, tool := range listed["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if diff := cmp.Diff([]string{"add", "archive", "done", "import", "list", "purge", "remove", "show", "tag", "watch"}, names); diff != "" {
		t.Errorf("inspector tools/list (-want +got):\n%s", diff)
	}

	called := inspect("--method", "tools/call", "--tool-name", "show", "--tool-arg", "id=t1")
	want := expectEnvelope(t, "show", sb.run(t, "show", "t1"), 0)["data"]
	if diff := cmp.Diff(want, called["structuredContent"]); diff != "" || called["isError"] == true {
		t.Errorf("inspector tools/call show (-cli +inspector):\n%s\n%v", diff, called)
	}
}

// processesOf counts the live processes running bin.
func processesOf(t testing.TB, bin string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == bin {
			n++
		}
	}
	return n
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

func textOf(res *sdk.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func decoded(t testing.TB, v any) any {
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

func decodedText(t testing.TB, res *sdk.CallToolResult) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(textOf(res)), &out); err != nil {
		t.Fatalf("text content is not JSON: %v: %s", err, textOf(res))
	}
	return out
}

func pickMap(got, want map[string]any) map[string]any {
	out := map[string]any{}
	for k := range want {
		if v, ok := got[k]; ok {
			out[k] = v
		}
	}
	return out
}
