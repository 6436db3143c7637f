package proc

import (
	"bytes"
	"errors"
	"os/exec"
	"syscall"
	"unicode/utf8"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// ExitError is how [Cmd.Output] fails when the program ran and did not
// exit 0: the *exec.ExitError (its Stderr holds what the program wrote
// there), with the program's name. Its message is the *exec.ExitError's,
// and errors.As finds the *exec.ExitError through it.
//
// A command that returns it answers SUBPROCESS_FAILED (exit 1), with
// error.context holding the program, its exit code and the tail of its
// stderr. The stderr is the program's, not the tool's: the context is
// marked external (the CLI Agent Spec's REQ-F-035), so an agent is told not
// to follow what it says, and the tokens in it are masked.
type ExitError struct {
	Program string // the program, as named to Command
	*exec.ExitError
}

// Unwrap returns the *exec.ExitError.
func (e *ExitError) Unwrap() error { return e.ExitError }

// maxStderrTail bounds the stderr an envelope carries: the end of it, where
// a program says why it failed.
const maxStderrTail = 4 << 10

// Envelope is the structured failure an agent gets (see [envelope.As]).
func (e *ExitError) Envelope() *envelope.Error {
	code := e.ExitCode()
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal()) // as a shell reports it
	}
	out := envelope.Errorf(exitcode.GeneralError, "SUBPROCESS_FAILED", "%s exited %d", e.Program, code).
		WithPhase(envelope.Execution).
		WithContext("command", e.Program).
		WithContext("exit_code", code)
	if tail := stderrTail(e.Stderr); tail != "" {
		out = out.WithContext("stderr", tail).WithExternalContext("stderr")
	}
	return out
}

// stderrTail is the last maxStderrTail bytes of stderr, from a line's
// start where one falls in them, trimmed.
func stderrTail(stderr []byte) string {
	if len(stderr) > maxStderrTail {
		stderr = stderr[len(stderr)-maxStderrTail:]
		if i := bytes.IndexByte(stderr, '\n'); i >= 0 {
			stderr = stderr[i+1:]
		}
		for len(stderr) > 0 && !utf8.RuneStart(stderr[0]) {
			stderr = stderr[1:]
		}
	}
	return string(bytes.TrimSpace(stderr))
}

// exitError wraps err in an *ExitError when the program ran and failed of
// itself: one stopped because the command's context was done is left as it
// was, for the lifecycle to answer as the timeout or the cancellation.
func (c *Cmd) exitError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && err == error(exit) && c.ctx.Err() == nil {
		return &ExitError{Program: c.Args[0], ExitError: exit}
	}
	return err
}
