//go:build unix

package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// processArgsEnv, set, makes a test below run processApp with urfave.Main,
// in a process of its own (the test binary), with these arguments.
const processArgsEnv = "DUET_TEST_PROCESS_ARGS"

// inProcess runs processApp with urfave.Main and the arguments
// processArgsEnv holds, when it is set, and reports whether it was.
func inProcess() bool {
	args, ok := os.LookupEnv(processArgsEnv)
	if ok {
		os.Args = append([]string{"app"}, strings.Fields(args)...)
		urfave.Main(processApp(), adapters.WithSpecStrict())
	}
	return ok
}

// runProcess runs the test binary as processApp, with test's name, the
// arguments given and env as its whole environment beside PATH and HOME.
func runProcess(t *testing.T, args string, env ...string) result {
	t.Helper()
	cmd := processCmd(t, args, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// processCmd is the command that runs the test binary as processApp.
func processCmd(t *testing.T, args string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+strings.Split(t.Name(), "/")[0]+"$")
	cmd.Env = append([]string{processArgsEnv + "=" + args, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	return cmd
}

// TestStrayOutputProcess: in a process of its own (Main), what a ported
// command writes to file descriptor 1 by any route — fmt.Println, a raw
// write(2), a child process — is caught at the descriptor (REQ-F-060): stdout
// holds one envelope that parses, each prose write is quoted in a
// THIRD_PARTY_STDOUT warning, a JSON document is dropped, and under --debug
// it is on stderr too, attributed.
func TestStrayOutputProcess(t *testing.T) {
	if inProcess() {
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	tests := []struct {
		name      string
		args      string
		quoted    []string // in one THIRD_PARTY_STDOUT warning
		attribute bool     // on stderr, attributed
	}{
		{"prose", "print", []string{"initialized", "raw write", "from a child"}, false},
		{"a JSON document", "print --json", nil, false},
		{"under --debug", "print --debug", []string{"initialized", "raw write", "from a child"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runProcess(t, tt.args, "APP_FORMAT=json")
			w := wantOK(t, r)
			if string(w.Data) != `{"id":"run-99"}` {
				t.Errorf("data %s, want the result alone", w.Data)
			}
			var stray []string
			for _, warning := range w.Warnings {
				if warning.Code == "THIRD_PARTY_STDOUT" {
					stray = append(stray, warning.Message)
				}
			}
			if len(tt.quoted) == 0 {
				if len(stray) != 0 || strings.Contains(r.stdout, `"second"`) {
					t.Errorf("a JSON document printed beside the answer: warnings %q, stdout %s", w.Warnings, r.stdout)
				}
				return
			}
			if len(stray) != 1 {
				t.Fatalf("THIRD_PARTY_STDOUT warnings %q, want one", w.Warnings)
			}
			for _, q := range tt.quoted {
				if !strings.Contains(stray[0], q) {
					t.Errorf("the warning %q does not quote %q", stray[0], q)
				}
				if got := strings.Contains(r.stderr, "[stdout, not the answer] "+q); got != tt.attribute {
					t.Errorf("%q attributed on stderr: %v, want %v; stderr:\n%s", q, got, tt.attribute, r.stderr)
				}
			}
		})
	}
}

// TestTraceForChildren: in a process of its own, a child a command starts
// inherits the invocation's trace id as TOOL_TRACE_ID (REQ-F-025), whether
// the caller named it TOOL_TRACE_ID or <TOOL>_TRACE_ID; with none, none.
func TestTraceForChildren(t *testing.T) {
	if inProcess() {
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"TOOL_TRACE_ID=span-1"}, "span-1"},
		{[]string{"APP_TRACE_ID=span-2"}, "span-2"},
		{[]string{"APP_TRACE_ID=span-3", "TOOL_TRACE_ID=outer"}, "span-3"},
		{nil, ""},
	}
	for _, tt := range tests {
		w := wantOK(t, runProcess(t, "child-trace", append(tt.env, "APP_FORMAT=json")...))
		var trace any // meta.trace_id is left out without one
		if tt.want != "" {
			trace = tt.want
		}
		if want := `{"child_trace":"` + tt.want + `"}`; string(w.Data) != want || w.Meta["trace_id"] != trace {
			t.Errorf("env %q: data %s, meta.trace_id %v; want %s", tt.env, w.Data, w.Meta["trace_id"], want)
		}
	}
}

// TestEditorForChildren: where nobody is at a terminal, a child a command
// starts finds EDITOR, VISUAL and GIT_EDITOR set to "true", so that no
// editor waits for a person (REQ-F-055); at a terminal
// (TestEditorAtATerminal) they are as they were.
func TestEditorForChildren(t *testing.T) {
	if inProcess() {
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	w := wantOK(t, runProcess(t, "child-env", "EDITOR=vim", "VISUAL=code --wait", "APP_FORMAT=json"))
	if string(w.Data) != `{"editors":"true,true,true","no_color":"1"}` {
		t.Errorf("data %s, want every editor a no-op", w.Data)
	}
}

// TestNoColorForChildren: where colour is off — an agent reads, NO_COLOR is
// set even empty, CI — a child a command starts inherits NO_COLOR=1
// (REQ-F-008); a NO_COLOR the caller set stays as it was.
func TestNoColorForChildren(t *testing.T) {
	if inProcess() {
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"APP_FORMAT=json"}, "1"},
		{[]string{"APP_FORMAT=json", "NO_COLOR="}, "1"},
		{[]string{"APP_FORMAT=json", "NO_COLOR=yes"}, "yes"},
	}
	for _, tt := range tests {
		w := wantOK(t, runProcess(t, "child-env", tt.env...))
		var data map[string]string
		json.Unmarshal(w.Data, &data)
		if data["no_color"] != tt.want {
			t.Errorf("env %q: the child's NO_COLOR is %q, want %q", tt.env, data["no_color"], tt.want)
		}
	}
}

// processApp is an app whose commands do behind Duet's back what only a
// process of its own can show: print on file descriptor 1 by every route,
// start a child.
func processApp() *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "print",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				if c.Bool("json") {
					fmt.Println(`{"second": "answer"}`)
				} else {
					fmt.Println("initialized")              // the runtime's stdout
					syscall.Write(1, []byte("raw write\n")) // the descriptor itself, as native code would
					child := exec.Command("sh", "-c", "echo from a child")
					child.Stdout = os.Stdout // a child inherits it
					if err := child.Run(); err != nil {
						return err
					}
				}
				return envelope.From(ctx).Result(map[string]string{"id": "run-99"})
			}}, schema.Meta{Danger: schema.Safe}),
		urfave.Annotate(&cli.Command{Name: "child-trace",
			Action: func(ctx context.Context, _ *cli.Command) error {
				out, err := exec.Command("sh", "-c", `printf %s "$TOOL_TRACE_ID"`).Output()
				if err != nil {
					return err
				}
				return envelope.From(ctx).Result(map[string]string{"child_trace": string(out)})
			}}, schema.Meta{Danger: schema.Safe}),
		urfave.Annotate(&cli.Command{Name: "child-env",
			Action: func(ctx context.Context, _ *cli.Command) error {
				editors, err := exec.Command("sh", "-c", `printf %s "$EDITOR,$VISUAL,$GIT_EDITOR"`).Output()
				if err != nil {
					return err
				}
				noColor, err := exec.Command("sh", "-c", `printf %s "$NO_COLOR"`).Output()
				if err != nil {
					return err
				}
				return envelope.From(ctx).Result(map[string]string{"editors": string(editors), "no_color": string(noColor)})
			}}, schema.Meta{Danger: schema.Safe}),
	}}
}
