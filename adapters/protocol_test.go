package adapters_test

import (
	"context"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
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
