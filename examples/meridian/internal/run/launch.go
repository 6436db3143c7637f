package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/proc"
)

// SupervisorArg is the first argument that makes the meridian binary a run's
// supervisor instead of the CLI: `meridian __supervise <run-dir>`. It is not
// a command of the CLI; nobody types it.
const SupervisorArg = "__supervise"

// Files of a run directory, runs/<id>/.
const (
	inputFile  = "input.md"    // the composed prompt, as the harness got it
	launchFile = "launch.json" // how to start the harness: written by the CLI, read by the supervisor
	logFile    = "supervisor.log"
	pidFile    = "supervisor.pid" // the supervisor's pid, for run cancel
	outputDir  = "output"         // what the harness produced
	stdoutFile = "stdout.jsonl"   // in output/: the harness's event stream, as it came
	stderrFile = "stderr.log"     // in output/
	reportFile = "report.md"      // in output/: the run's report
)

// Launch is launch.json: everything the supervisor needs to run the
// harness, so that it depends on nothing but the run directory (which says
// which run of which space it is).
type Launch struct {
	V         int      `json:"v"`
	Harness   string   `json:"harness"`
	Args      []string `json:"args"`
	Env       []string `json:"env"`             // added to the supervisor's environment
	Dir       string   `json:"dir"`             // the harness's working directory
	Stdin     string   `json:"stdin,omitempty"` // a file of the run directory fed to stdin
	ResumeID  string   `json:"resume_id,omitempty"`
	TimeoutMS int64    `json:"timeout_ms"` // 0: none
	GraceMS   int64    `json:"kill_grace_ms"`
}

func (l Launch) timeout() time.Duration { return time.Duration(l.TimeoutMS) * time.Millisecond }
func (l Launch) grace() time.Duration   { return time.Duration(l.GraceMS) * time.Millisecond }

func writeLaunch(dir string, l Launch) error {
	raw, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, launchFile), append(raw, '\n'), 0o644)
}

func readLaunch(dir string) (Launch, error) {
	var l Launch
	raw, err := os.ReadFile(filepath.Join(dir, launchFile))
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return l, fmt.Errorf("%s: %w", launchFile, err)
	}
	if l.V != 1 || len(l.Args) == 0 || l.Harness == "" {
		return l, fmt.Errorf("%s: incomplete (v %d, %d args, harness %q)", launchFile, l.V, len(l.Args), l.Harness)
	}
	return l, nil
}

// startSupervisor starts `exe __supervise dir` in the background, in a
// session of its own (proc.Cmd.Background), so that it outlives the CLI and
// no terminal signal meant for the CLI reaches it; the command that starts
// it declares so (schema.Meta.Background), and the invocation's PID file
// lists it. It inherits the run's liveness lock as fd 3 and holds it until
// the run is finalized. Its pid goes in supervisor.pid, where run cancel
// finds it.
func startSupervisor(ctx context.Context, exe, dir string, env []string, hold *state.Hold) (*proc.Cmd, error) {
	log, err := os.OpenFile(filepath.Join(dir, logFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := proc.Command(ctx, exe, SupervisorArg, dir)
	cmd.Background = true
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{hold.File()}
	// proc reaps it if it ends before this process (a --wait that was
	// interrupted); otherwise init does.
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the supervisor: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		warn(ctx, "RUN_NOT_CANCELLABLE", fmt.Sprintf("the supervisor's pid could not be recorded (%v): 'meridian run cancel' cannot stop this run", err),
			"wait for the run, or let its time limit end it")
	}
	return cmd, nil
}
