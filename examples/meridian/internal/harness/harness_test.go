package harness

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/golden"
	"github.com/google/go-cmp/cmp"
)

func TestLookupAndAll(t *testing.T) {
	var got []string
	for _, h := range All() {
		got = append(got, fmt.Sprintf("%s|%s|%s", h.Name(), h.Display(), h.Install()))
		l, ok := Lookup(h.Name())
		if !ok || l.Name() != h.Name() {
			t.Errorf("Lookup(%q) = %v, %v", h.Name(), l, ok)
		}
	}
	want := []string{
		"claude|Claude|npm install -g @anthropic-ai/claude-code",
		"codex|Codex|npm install -g @openai/codex",
		"opencode|OpenCode|npm install -g opencode-ai",
		"gemini|Gemini|npm install -g @google/gemini-cli",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("All() (-want +got):\n%s", diff)
	}
	if _, ok := Lookup("aider"); ok {
		t.Error(`Lookup("aider") found a harness`)
	}
}

func TestUnsupportedMessage(t *testing.T) {
	u := Unsupported{Flag: "--append-system-prompt", Harness: "Codex"}
	if got, want := u.Message(), "--append-system-prompt is not supported by Codex"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
}

// TestFieldsCoverRequest fails when a Request field is added without a
// Field, and TestEveryHarnessDecidesEveryField when a harness has no
// decision for one: adding a field forces a choice per harness.
func TestFieldsCoverRequest(t *testing.T) {
	var names []Field
	rt := reflect.TypeFor[Request]()
	for i := range rt.NumField() {
		names = append(names, Field(rt.Field(i).Name))
	}
	if diff := cmp.Diff(names, Fields()); diff != "" {
		t.Errorf("Fields() does not list Request's fields (-request +Fields):\n%s", diff)
	}
}

func TestEveryHarnessDecidesEveryField(t *testing.T) {
	for _, h := range All() {
		for _, f := range Fields() {
			p, ok := h.policy[f]
			if !ok {
				t.Errorf("%s: no policy for %s", h.Name(), f)
				continue
			}
			if p.How == "" {
				t.Errorf("%s: policy for %s does not say how", h.Name(), f)
			}
			if p.Supported && p.Warn {
				t.Errorf("%s: %s is supported and warned about", h.Name(), f)
			}
		}
		if len(h.policy) != len(Fields()) {
			t.Errorf("%s: policy has %d entries, want %d", h.Name(), len(h.policy), len(Fields()))
		}
	}
}

// setSample sets f in r to a value that should change the command of any
// harness supporting f.
func setSample(t *testing.T, r *Request, f Field) {
	t.Helper()
	switch f {
	case FieldModel:
		r.Model = "opencode-anthropic/claude-haiku-4-5"
	case FieldPrompt:
		r.Prompt = "another prompt"
	case FieldAppendSystemPrompt:
		r.AppendSystemPrompt = "be brief"
	case FieldSandbox:
		r.Sandbox = SandboxReadOnly
	case FieldResumeID:
		r.ResumeID = "0199a213-81c0-7800-8aa1-000000000000"
	case FieldSessionID:
		r.SessionID = "3b241101-e2bb-4255-8caf-4136c566a962"
	case FieldSystemPrompt:
		r.SystemPrompt = "You are terse."
	case FieldFork:
		r.Fork = true
	case FieldReportPath:
		r.ReportPath = "/tmp/report.md"
	case FieldInteractive:
		r.Interactive = true
	case FieldExtra:
		r.Extra = []string{"--some-flag"}
	default:
		t.Fatalf("no sample value for %s", f)
	}
}

// TestPolicyMatchesBuild checks the policy table against Build: a supported
// field changes the command, an unsupported one leaves it as it was and is
// reported exactly when the policy says to warn.
func TestPolicyMatchesBuild(t *testing.T) {
	for _, h := range All() {
		for _, f := range Fields() {
			t.Run(h.Name()+"/"+string(f), func(t *testing.T) {
				base := Request{Prompt: "p", ResumeID: "0199a213-81c0-7800-8aa1-bbab2a035a53"}
				if f == FieldResumeID || f == FieldSessionID {
					// SessionID names a new conversation only.
					base.ResumeID = ""
				}
				with := base
				setSample(t, &with, f)
				baseCmd, baseWarn := h.Build("x", base)
				cmd, warn := h.Build("x", with)
				if len(baseWarn) != 0 {
					t.Fatalf("base request warned: %v", baseWarn)
				}
				changed := !cmp.Equal(baseCmd, cmd)
				p := h.Policy(f)
				if changed != p.Supported {
					t.Errorf("Supports(%s) = %v but setting it changed the command: %v\nbase %q\nwith %q", f, p.Supported, changed, baseCmd, cmd)
				}
				var wantWarn []Unsupported
				if p.Warn {
					wantWarn = []Unsupported{{Flag: f.Flag(), Harness: h.Display()}}
				}
				if diff := cmp.Diff(wantWarn, warn); diff != "" {
					t.Errorf("unsupported (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// goldenCommand is what the argv golden files hold.
type goldenCommand struct {
	Request     Request  `json:"request"`
	Args        []string `json:"args"`
	Stdin       string   `json:"stdin"`
	Env         []string `json:"env"`
	Unsupported []string `json:"unsupported"`
}

func TestBuildGolden(t *testing.T) {
	for _, h := range All() {
		for _, c := range buildCases {
			t.Run(h.Name()+"/"+c.name, func(t *testing.T) {
				req := c.req(h.Name())
				if err := req.Validate(); err != nil {
					t.Fatalf("case request is invalid: %v", err)
				}
				cmd, warn := h.Build(h.Name(), req)
				g := goldenCommand{Request: req, Args: cmd.Args, Stdin: cmd.Stdin, Env: append([]string{}, cmd.Env...), Unsupported: []string{}}
				for _, u := range warn {
					g.Unsupported = append(g.Unsupported, u.Message())
				}
				b, err := json.MarshalIndent(g, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				golden.Assert(t, path.Join("argv", h.Name(), c.name+".json"), append(b, '\n'))
			})
		}
	}
}

// TestPolicyTableGolden renders the policy table, the document a reader
// checks a harness's behaviour against.
func TestPolicyTableGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("| Field |")
	for _, h := range All() {
		fmt.Fprintf(&b, " %s |", h.Display())
	}
	b.WriteString("\n|---|")
	for range All() {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, f := range Fields() {
		fmt.Fprintf(&b, "| %s |", f)
		for _, h := range All() {
			p := h.Policy(f)
			mark := "unsupported (warns)"
			switch {
			case p.Supported:
				mark = "yes"
			case !p.Warn:
				mark = "ignored"
			}
			fmt.Fprintf(&b, " %s: %s |", mark, strings.ReplaceAll(p.How, "|", `\|`))
		}
		b.WriteString("\n")
	}
	golden.Assert(t, "policy.md", []byte(b.String()))
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"empty", Request{}, ""},
		{"sandboxes", Request{Sandbox: SandboxFullAccess}, ""},
		{"bad sandbox", Request{Sandbox: "danger"}, `sandbox "danger" is not one of read-only, workspace-write, full-access`},
		{"fork alone", Request{Fork: true}, "fork needs a session to resume"},
		{"session id", Request{SessionID: "3B241101-E2BB-4255-8CAF-4136C566A962"}, ""},
		{"session id not a uuid", Request{SessionID: "chat-1"}, `session id "chat-1" is not a UUID`},
		{"relative report", Request{ReportPath: "report.md"}, `report path "report.md" is not absolute`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.req.Validate(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate() = %q, want %q", got, tt.want)
			}
		})
	}
}
