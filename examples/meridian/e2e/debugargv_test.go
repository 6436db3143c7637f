//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDebugLogsProgramArgv: REQ-F-062: under --debug (or MERIDIAN_DEBUG=1)
// every program a command starts is logged on stderr, one JSON line with
// "msg":"run" whose "argv" is the program's command line as a JSON array —
// so that the quoting shows — with its program first. `run spawn` starts
// one program: meridian's supervisor, `meridian __supervise <run dir>`,
// which starts the harness in a process of its own (its argv is the run's
// launch.json, checked here against the harness the answer names). Nothing
// meridian passes is secret-named, so only the array's shape and content
// are checked.
func TestDebugLogsProgramArgv(t *testing.T) {
	exe, err := filepath.EvalSymlinks(bin) // as os.Executable names it
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   []string
		flags []string
	}{
		{"--debug", nil, []string{"--debug"}},
		{"MERIDIAN_DEBUG=1", []string{"MERIDIAN_DEBUG=1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			args := append([]string{"run", "spawn", "-p", "Say hello", "-m", "sonnet", "--wait"}, tt.flags...)
			e, r := sb.agent(t, sb.with(tt.env...), args...)
			if !e.OK {
				t.Fatalf("meridian %q failed (exit %d): %+v\nstderr %s", args, r.code, e.Error, r.stderr)
			}
			var d struct {
				Dir, Harness, Status string
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			if d.Status != "succeeded" || d.Harness != "claude" || d.Dir == "" {
				t.Fatalf("premise: the run %+v did not succeed on claude", d)
			}

			var started [][]string
			for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
				var rec struct {
					Msg  string          `json:"msg"`
					Argv json.RawMessage `json:"argv"`
				}
				if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "run" {
					continue
				}
				var argv []string
				if err := json.Unmarshal(rec.Argv, &argv); err != nil {
					// A string holding the array's JSON text is not the array:
					// a reader of the trace must decode it a second time, and
					// the quoting shows escaped.
					var text string
					if json.Unmarshal(rec.Argv, &text) != nil || json.Unmarshal([]byte(text), &argv) != nil {
						t.Errorf("argv %s is not a JSON array of strings", rec.Argv)
						continue
					}
					t.Errorf("argv is a JSON string holding an array, %s, not a JSON array", rec.Argv)
				}
				started = append(started, argv)
			}
			want := [][]string{{exe, "__supervise", d.Dir}}
			if diff := cmp.Diff(want, started); diff != "" {
				t.Errorf("the programs --debug logged (-want +got):\n%s\nstderr:\n%s", diff, r.stderr)
			}

			// The harness the supervisor started is the one the answer names.
			var launch struct{ Args []string }
			raw, err := os.ReadFile(filepath.Join(d.Dir, "launch.json"))
			if err == nil {
				err = json.Unmarshal(raw, &launch)
			}
			if err != nil || len(launch.Args) == 0 || filepath.Base(launch.Args[0]) != d.Harness {
				t.Errorf("launch.json %s does not start %s: %v", raw, d.Harness, err)
			}
		})
	}
}
