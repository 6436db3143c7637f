package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/tokens/tiktoken"
)

// generatedApp is a large app: 20 groups (shelves) of 10 commands each, 200
// tools, every one with flags and a declared output.
func generatedApp() *cli.Command {
	type record struct {
		Shelf int    `json:"shelf"`
		Op    string `json:"op"`
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	ops := []string{"list", "show", "add", "rename", "archive", "restore", "export", "import", "count", "purge"}
	what := []string{"List the books", "Show one book", "Add a book", "Rename a book", "Archive a book", "Restore an archived book",
		"Export the books as CSV", "Import books from a CSV file", "Count the books", "Delete every archived book"}
	dangers := []schema.Danger{schema.Safe, schema.Safe, schema.Mutating, schema.Mutating, schema.Mutating, schema.Mutating,
		schema.Safe, schema.Mutating, schema.Safe, schema.Destructive}
	root := &cli.Command{Name: "library", Usage: "A generated library of shelves"}
	for s := range 20 {
		shelf := &cli.Command{Name: fmt.Sprintf("shelf%02d", s), Usage: fmt.Sprintf("The books of shelf %d", s)}
		for i, op := range ops {
			shelf.Commands = append(shelf.Commands, urfave.Annotate(&cli.Command{
				Name: op, Usage: what[i] + fmt.Sprintf(" of shelf %d", s),
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "name", Usage: "the book's title"},
					&cli.IntFlag{Name: "count", Usage: "how many", Value: 1},
					&cli.StringFlag{Name: "format", Usage: "csv or json", Value: "csv"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					out := envelope.From(ctx)
					if dangers[i] != schema.Safe {
						out.Effect(envelope.Updated)
					}
					return out.Result(record{Shelf: s, Op: op, Name: cmd.String("name"), Count: int(cmd.Int("count"))})
				},
			}, schema.Meta{Danger: dangers[i], DryRun: dangers[i] == schema.Destructive, Output: schema.Of[record](),
				Flags: map[string]schema.FlagMeta{"format": {Enum: []string{"csv", "json"}}}}))
		}
		root.Commands = append(root.Commands, shelf)
	}
	return root
}

