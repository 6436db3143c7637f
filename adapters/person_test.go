package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// personApp has one command only a person may confirm: approving a
// decision an agent proposed. approved counts the approvals that ran.
func personApp(approved *int) *cli.Command {
	approve := &cli.Command{Name: "approve", Usage: "Approve a decision",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "the app's own --yes"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			*approved++
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]string{"approved": cmd.Args().First()})
		}}
	urfave.Annotate(approve, schema.Meta{Danger: schema.Mutating, RequiresPerson: true,
		Args: []schema.Arg{{Name: "id", Required: true, Type: schema.String, Usage: "the decision"}}})
	return &cli.Command{Name: "desk", Usage: "decisions", Commands: []*cli.Command{approve}}
}

func runPerson(t *testing.T, tty adapters.Terminal, stdin string, approved *int, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), personApp(approved), args,
		adapters.WithSpecStrict(), adapters.WithStdio(strings.NewReader(stdin), &stdout, &stderr),
		adapters.WithTerminal(tty), adapters.WithEnv([]string{"HOME=" + t.TempDir()}))
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestRequiresPerson (REQ-C-036): off a terminal a person-only command
// answers PERSON_REQUIRED (exit 4, not retryable, no flag suggested) and
// runs nothing, --yes or not; at a terminal it runs once the person types
// the attestation back, and a wrong one is ATTESTATION_MISMATCH.
func TestRequiresPerson(t *testing.T) {
	for _, tt := range []struct {
		name  string
		tty   adapters.Terminal
		stdin string
		args  []string
		code  string // "" for success
	}{
		{"piped", adapters.Piped, "approve d1\n", []string{"approve", "d1"}, "PERSON_REQUIRED"},
		{"piped with --yes", adapters.Piped, "approve d1\n", []string{"approve", "d1", "--yes"}, "PERSON_REQUIRED"},
		{"at a terminal with --non-interactive", adapters.Console, "approve d1\n", []string{"approve", "d1", "--non-interactive"}, "PERSON_REQUIRED"},
		{"stdout piped, stdin a terminal", adapters.StdinTerminal | adapters.StderrTerminal, "approve d1\n", []string{"approve", "d1"}, "PERSON_REQUIRED"},
		{"at a terminal, typed back", adapters.Console, "approve d1\n", []string{"approve", "d1"}, ""},
		{"at a terminal, typed wrong", adapters.Console, "approve d2\n", []string{"approve", "d1", "--yes"}, "ATTESTATION_MISMATCH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			approved := 0
			r := runPerson(t, tt.tty, tt.stdin, &approved, tt.args...)
			if tt.code == "" {
				if r.code != 0 || approved != 1 || !strings.Contains(r.stderr, `Type "approve d1"`) {
					t.Fatalf("exit %d, approved %d times, stderr %q; want it run once after asking", r.code, approved, r.stderr)
				}
				return
			}
			if r.code != 4 || approved != 0 {
				t.Fatalf("exit %d, approved %d times; want 4 and nothing run\nstdout %s\nstderr %s", r.code, approved, r.stdout, r.stderr)
			}
			if tt.tty&adapters.StdoutTerminal != 0 {
				if !strings.Contains(r.stderr, tt.code) {
					t.Errorf("stderr %q does not say %s", r.stderr, tt.code)
				}
				return
			}
			w := wantError(t, r, 4, tt.code)
			if w.Error.Retryable || w.Error.FixCommand != "" || strings.Contains(w.Error.Suggestion, "--") || string(w.Data) != "null" {
				t.Errorf("retryable %v, fix_command %q, suggestion %q, data %s; want terminal, no command, no flag, no data",
					w.Error.Retryable, w.Error.FixCommand, w.Error.Suggestion, w.Data)
			}
		})
	}
}

// TestRequiresPersonDeclared: the manifest marks a person-only command
// requires_person, interactive and kept off MCP, with the error codes of
// its exit 4; and no MCP tool serves it.
func TestRequiresPersonDeclared(t *testing.T) {
	approved := 0
	r := runPerson(t, adapters.Piped, "", &approved, "manifest")
	w := wantOK(t, r)
	var m struct {
		Commands map[string]struct {
			RequiresPerson bool  `json:"requires_person"`
			Interactive    bool  `json:"interactive"`
			MCP            *bool `json:"mcp"`
			ExitCodes      map[string]struct {
				ErrorCodes []string `json:"error_codes"`
			} `json:"exit_codes"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(w.Data, &m); err != nil {
		t.Fatal(err)
	}
	c := m.Commands["approve"]
	if !c.RequiresPerson || !c.Interactive || c.MCP == nil || *c.MCP {
		t.Errorf("approve: requires_person %v, interactive %v, mcp %v; want true, true, false", c.RequiresPerson, c.Interactive, c.MCP)
	}
	if got := strings.Join(c.ExitCodes["4"].ErrorCodes, ","); got != "PERSON_REQUIRED,ATTESTATION_MISMATCH" {
		t.Errorf("exit 4 error_codes %q", got)
	}
	for path, other := range m.Commands {
		if path != "approve" && other.RequiresPerson {
			t.Errorf("%s says requires_person", path)
		}
	}
	app, err := urfave.Wrap(personApp(&approved))
	if err != nil {
		t.Fatal(err)
	}
	if app.Tree().Sub("approve").IsTool() {
		t.Error("a person-only command is an MCP tool")
	}
}
