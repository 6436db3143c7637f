package urfave_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// TestResultExits: a diff-style command — exit 1 says "the inputs
// differ", with the difference printed — keeps that contract for a script,
// and an agent gets the same exit code with the entry's name as
// error.code, the entry's meaning as the message, and the difference as
// data; the same command without the declaration reaches an agent as a
// GENERAL_ERROR whose printed output went to stderr.
func TestResultExits(t *testing.T) {
	differs := exitcode.Table{1: {Name: "DIFFERENCES_FOUND", Description: "The inputs differ; data is the difference.", SideEffects: exitcode.None}}
	for _, tt := range []struct {
		name string
		meta schema.Meta
		exit int
		code string
		data string
	}{
		{"declared", schema.Meta{Danger: schema.Safe, ExitCodes: differs, ResultExits: []exitcode.Code{1}}, 1, "DIFFERENCES_FOUND", `{"stdout":"- a\n+ b\n"}`},
		{"undeclared", schema.Meta{Danger: schema.Safe}, 1, "GENERAL_ERROR", "null"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			newApp := func() *cli.Command {
				diff := urfave.Annotate(&cli.Command{Name: "diff", Action: func(_ context.Context, c *cli.Command) error {
					fmt.Fprint(c.Root().Writer, "- a\n+ b\n")
					return cli.Exit("", 1)
				}}, tt.meta)
				return &cli.Command{Name: "app", Commands: []*cli.Command{diff}}
			}
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), newApp(), []string{"diff"},
				adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithTerminal(adapters.Piped))
			if code != 1 || stdout.String() != "- a\n+ b\n" {
				t.Errorf("as a script: exit %d, stdout %q; want exit 1 and the difference", code, stdout.String())
			}
			stdout.Reset()
			code = urfave.Run(context.Background(), newApp(), []string{"diff"},
				adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithTerminal(adapters.Piped),
				adapters.WithEnv([]string{"CLAUDECODE=1"}))
			var env struct {
				OK    bool            `json:"ok"`
				Data  json.RawMessage `json:"data"`
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
				t.Fatalf("as an agent: %v: %q", err, stdout.String())
			}
			if code != tt.exit || env.OK || env.Error.Code != tt.code || env.Error.Message == "" {
				t.Errorf("as an agent: exit %d, %s; want exit %d, error.code %s with a message", code, stdout.String(), tt.exit, tt.code)
			}
			if diff := cmp.Diff(tt.data, string(env.Data)); diff != "" {
				t.Errorf("as an agent: data (-want +got):\n%s", diff)
			}
		})
	}
	// A result exit names a declared code, with its meaning.
	bad := urfave.Annotate(&cli.Command{Name: "diff", Action: func(context.Context, *cli.Command) error { return nil }},
		schema.Meta{Danger: schema.Safe, ResultExits: []exitcode.Code{3}})
	if _, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{bad}}); err == nil || !strings.Contains(err.Error(), "ResultExits") {
		t.Errorf("Wrap with an undeclared result exit: %v; want the declaration refused", err)
	}
}
