//go:build unix

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/internal/golden"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// connect serves the test app with runner on in-memory transports and
// returns a client session.
func connect(t testing.TB, runner mcp.Runner, opts ...mcp.Option) *sdk.ClientSession {
	t.Helper()
	return connectApp(t, wrap(t), runner, opts...)
}

// connectApp serves app with runner on in-memory transports and returns a
// client session.
func connectApp(t testing.TB, app adapters.Framework, runner mcp.Runner, opts ...mcp.Option) *sdk.ClientSession {
	t.Helper()
	return connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil), app, runner, opts...)
}

// connectWith is connect with a client of the test's making.
func connectWith(t testing.TB, client *sdk.Client, runner mcp.Runner) *sdk.ClientSession {
	t.Helper()
	return connectClient(t, client, wrap(t), runner)
}

func connectClient(t testing.TB, client *sdk.Client, app adapters.Framework, runner mcp.Runner, opts ...mcp.Option) *sdk.ClientSession {
	t.Helper()
	srv, err := mcp.NewServer(app, append([]mcp.Option{mcp.WithRunner(runner), mcp.WithVersion("1.2.3")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func runners(t *testing.T) map[string]mcp.Runner {
	return map[string]mcp.Runner{
		"in-process": mcp.InProcess(newApp, adapters.WithVersion("1.2.3")),
		"exec":       execRunner(t),
	}
}

// describeTools is `notes describe --mcp`, decoded.
func describeTools(t testing.TB) map[string]any {
	t.Helper()
	var env struct{ Data map[string]any }
	if err := json.Unmarshal(run(t, "describe", "--mcp"), &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

func TestToolsListIsDescribeMCP(t *testing.T) {
	golden.Assert(t, "describe-mcp.json", run(t, "describe", "--mcp", "--format", "text"))

	cs := connect(t, mcp.InProcess(newApp))
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, listed.Tools)
	want := describeTools(t)["tools"]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools/list differs from describe --mcp (-describe +tools/list):\n%s", diff)
	}

	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	// Not tools: describe, profile and serve (Duet's), chat (interactive),
	// setup (for people), internal (declared so), notes (a group).
	wantNames := []string{"add", "block", "echo", "hang", "list", "remove", "show", "stats_count", "work"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}

	var manifest struct{ Data struct{ Etag string } }
	if err := json.Unmarshal(run(t, "describe"), &manifest); err != nil {
		t.Fatal(err)
	}
	if etag := describeTools(t)["etag"]; etag != manifest.Data.Etag {
		t.Errorf("describe --mcp etag %v, describe etag %q", etag, manifest.Data.Etag)
	}
}

func TestToolInputIsTheSchemaLessControls(t *testing.T) {
	app := wrap(t)
	for _, path := range []string{"add", "list", "remove"} {
		c := app.Tree().Find(path)
		cli := c.InputSchema()["properties"]
		tool := c.ToolInputSchema()["properties"]
		var cliProps, toolProps map[string]any
		jsonInto(t, cli, &cliProps)
		jsonInto(t, tool, &toolProps)
		for name, p := range toolProps {
			if diff := cmp.Diff(cliProps[name], p); diff != "" {
				t.Errorf("%s: property %q differs from --schema's (-cli +tool):\n%s", path, name, diff)
			}
		}
		var dropped []string
		for name := range cliProps {
			if _, ok := toolProps[name]; !ok {
				dropped = append(dropped, name)
			}
		}
		slices.Sort(dropped)
		want := []string{"cwd", "debug", "fields", "format", "instance-id", "no-update-check", "output", "output-schema", "quiet", "schema", "show-config", "stable-output", "stream", "token-count", "token-limit", "token-offset", "tokenizer", "unmask", "validate-only", "verbose", "warnings-as-errors", "width"}
		if diff := cmp.Diff(want, dropped); diff != "" {
			t.Errorf("%s: properties a tool does not take (-want +got):\n%s", path, diff)
		}
	}
}

func TestCalls(t *testing.T) {
	for name, runner := range runners(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testCalls(t, runner)
		})
	}
}

func testCalls(t *testing.T, runner mcp.Runner) {
	cs := connect(t, runner)
	outputs := outputSchemas(t, cs)
	note := func(id, title string, tags any, count float64) map[string]any {
		return map[string]any{"id": id, "title": title, "tags": tags, "count": count}
	}
	tests := []struct {
		name string
		tool string
		args map[string]any
		want map[string]any // structured content, or the error object of an isError result
		fail bool
	}{
		{"a list is items", "list", nil, map[string]any{"items": []any{note("n1", "first", []any{"a"}, 0), note("n2", "second", []any{}, 0), note("n3", "third", []any{}, 0)}}, false},
		{"a flag filters", "list", map[string]any{"tag": "a"}, map[string]any{"items": []any{note("n1", "first", []any{"a"}, 0)}}, false},
		{"a page has its next cursor", "list", map[string]any{"limit": 1}, map[string]any{"items": []any{note("n1", "first", []any{"a"}, 0)}, "next_cursor": "@"}, false},
		{"an object is itself", "show", map[string]any{"id": "n2"}, note("n2", "second", []any{}, 0), false},
		{"flags of every type", "add", map[string]any{"title": "-x y", "tag": []any{"a", "b"}, "count": 2.0}, note("n4", "-x y", []any{"a", "b"}, 2), false},
		{"a warning is carried", "add", map[string]any{"title": "t", "kind": "todo"}, map[string]any{
			"id": "n4", "title": "t", "tags": []any{}, "count": 0.0,
			"warning": "WARNING [KIND_DEPRECATED]: kind todo is going away. Next: use a tag",
		}, false},
		{"a scalar is a value", "echo", map[string]any{"words": []any{"a", "--b", "c d"}}, map[string]any{"value": "a --b c d"}, false},
		{"a subcommand", "stats_count", map[string]any{}, map[string]any{"count": 3.0}, false},
		{"the command's error", "show", map[string]any{"id": "n9"}, map[string]any{
			"code": "NOTE_NOT_FOUND", "message": "no note n9", "suggestion": "list the notes", "retryable": false, "phase": "execution", "exit_code": 5.0,
		}, true},
		{"the CLI's own validation", "show", map[string]any{"id": "<id>"}, map[string]any{"code": "INVALID_ID", "exit_code": 2.0}, true},
		{"destructive needs yes", "remove", map[string]any{"id": "n1"}, map[string]any{"code": "CONFIRMATION_REQUIRED", "exit_code": 2.0}, true},
		{"destructive with yes", "remove", map[string]any{"id": "n1", "yes": true}, map[string]any{"removed": "n1"}, false},
		{"every bad input at once, before anything runs", "add", map[string]any{"title": 5, "kind": "bad", "tag": []any{"UP"}, "nope": 1}, map[string]any{
			"code": "VALIDATION_FAILED", "exit_code": 2.0, "phase": "validation",
			"errors": []any{
				map[string]any{"code": "INVALID_ENUM_VALUE", "field": "kind", "message": `"bad" is not a valid value of "kind"; use one of plain, todo`, "valid_values": []any{"plain", "todo"}},
				map[string]any{"code": "UNKNOWN_FLAG", "field": "nope", "message": `unknown input "nope"`},
				map[string]any{"code": "PATTERN_MISMATCH", "field": "tag", "message": `"UP" does not match the pattern ^[a-z]+$ of "tag"`},
				map[string]any{"code": "INVALID_FLAG_VALUE", "field": "title", "message": `"title" must be a string, not 5`},
			},
		}, true},
		{"a missing argument", "show", map[string]any{}, map[string]any{"code": "MISSING_ARGUMENT", "field": "id", "exit_code": 2.0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.fail {
				t.Fatalf("isError %v, want %v: %s", res.IsError, tt.fail, text(res))
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(text(res)), &got); err != nil {
				t.Fatalf("text content is not a JSON object: %v: %s", err, text(res))
			}
			if tt.fail {
				if res.StructuredContent != nil {
					t.Errorf("an error result has structured content: %v", res.StructuredContent)
				}
				got = pick(got, tt.want)
			} else {
				if diff := cmp.Diff(got, roundTrip(t, res.StructuredContent)); diff != "" {
					t.Errorf("text content differs from structured content:\n%s", diff)
				}
				if c, ok := got["next_cursor"].(string); ok && c != "" {
					got["next_cursor"] = "@" // opaque
				}
				if s := outputs[tt.tool]; s != nil {
					if err := s.Validate([]byte(text(res))); err != nil {
						t.Errorf("structured content does not match the tool's outputSchema: %v", err)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s %v (-want +got):\n%s", tt.tool, tt.args, diff)
			}
		})
	}
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	cs := connect(t, mcp.InProcess(newApp))
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "describe"}); err == nil {
		t.Error("calling describe, which is not a tool, succeeded")
	}
}

func TestAnnotations(t *testing.T) {
	cs := connect(t, mcp.InProcess(newApp))
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ ReadOnly, Destructive, Idempotent bool }
	got := map[string]hints{}
	for _, tool := range listed.Tools {
		a := tool.Annotations
		got[tool.Name] = hints{a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint}
	}
	want := map[string]hints{
		"list": {ReadOnly: true, Idempotent: true}, "show": {ReadOnly: true, Idempotent: true},
		"echo": {ReadOnly: true, Idempotent: true}, "hang": {ReadOnly: true, Idempotent: true},
		"stats_count": {ReadOnly: true, Idempotent: true}, "work": {ReadOnly: true, Idempotent: true},
		"block": {ReadOnly: true, Idempotent: true},
		"add":   {}, "remove": {Destructive: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

// TestCancelKillsTheProcessGroup cancels a call whose command never returns
// and whose grandchild ignores SIGTERM: both must be gone.
func TestCancelKillsTheProcessGroup(t *testing.T) {
	r := execRunner(t)
	r.Grace = 200 * time.Millisecond
	cs := connect(t, r)
	pidfile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "hang", Arguments: map[string]any{"pidfile": pidfile}})
		done <- err
	}()
	pid := waitPID(t, pidfile)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call returned %v", err)
	}
	waitGone(t, pid)
}

