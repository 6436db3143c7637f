package completion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/completion"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/golden"
	"github.com/duet-cli/duet/schema"
)

// TestScripts holds each shell's script to its golden file (go test -update
// rewrites them), and checks that what must stay out is not even named.
func TestScripts(t *testing.T) {
	for _, shell := range []string{completion.Bash, completion.Zsh, completion.Fish} {
		t.Run(shell, func(t *testing.T) {
			got := script(t, shell)
			golden.Assert(t, "notes."+shell, []byte(got))
			for _, name := range leftOut {
				if strings.Contains(got, name) {
					t.Errorf("the %s script names %q, which a person's help leaves out", shell, name)
				}
			}
		})
	}
}

// TestAnswer checks what the command answers: the script on stdout whatever
// the audience and --format, and for a missing or unknown shell an ARG_ERROR
// envelope naming the problem in errors[], validated by the lifecycle
// before the command runs — as the
// last line of stderr, stdout left empty: completion's stdout is its
// protocol's, a shell script (REQ-C-032).
func TestAnswer(t *testing.T) {
	bash := script(t, "bash")
	tests := []struct {
		name     string
		terminal adapters.Terminal
		args     []string
		code     int
		stdout   string // the whole of stdout, when it is a script
		errCode  string // else the envelope's error code
		valid    []string
	}{
		{name: "agent", args: []string{"completion", "bash"}, stdout: bash},
		{name: "person", terminal: adapters.Console, args: []string{"completion", "bash"}, stdout: bash},
		{name: "format json", args: []string{"completion", "bash", "--format", "json"}, stdout: bash},
		{name: "human flag", args: []string{"--human", "completion", "bash"}, stdout: bash},
		{name: "unknown shell", args: []string{"completion", "tcsh"}, code: 2, errCode: "INVALID_ENUM_VALUE", valid: []string{"bash", "zsh", "fish", "install"}},
		{name: "no shell", args: []string{"completion"}, code: 2, errCode: "MISSING_ARGUMENT"},
		{name: "two shells", args: []string{"completion", "bash", "zsh"}, code: 2, errCode: "UNEXPECTED_ARGUMENT"},
		{name: "validate only", args: []string{"completion", "fish", "--validate-only"}, errCode: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := runAll(t, tt.terminal, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tt.code, out, stderr)
			}
			if tt.stdout != "" {
				if diff := cmp.Diff(tt.stdout, out); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
				return
			}
			if out != "" {
				t.Errorf("stdout %q, want it empty: the envelope is stderr's", out)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			out = lines[len(lines)-1]
			var env struct {
				OK    bool `json:"ok"`
				Error *struct {
					Code        string   `json:"code"`
					ValidValues []string `json:"valid_values"`
					Errors      []struct {
						Code string `json:"code"`
					} `json:"errors"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &env); err != nil {
				t.Fatalf("stderr's last line is not an envelope: %v: %s", err, out)
			}
			if tt.errCode == "" {
				if !env.OK {
					t.Errorf("not ok: %s", out)
				}
				return
			}
			// A protocol's refused command line is ARG_ERROR, the problem
			// named in errors[] (REQ-C-032).
			if env.Error == nil || env.Error.Code != "ARG_ERROR" || len(env.Error.Errors) != 1 || env.Error.Errors[0].Code != tt.errCode || !slices.Equal(env.Error.ValidValues, tt.valid) {
				t.Errorf("error = %+v, want ARG_ERROR naming %s with valid values %v: %s", env.Error, tt.errCode, tt.valid, out)
			}
		})
	}
}

// TestVisibility checks who sees the command: a person's describe lists it,
// for people, as a command that speaks no envelope; an agent's describe and
// the MCP tools do not.
func TestVisibility(t *testing.T) {
	root := wrap(t).Tree()
	for _, agent := range []bool{false, true} {
		m, err := describe.New(root, "1.0.0", agent)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Commands map[string]struct {
				Audience string `json:"audience"`
				Danger   string `json:"danger_level"`
				Protocol string `json:"protocol"`
			} `json:"commands"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		c, listed := doc.Commands["completion"]
		switch {
		case agent && listed:
			t.Errorf("an agent's describe lists completion")
		case !agent && !listed:
			t.Errorf("a person's describe does not list completion")
		case !agent && (c.Audience != "human" || c.Danger != "safe" || c.Protocol != "shell-completion"):
			t.Errorf("completion in describe = %+v, want audience human, danger safe, protocol shell-completion", c)
		}
	}
	tools, err := describe.Tools(root, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if strings.HasPrefix(tool.Name, "completion") {
			t.Errorf("completion is served as an MCP tool %q", tool.Name)
		}
	}
}

// TestCobra checks that on cobra the command takes the place of cobra's own
// completion command, while cobra's hidden __complete still answers.
func TestCobra(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "notes", Short: "Notes for tests"}
		list := duetcobra.Annotate(&cobra.Command{Use: "list", Short: "List notes", RunE: func(*cobra.Command, []string) error { return nil }}, schema.Meta{Danger: schema.Safe})
		list.Flags().String("status", "open", "open, done or all")
		root.AddCommand(list)
		return root
	}
	run := func(args ...string) (string, int) {
		var out bytes.Buffer
		var stderr bytes.Buffer
		code := duetcobra.Run(context.Background(), newRoot(), args,
			adapters.WithStdio(strings.NewReader(""), &out, &stderr),
			adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict(),
			completion.Command("completion"))
		return out.String() + stderr.String(), code // a refusal is stderr's (REQ-C-032)
	}
	out, code := run("completion", "bash")
	if code != 0 || !strings.HasPrefix(out, "# bash completion for notes, made by Duet") {
		t.Errorf("completion bash: exit %d, stdout %.120q: want Duet's script", code, out)
	}
	if !strings.Contains(out, "'--status'") {
		t.Errorf("Duet's script on cobra does not offer list --status:\n%s", out)
	}
	out, code = run("completion", "powershell") // cobra's own would take it
	if code != 2 || !strings.Contains(out, "INVALID_ENUM_VALUE") {
		t.Errorf("completion powershell: exit %d, stdout %.200q: want an ARG_ERROR", code, out)
	}
	out, code = run("__complete", "list", "--st")
	if code != 0 || !strings.Contains(out, "--status") {
		t.Errorf("__complete list --st: exit %d, stdout %q: want cobra's own answer", code, out)
	}
}
