package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// PipelineError is the failure of one stage of a [Pipeline].
type PipelineError struct {
	Stage   int    // the failing stage, from 0
	Stages  int    // how many the pipeline has
	Program string // the stage's program, as named
	Err     error  // why it failed: an *exec.ExitError, or why it did not start
}

func (e *PipelineError) Error() string {
	return fmt.Sprintf("pipeline stage %d of %d (%s): %v", e.Stage+1, e.Stages, e.Program, e.Err)
}

func (e *PipelineError) Unwrap() error { return e.Err }

// ExitCode is the failing stage's exit code, as the shell's pipefail
// reports it: 128+n for a stage a signal killed, -1 for one that did not
// start.
func (e *PipelineError) ExitCode() int {
	var exit *exec.ExitError
	if !errors.As(e.Err, &exit) {
		return -1
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return exit.ExitCode()
}

// Pipeline runs cmds as the shell runs cmd1 | cmd2 | ..., with no shell:
// each one's standard output is the next one's standard input. It starts
// them all, waits for all, and fails as `set -o pipefail` does — when any
// stage fails, not only the last: the error is a *PipelineError naming the
// first stage that failed (the cause, where the stages after it failed for
// want of its output). The first stage's Stdin and the last one's Stdout
// are the caller's to set; the ones between must be nil. When a stage
// cannot start, the ones started already are stopped.
func Pipeline(cmds ...*Cmd) error {
	if len(cmds) == 0 {
		return errors.New("proc: an empty pipeline")
	}
	for i, c := range cmds {
		if i > 0 && c.Stdin != nil || i < len(cmds)-1 && c.Stdout != nil {
			return fmt.Errorf("proc: pipeline stage %d (%s) has its own stdin or stdout", i+1, c.Args[0])
		}
	}
	fail := func(i int, err error) *PipelineError {
		return &PipelineError{Stage: i, Stages: len(cmds), Program: cmds[i].Args[0], Err: err}
	}
	var in *os.File // the read end of the pipe from the stage before
	started := 0
	for i, c := range cmds {
		var out, nextIn *os.File
		if i < len(cmds)-1 {
			r, w, err := os.Pipe()
			if err != nil {
				closeFile(in)
				return abandon(cmds[:started], fail(i, err))
			}
			c.Stdout, out, nextIn = w, w, r
		}
		if in != nil {
			c.Stdin = in
		}
		err := c.Start()
		closeFile(in) // the stage has its own copies of its ends
		closeFile(out)
		in = nextIn
		if err != nil {
			closeFile(in)
			return abandon(cmds[:started], fail(i, err))
		}
		started++
	}
	var first *PipelineError
	for i, c := range cmds {
		if err := c.Wait(); err != nil && first == nil {
			first = fail(i, err)
		}
	}
	if first != nil {
		return first
	}
	return nil
}

// abandon stops the stages started before one failed to, waits for them,
// and returns err.
func abandon(started []*Cmd, err error) error {
	for _, c := range started {
		c.stop(syscall.SIGTERM)
	}
	for _, c := range started {
		c.Wait()
	}
	return err
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}
