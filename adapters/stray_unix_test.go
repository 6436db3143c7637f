//go:build unix

package adapters_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// strayChildEnv, set, makes TestStrayOutputProcess's helper run the app
// with urfave.Main, in a process of its own, with these arguments.
const strayChildEnv = "DUET_TEST_STRAY_ARGS"

// TestStrayOutputProcess: in a process of its own (Main), what a ported
// command writes to file descriptor 1 by any route — fmt.Println, a raw
// write(2), a child process — is caught at the descriptor (REQ-F-060): stdout
// holds one envelope that parses, each prose write is quoted in a
// THIRD_PARTY_STDOUT warning, a JSON document is dropped, and under --debug
// it is on stderr too, attributed.
func TestStrayOutputProcess(t *testing.T) {
	if args, ok := os.LookupEnv(strayChildEnv); ok {
		strayMain(strings.Fields(args))
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to start a child with")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      string
		quoted    []string // in one THIRD_PARTY_STDOUT warning
		attribute bool     // on stderr, attributed
	}{
		{"prose", "print", []string{"initialized", "raw write", "from a child"}, false},
		{"a JSON document", "json", nil, false},
		{"under --debug", "print --debug", []string{"initialized", "raw write", "from a child"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run=^TestStrayOutputProcess$")
			cmd.Env = []string{strayChildEnv + "=" + tt.args, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
				"APP_OUTPUT=json", "STRAY_SH=" + sh}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
			if string(w.Data) != `{"id":"run-99"}` {
				t.Errorf("data %s, want the result alone", w.Data)
			}
			var stray []string
			for _, warning := range w.Warnings {
				if strings.HasPrefix(warning, "THIRD_PARTY_STDOUT: ") {
					stray = append(stray, warning)
				}
			}
			if len(tt.quoted) == 0 {
				if len(stray) != 0 || strings.Contains(stdout.String(), `"second"`) {
					t.Errorf("a JSON document printed beside the answer: warnings %q, stdout %s", w.Warnings, stdout.String())
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
				if got := strings.Contains(stderr.String(), "[stdout, not the answer] "+q); got != tt.attribute {
					t.Errorf("%q attributed on stderr: %v, want %v; stderr:\n%s", q, got, tt.attribute, stderr.String())
				}
			}
		})
	}
}

// strayMain runs, with urfave.Main, an app whose one command writes to
// stdout behind Duet's back before it answers, and exits.
func strayMain(args []string) {
	app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "run",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Bool("json") {
				fmt.Println(`{"second": "answer"}`)
			} else {
				fmt.Println("initialized")                                              // the runtime's stdout
				syscall.Write(1, []byte("raw write\n"))                                 // the descriptor itself, as native code would
				child := exec.Command(os.Getenv("STRAY_SH"), "-c", "echo from a child") // a child inherits it
				child.Stdout = os.Stdout
				if err := child.Run(); err != nil {
					return err
				}
			}
			return envelope.From(ctx).Result(map[string]string{"id": "run-99"})
		}}, schema.Meta{Danger: schema.Safe})}}
	cmdline := []string{"app", "run"}
	for _, a := range args {
		switch a {
		case "json":
			cmdline = append(cmdline, "--json")
		case "print":
		default:
			cmdline = append(cmdline, a)
		}
	}
	os.Args = cmdline
	urfave.Main(app, urfave.WithSpecStrict())
}