// TestProgressive serves the 200 tools of generatedApp progressively:
// tools/list is three tools within 1,500 o200k tokens; search_tools finds a
// tool by its name or by words of what it does; describe_tool gives what
// tools/list would have; call_tool runs the command (a real child process)
// and answers as the tool itself does when published directly.
func TestProgressive(t *testing.T) {
	app, err := urfave.Wrap(generatedApp(), adapters.WithVersion("1.2.3"), mcp.Command("serve"))
	if err != nil {
		t.Fatal(err)
	}
	runner := mcp.Exec(os.Args[0])
	runner.Env = append(os.Environ(), appEnv+"=generated")
	ctx := context.Background()
	cs := connectApp(t, app, runner)
	direct := connectApp(t, app, runner, mcp.WithProgressive(-1))

	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range listed.Tools {
		names = append(names, tl.Name)
	}
	if want := []string{mcp.CallTool, mcp.DescribeTool, mcp.SearchTool}; !slices.Equal(names, want) {
		t.Fatalf("tools/list names %v, want %v", names, want)
	}
	raw, _ := json.Marshal(listed)
	all, err := direct.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rawAll, _ := json.Marshal(all)
	o200k := tiktoken.O200k()
	n, nAll := o200k.Count(string(raw)), o200k.Count(string(rawAll))
	if n > 1500 {
		t.Errorf("progressive tools/list is %d o200k tokens, want at most 1,500", n)
	}
	t.Logf("tools/list: %d o200k tokens progressively, %d with all %d tools", n, nAll, len(all.Tools))

	t.Run("search", func(t *testing.T) {
		for _, tt := range []struct{ query, first string }{
			{"shelf07 export", "shelf07_export"},
			{"shelf03_purge", "shelf03_purge"},
			{"import books from csv shelf12", "shelf12_import"},
		} {
			var got struct {
				Tools []struct{ Name, Description string }
				Total int
			}
			callInto(t, cs, mcp.SearchTool, map[string]any{"query": tt.query, "limit": 3}, &got)
			if len(got.Tools) == 0 || got.Tools[0].Name != tt.first || len(got.Tools) > 3 || got.Total < len(got.Tools) {
				t.Errorf("search %q: %+v, want %s first and at most 3", tt.query, got, tt.first)
			}
		}
	})
	t.Run("describe", func(t *testing.T) {
		var got map[string]any
		callInto(t, cs, mcp.DescribeTool, map[string]any{"name": "shelf05_rename"}, &got)
		var want map[string]any
		for _, tl := range all.Tools {
			if tl.Name == "shelf05_rename" {
				b, _ := json.Marshal(tl)
				json.Unmarshal(b, &want)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("describe_tool shelf05_rename is not its tools/list entry (-list +describe):\n%s", diff)
		}
	})
	t.Run("call", func(t *testing.T) {
		args := map[string]any{"name": "Dune", "count": 2}
		via := call(t, cs, mcp.CallTool, map[string]any{"name": "shelf09_add", "arguments": args})
		straight := call(t, direct, "shelf09_add", args)
		if via.IsError || straight.IsError {
			t.Fatalf("call_tool: %s; direct: %s", text(via), text(straight))
		}
		if diff := cmp.Diff(text(straight), text(via)); diff != "" || !strings.Contains(text(via), `"name":"Dune"`) {
			t.Errorf("call_tool shelf09_add answers unlike the tool (-direct +call_tool):\n%s", diff)
		}
		// The command's own --format is the caller's to give: the answer
		// is JSON all the same, and nothing else was given to it.
		for _, format := range []string{"csv", "json"} {
			own := call(t, cs, mcp.CallTool, map[string]any{"name": "shelf09_add", "arguments": map[string]any{"name": "Dune", "format": format}})
			if own.IsError || !strings.Contains(text(own), `"name":"Dune"`) {
				t.Errorf("call_tool with the command's own format %s: %s", format, text(own))
			}
		}
		// Its arguments are checked as the tool's are.
		bad := call(t, cs, mcp.CallTool, map[string]any{"name": "shelf09_add", "arguments": map[string]any{"format": "xml"}})
		if !bad.IsError || !strings.Contains(text(bad), "xml") {
			t.Errorf("call_tool with format xml: %s, want it refused", text(bad))
		}
	})
	t.Run("unknown tool", func(t *testing.T) {
		for _, tool := range []string{mcp.DescribeTool, mcp.CallTool} {
			res := call(t, cs, tool, map[string]any{"name": "shelf05_renam"})
			var e struct {
				Code        string   `json:"code"`
				ValidValues []string `json:"valid_values"`
			}
			json.Unmarshal([]byte(text(res)), &e)
			if !res.IsError || e.Code != "TOOL_NOT_FOUND" || !slices.Contains(e.ValidValues, "shelf05_rename") {
				t.Errorf("%s of shelf05_renam: %s, want TOOL_NOT_FOUND suggesting shelf05_rename", tool, text(res))
			}
		}
	})
	t.Run("small apps are direct", func(t *testing.T) {
		small := connect(t, execRunner(t))
		res, err := small.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) < 5 || slices.ContainsFunc(res.Tools, func(tl *sdk.Tool) bool { return tl.Name == mcp.SearchTool }) {
			t.Errorf("the notes app's tools/list: %d tools, want its own", len(res.Tools))
		}
	})
}

// call calls a tool, failing the test on a protocol error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// callInto calls a tool that must succeed and decodes its structured content.
func callInto(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, v any) {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, text(res))
	}
	if err := json.Unmarshal([]byte(text(res)), v); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, text(res))
	}
}

// TestValidateProgressive runs mcp-validate against the generated app's
// own server, progressive, over streamable HTTP: it reads the 200 tools
// through search_tools and describe_tool, and finds no drift.
func TestValidateProgressive(t *testing.T) {
	app, err := urfave.Wrap(generatedApp(), adapters.WithVersion("1.2.3"), mcp.Command("serve"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.NewServer(app, mcp.WithRunner(mcp.Exec(os.Args[0])), mcp.WithVersion("1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	var out, errOut strings.Builder
	code := adapters.Run(context.Background(), app, []string{"mcp-validate", "--mcp-server-url", ts.URL},
		adapters.WithStdio(strings.NewReader(""), &out, &errOut), adapters.WithTerminal(adapters.Piped))
	if code != 0 {
		t.Fatalf("mcp-validate: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	t.Log(out.String()[:min(600, out.Len())])
}