// TestFinishedCallLeavesNothing: the command answers (TIMEOUT, through its
// lifecycle) and exits, leaving a grandchild in its group, which the runner
// kills.
func TestFinishedCallLeavesNothing(t *testing.T) {
	testTimeout(t, connect(t, execRunner(t)))
}

// TestServerStopsWhatOutlivesItsLimit: with less grace than the command's
// lifecycle takes to answer a timeout, the server stops the command itself,
// and the answer is still TIMEOUT.
func TestServerStopsWhatOutlivesItsLimit(t *testing.T) {
	testTimeout(t, connect(t, execRunner(t), mcp.WithGrace(100*time.Millisecond)))
}

// testTimeout calls a command that outlives its --timeout. The limit leaves
// the child, a race-built test binary on a loaded machine, time to start its
// grandchild and say so first.
func testTimeout(t *testing.T, cs *sdk.ClientSession) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "hang", Arguments: map[string]any{"pidfile": pidfile, "timeout": "2s"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), `"code":"TIMEOUT"`) {
		t.Errorf("want a TIMEOUT error, got %s", text(res))
	}
	waitGone(t, waitPID(t, pidfile))
}

// TestServeAnswersEverythingItRead runs the built-in serve command on a
// stdin that holds whole session and ends: every request is answered.
func TestServeAnswersEverythingItRead(t *testing.T) {
	app, err := urfaveWrapServe(execRunner(t))
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show","arguments":{"id":"n1"}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo","arguments":{"words":["hi"]}}}`,
	}, "\n") + "\n"
	var out, errs strings.Builder
	code := adapters.Run(context.Background(), app, []string{"serve"},
		adapters.WithStdio(strings.NewReader(in), &out, &errs), adapters.WithTerminal(adapters.Piped))
	if code != 0 {
		t.Errorf("serve exited %d; stderr: %s", code, errs.String())
	}
	var ids []string
	for line := range strings.Lines(out.String()) {
		var m struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			t.Errorf("not a result: %s", line)
		}
		ids = append(ids, string(m.ID))
	}
	slices.Sort(ids)
	if diff := cmp.Diff([]string{`"three"`, "1", "2"}, ids); diff != "" {
		t.Errorf("answered ids (-want +got):\n%s\n%s", diff, out.String())
	}
}

func TestServeHasHelpAndSchema(t *testing.T) {
	var env struct {
		Data struct {
			Command     string `json:"command"`
			DangerLevel string `json:"danger_level"`
		}
	}
	jsonInto(t, json.RawMessage(run(t, "serve", "--schema")), &env)
	if env.Data.Command != "serve" || env.Data.DangerLevel != "safe" {
		t.Errorf("serve --schema: %+v", env.Data)
	}
}

func urfaveWrapServe(r mcp.Runner) (adapters.Framework, error) {
	return urfaveWrap(mcp.Command("serve", mcp.WithRunner(r)))
}

// outputSchemas compiles each tool's declared outputSchema.
func outputSchemas(t testing.TB, cs *sdk.ClientSession) map[string]*validator.Compiled {
	t.Helper()
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*validator.Compiled{}
	for _, tool := range listed.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		var s schema.Schema
		jsonInto(t, tool.OutputSchema, &s)
		c, err := validator.Compile(s)
		if err != nil {
			t.Fatalf("%s: outputSchema: %v", tool.Name, err)
		}
		out[tool.Name] = c
	}
	return out
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// pick keeps of got the keys want has.
func pick(got, want map[string]any) map[string]any {
	out := map[string]any{}
	for k := range want {
		if v, ok := got[k]; ok {
			out[k] = v
		}
	}
	return out
}

func roundTrip(t testing.TB, v any) any {
	t.Helper()
	var out any
	jsonInto(t, v, &out)
	return out
}

func jsonInto(t testing.TB, v, into any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// waitPID waits for the hang command's grandchild to write its pid.
func waitPID(t *testing.T, pidfile string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		raw, err := os.ReadFile(pidfile)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && perr == nil {
			return pid
		}
	}
	t.Fatal("the hang command never started its grandchild")
	return 0
}

// waitGone waits for pid to be gone; the test fails if it lives on.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if zombie(pid) {
			return // dead, waiting for its parent (init) to reap it
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d outlived its call", pid)
}

func zombie(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, ok := strings.Cut(string(raw), ") ")
	return ok && strings.HasPrefix(after, "Z")
}

// TestInProcessConcurrent: 32 calls at once, in process, each on an app of
// its own — run it with -race — answer as each would alone.
func TestInProcessConcurrent(t *testing.T) {
	cs := connect(t, mcp.InProcess(newApp))
	const n = 32
	errs := make(chan error, n)
	for i := range n {
		go func() {
			id := []string{"n1", "n2", "n3"}[i%3]
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "show", Arguments: map[string]any{"id": id}})
			switch {
			case err != nil:
				errs <- err
			case res.IsError || !strings.Contains(text(res), `"id":"`+id+`"`):
				errs <- fmt.Errorf("show %s: %s", id, text(res))
			default:
				errs <- nil
			}
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestProgress: a client that asks for progress is told of each step the
// command reports, in process and from a child process.
func TestProgress(t *testing.T) {
	for name, runner := range runners(t) {
		t.Run(name, func(t *testing.T) {
			// The client handles notifications apart from results: one may
			// come after the call has returned, so the test waits for them.
			got := make(chan string, 8)
			client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					p := req.Params
					got <- fmt.Sprintf("%v %s %v/%v", p.ProgressToken, p.Message, p.Progress, p.Total)
				},
			})
			cs := connectWith(t, client, runner)
			params := &sdk.CallToolParams{Name: "work", Arguments: map[string]any{}}
			params.SetProgressToken("tok")
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				t.Fatal(err, text(res))
			}
			want := []string{"tok step 1 1/3", "tok step 2 2/3", "tok step 3 3/3"}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // fail, not hang
			defer cancel()
			var notes []string
			for range want {
				select {
				case n := <-got:
					notes = append(notes, n)
				case <-ctx.Done():
					t.Fatalf("progress: %q, then nothing", notes)
				}
			}
			if diff := cmp.Diff(want, notes); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConfirmByElicitation: a destructive call without yes is put to the
// person behind a client that can ask; accepted, it runs; declined, or
// from a client that cannot ask, it is refused as ever.
func TestConfirmByElicitation(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer *sdk.ElicitResult // nil: the client cannot ask
		ok     bool
	}{
		{"accepted", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, true},
		{"declined", &sdk.ElicitResult{Action: "decline"}, false},
		{"accepted, not confirmed", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, false},
		{"a client that cannot ask", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked string
			opts := &sdk.ClientOptions{}
			if tt.answer != nil {
				opts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked = req.Params.Message
					return tt.answer, nil
				}
			}
			cs := connectWith(t, sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts), mcp.InProcess(newApp))
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "remove", Arguments: map[string]any{"id": "n1"}})
			if err != nil {
				t.Fatal(err)
			}
			if ran := !res.IsError && strings.Contains(text(res), `"removed":"n1"`); ran != tt.ok {
				t.Errorf("ran %v, want %v: %s", ran, tt.ok, text(res))
			}
			if !tt.ok && !strings.Contains(text(res), "CONFIRMATION_REQUIRED") {
				t.Errorf("refused otherwise than CONFIRMATION_REQUIRED: %s", text(res))
			}
			if tt.answer != nil && !strings.Contains(asked, "remove") {
				t.Errorf("the person was asked %q", asked)
			}
		})
	}
}

// TestCancelReachesTheCommand: a call the client cancels cancels the
// context of the command running in process.
func TestCancelReachesTheCommand(t *testing.T) {
	cs := connect(t, mcp.InProcess(newApp))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		done <- err
	}()
	if got := <-blocked; got != "started" {
		t.Fatalf("block said %q first", got)
	}
	cancel()
	if got := <-blocked; got != "cancelled" {
		t.Errorf("block said %q after the call was cancelled", got)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
}
