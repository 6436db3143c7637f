// Package run is what Meridian's run commands do: plan a run (resolve the
// agent profile, model, harness, skills and files, compose the prompt) with
// no side effect, start it under a supervisor process that outlives the CLI,
// continue a run's harness conversation, and read the runs back — list, show,
// stats, wait.
//
// A run's life, in files of its space (see package state):
//
//	runs.jsonl            start event, an update when the harness session id
//	                      appears, the finalize event
//	runs/<id>/run.lock    held by the supervisor until the run is finalized
//	runs/<id>/input.md    the composed prompt, fed to the harness's stdin
//	runs/<id>/launch.json how the supervisor starts the harness
//	runs/<id>/output/     stdout.jsonl (the event stream), stderr.log, report.md
//
// `run wait` blocks on run.lock, so it wakes the moment a supervisor ends —
// normally after the finalize event, or at its death, which `doctor` then
// finalizes as orphaned.
package run

import (
	"strings"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
)

// EnvChat names the chat (c1, c2 ...) a command runs in, set by `meridian start`.
const EnvChat = "MERIDIAN_SESSION_ID"

// Runner does what the run commands do, in one project.
type Runner struct {
	Project project.Project
	Config  *config.Loaded
	Now     func() time.Time
	Exe     string   // the program that supervises a run: meridian itself
	Env     []string // the environment the supervisor and the harness inherit
	Chat    string   // MERIDIAN_SESSION_ID
	Dir     string   // the working directory --file paths are relative to
}

// Codes are the exit codes the run commands declare.
var Codes = exitcode.Table{
	exitcode.NotFound:     {Description: "The space, run, agent profile, skill or model does not exist."},
	exitcode.Precondition: {Description: "No space is set, the harness is not installed, or the run has no harness session to continue."},
}

// Getenv reads the environment runs get.
func (r *Runner) Getenv(key string) string {
	for i := len(r.Env) - 1; i >= 0; i-- { // the last of a duplicated key wins, as in exec
		if k, v, ok := strings.Cut(r.Env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) runs(sp state.Space) state.Runs {
	return state.Runs{Dir: r.Project.State.SpaceDir(sp.ID)}
}
