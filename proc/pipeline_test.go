//go:build unix

package proc_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/proc"
)

// TestPipeline: cmd1 | cmd2 with pipefail semantics — a failure of any
// stage fails the pipeline, with the first failing stage's code, whatever
// the last stage did; a stage that cannot start fails it too, without a
// hang (F-065).
func TestPipeline(t *testing.T) {
	for _, p := range []string{"printf", "tr", "cat", "false", "true"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name   string
		stages [][]string
		out    string
		stage  int // the failing stage, -1 for none
		exit   int
	}{
		{"all succeed", [][]string{{"printf", `a\nb\n`}, {"tr", "a-z", "A-Z"}, {"cat"}}, "A\nB\n", -1, 0},
		{"the first fails, the last succeeds", [][]string{{"false"}, {"cat"}}, "", 0, 1},
		{"a middle stage fails", [][]string{{"true"}, {"cat", missing}, {"cat"}}, "", 1, 1},
		{"the last fails", [][]string{{"true"}, {"false"}}, "", 1, 1},
		{"the first reads a missing file", [][]string{{"cat", missing}, {"tr", "a", "b"}}, "", 0, 1},
		{"a stage cannot start", [][]string{{"printf", "x"}, {missing}}, "", 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, _ := session(t, proc.Options{})
			cmds := make([]*proc.Cmd, len(tt.stages))
			for i, argv := range tt.stages {
				cmds[i] = proc.Command(ctx, argv[0], argv[1:]...)
			}
			var out bytes.Buffer
			cmds[len(cmds)-1].Stdout = &out
			err := proc.Pipeline(cmds...)
			if diff := cmp.Diff(tt.out, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			var pe *proc.PipelineError
			switch {
			case tt.stage < 0 && err != nil:
				t.Fatalf("err %v, want success", err)
			case tt.stage < 0:
			case !errors.As(err, &pe):
				t.Fatalf("err %v, want a *proc.PipelineError", err)
			case pe.Stage != tt.stage || pe.ExitCode() != tt.exit || pe.Stages != len(tt.stages) || pe.Program != tt.stages[tt.stage][0]:
				t.Errorf("error %+v (exit %d), want stage %d exit %d", pe, pe.ExitCode(), tt.stage, tt.exit)
			}
		})
	}
	if err := proc.Pipeline(); err == nil {
		t.Error("an empty pipeline succeeded")
	}
}
