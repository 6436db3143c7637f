package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// TestProtocolDeclarations: a protocol server (Meta.Protocol) is refused
// at registration beside what cannot go with it (REQ-C-032), is never an
// MCP tool, and a destructive one needs no --dry-run.
func TestProtocolDeclarations(t *testing.T) {
	serve := func(meta schema.Meta, flags ...cli.Flag) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: "serve", Usage: "serve", Flags: flags,
			Action: func(context.Context, *cli.Command) error { return nil }}, meta)
	}
	wrap := func(c *cli.Command) error {
		_, err := urfave.Wrap(&cli.Command{Name: "tool", Usage: "tool", Commands: []*cli.Command{c}})
		return err
	}
	base := schema.Meta{Danger: schema.Mutating, Protocol: "lsp"}
	with := func(change func(*schema.Meta)) schema.Meta { m := base; change(&m); return m }
	tests := []struct {
		name string
		cmd  *cli.Command
		says string
	}{
		{"a name not kebab-case", serve(with(func(m *schema.Meta) { m.Protocol = "MCP_stdio" })), "lowercase kebab-case"},
		{"stdin", serve(with(func(m *schema.Meta) { m.Stdin = "a payload" })), "Meta.Stdin"},
		{"interactive", serve(with(func(m *schema.Meta) { m.Interactive = true })), "Meta.Interactive"},
		{"streaming", serve(with(func(m *schema.Meta) { m.StreamingDefault = true })), "Meta.Streaming"},
		{"an output schema", serve(with(func(m *schema.Meta) { m.Output = schema.Of[map[string]int]() })), "Meta.Output"},
		{"a background process", serve(with(func(m *schema.Meta) {
			m.Background = &schema.Background{CleanupCommand: "tool stop", MaxLifetime: 1}
		})), "Meta.Background"},
		{"a dry run", serve(with(func(m *schema.Meta) { m.DryRun = true })), "--dry-run"},
		{"a safe default", serve(with(func(m *schema.Meta) { m.DryRun, m.SafeDefault = true, true })), "Meta.SafeDefault"},
		{"its own --output", serve(base, &cli.StringFlag{Name: "output"}), "--output"},
		{"always a tool", serve(with(func(m *schema.Meta) { m.Tool = schema.ToolAlways })), "ToolAlways"},
	}
	for _, tt := range tests {
		err := wrap(tt.cmd)
		if err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "REQ-C-032") && tt.name != "a name not kebab-case" {
			t.Errorf("%s: Wrap error %v, want one saying %q", tt.name, err, tt.says)
		}
	}
	if err := wrap(serve(with(func(m *schema.Meta) { m.Danger = schema.Destructive }))); err != nil {
		t.Errorf("a destructive protocol server without --dry-run: %v", err)
	}
	app, err := urfave.Wrap(&cli.Command{Name: "tool", Usage: "tool", Commands: []*cli.Command{serve(base)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := app.Tree().Sub("serve"); n == nil || n.IsTool() {
		t.Errorf("serve: node %v is an MCP tool", n)
	}
}

// TestProtocolServerAnswersOnStderr: a protocol server's stdout is its
// protocol's (REQ-C-032). What it writes there reaches stdout as written,
// for an agent too (nothing captures it); a clean end writes no envelope;
// a failure, before serving or after, is the envelope on the last line of
// stderr, stdout untouched; its declared timeout does not stop it; --schema
// still answers on stdout.
func TestProtocolServerAnswersOnStderr(t *testing.T) {
	tool := func(action cli.ActionFunc) *cli.Command {
		serve := urfave.Annotate(&cli.Command{Name: "serve", Usage: "serve", Action: action},
			schema.Meta{Danger: schema.Safe, Protocol: "lsp", Timeout: time.Millisecond})
		return &cli.Command{Name: "tool", Usage: "tool", Commands: []*cli.Command{serve}}
	}
	run := func(app *cli.Command, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), app, args,
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
			adapters.WithEnv([]string{"CLAUDECODE=1"}))
		return code, stdout.String(), stderr.String()
	}
	lastLine := func(s string) map[string]any {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		var env map[string]any
		json.Unmarshal([]byte(lines[len(lines)-1]), &env)
		return env
	}
	const message = "Content-Length: 2\r\n\r\n{}"
	serves := func(ctx context.Context, c *cli.Command) error {
		select {
		case <-ctx.Done(): // the declared timeout must not end it
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		_, err := io.WriteString(c.Root().Writer, message)
		return err
	}

	code, stdout, stderr := run(tool(serves), "serve")
	if code != 0 || stdout != message || strings.Contains(stderr, `"ok"`) {
		t.Errorf("a clean end: exit %d, stdout %q, stderr %q; want 0, the message alone, no envelope", code, stdout, stderr)
	}

	code, stdout, stderr = run(tool(serves), "serve", "--bogus")
	if env := lastLine(stderr); code != 2 || stdout != "" || env["ok"] != false {
		t.Errorf("a bad flag: exit %d, stdout %q, stderr %q; want 2, stdout empty, the envelope last on stderr", code, stdout, stderr)
	}

	fails := func(ctx context.Context, c *cli.Command) error {
		io.WriteString(c.Root().Writer, message)
		return envelope.Errorf(exitcode.Unavailable, "BACKEND_GONE", "the backend went away")
	}
	code, stdout, stderr = run(tool(fails), "serve")
	if env := lastLine(stderr); code != int(exitcode.Unavailable) || stdout != message || env["error"].(map[string]any)["code"] != "BACKEND_GONE" {
		t.Errorf("a failure: exit %d, stdout %q, stderr %q; want the message on stdout, the envelope last on stderr", code, stdout, stderr)
	}

	code, stdout, _ = run(tool(serves), "serve", "--schema")
	if code != 0 || !strings.Contains(stdout, `"protocol"`) {
		t.Errorf("--schema: exit %d, stdout %q; want the schema on stdout", code, stdout)
	}
}
