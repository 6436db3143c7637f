package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// childLogApp has one command, declared as meta, that writes a wrapped
// program's log ("PLAY [web]") to envelope.Output.ChildLog.
func childLogApp(meta schema.Meta) *cli.Command {
	play := &cli.Command{Name: "provision", Usage: "Run the playbook", Action: func(ctx context.Context, _ *cli.Command) error {
		out := envelope.From(ctx)
		w := out.ChildLog()
		defer w.Close()
		w.Write([]byte("PLAY [web]\n"))
		return out.Result(map[string]bool{"ok": true})
	}}
	urfave.Annotate(play, meta)
	return &cli.Command{Name: "infra", Usage: "infra", Commands: []*cli.Command{play}}
}

// TestChildLogDeclaration: REQ-F-038 (v1.16). A command declares a child
// log with Meta.ChildLog: the manifest says stderr: "child_log", and the
// log streams to an agent's stderr (--quiet silences it); without the
// declaration it does not. A passthrough command or a protocol server
// that declares one is refused when the app is wrapped.
func TestChildLogDeclaration(t *testing.T) {
	for _, tt := range []struct {
		meta       schema.Meta
		args       []string
		wantStderr string
	}{
		{schema.Meta{Danger: schema.Safe, ChildLog: true}, []string{"provision"}, "PLAY [web]\n"},
		{schema.Meta{Danger: schema.Safe, ChildLog: true}, []string{"--quiet", "provision"}, ""},
		{schema.Meta{Danger: schema.Safe}, []string{"provision"}, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), childLogApp(tt.meta), tt.args, run{}.options(&stdout, &stderr)...)
		wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
		if stderr.String() != tt.wantStderr {
			t.Errorf("ChildLog %v, %v: stderr %q, want %q", tt.meta.ChildLog, tt.args, stderr.String(), tt.wantStderr)
		}
	}

	var stdout bytes.Buffer
	if code := urfave.Run(context.Background(), childLogApp(schema.Meta{Danger: schema.Safe, ChildLog: true}), []string{"manifest"}, run{}.options(&stdout, &bytes.Buffer{})...); code != 0 {
		t.Fatalf("manifest: exit %d", code)
	}
	var m struct {
		Data struct {
			Commands map[string]struct {
				Stderr string `json:"stderr"`
			} `json:"commands"`
		} `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil || m.Data.Commands["provision"].Stderr != "child_log" {
		t.Errorf("manifest: provision's stderr %q (%v), want child_log\n%s", m.Data.Commands["provision"].Stderr, err, stdout.String())
	}

	for _, meta := range []schema.Meta{
		{Danger: schema.Safe, ChildLog: true, Arguments: schema.PassthroughArguments},
		{Danger: schema.Safe, ChildLog: true, Protocol: "mcp"},
	} {
		if _, err := urfave.Wrap(childLogApp(meta)); err == nil || !strings.Contains(err.Error(), "cannot stream a child log") {
			t.Errorf("Wrap with ChildLog, Arguments %q, Protocol %q: %v, want a refusal", meta.Arguments, meta.Protocol, err)
		}
	}
}
