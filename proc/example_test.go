//go:build unix

package proc_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/duet-cli/duet/proc"
)

// A command's context carries its invocation's session (Duet's lifecycle
// sets it): the program gets no pager, a C locale and the trace id,
// whatever the environment said.
func ExampleCommand() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s := proc.NewSession(proc.Options{
		Tool: "demo", RequestID: "r1", TraceID: "t-42",
		Environ: []string{"PATH=" + os.Getenv("PATH"), "PAGER=less", "LC_ALL=de_DE.UTF-8"},
		TempDir: dir,
	})
	defer s.End()
	ctx := proc.NewContext(context.Background(), s)

	out, err := proc.Command(ctx, "printenv", "PAGER", "LC_ALL", "DEMO_TRACE_ID", "EDITOR").Output()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// cat
	// C
	// t-42
	// true
}

// A value headed for a program is refused when it holds a shell
// metacharacter: the error exits 2 and names the field and the character.
func ExampleCheckArg() {
	err := proc.CheckArg("repo", "https://example.com/r.git; rm -rf ~")
	fmt.Println(err)
	fmt.Println(proc.CheckArg("pattern", "*.json"))
	// Output:
	// SHELL_METACHARACTER: repo: "https://example.com/r.git; rm -rf ~" holds the shell metacharacter ';', which is refused in a value passed to a program
	// <nil>
}

// A shell command line is refused: proc runs a program with its arguments.
func ExampleCmd_Start() {
	err := proc.Command(context.Background(), "sh", "-c", "git log | head").Start()
	fmt.Println(err)
	// Output:
	// SHELL_STRING_PROHIBITED: sh is told to run a command line: proc runs a program with its arguments, never a shell
}

// A pipeline fails when any stage does, not only the last, as the shell's
// `set -o pipefail` has it: here cat succeeds, and the pipeline fails with
// false's exit code.
func ExamplePipeline() {
	ctx := context.Background()
	err := proc.Pipeline(proc.Command(ctx, "false"), proc.Command(ctx, "cat"))
	var failed *proc.PipelineError
	if errors.As(err, &failed) {
		fmt.Printf("stage %d of %d (%s) failed with exit code %d\n", failed.Stage+1, failed.Stages, failed.Program, failed.ExitCode())
	}
	// Output:
	// stage 1 of 2 (false) failed with exit code 1
}
