package adapters

import (
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// heldToTable holds an invocation's error to the exit code contract before it
// is answered:
//
//   - exit 2 promises that nothing changed (F-002). A command that reports
//     invalid input after it reported changing state — or marks the error
//     as from its execution — exits 1 instead, and a warning says why;
//   - every exit code is one the command's table declares, or a signal's
//     (F-001, C-001). An undeclared code exits 1 instead, and a warning
//     names it, so the table an agent read stays true.
//
// The error's code and message are the command's either way.
func (inv *invocation) heldToTable(fail *envelope.Error) *envelope.Error {
	if fail == nil || inv.out == nil {
		return fail
	}
	if fail.Exit == exitcode.ArgError && inv.ran.Load() && (fail.Phase == envelope.Execution || inv.out.Changed()) {
		inv.out.Warn("EXIT_2_AFTER_CHANGE",
			fmt.Sprintf("%s reported invalid input (%s) after it changed state, so it exits 1, not 2", inv.call.node.DotPath(), fail.Code),
			"check the input before acting: declare it, or check it in Meta.Validate")
		fail.Exit, fail.Phase = exitcode.GeneralError, envelope.Execution
	}
	switch fail.Exit {
	case exitcode.Success, exitcode.Interrupted, exitcode.Terminated:
		return fail
	}
	if _, ok := inv.call.node.ExitCodes()[fail.Exit]; !ok {
		inv.out.Warn("UNDECLARED_EXIT_CODE",
			fmt.Sprintf("%s failed with exit code %d, which its exit code table does not declare, so it exits 1", inv.call.node.DotPath(), int(fail.Exit)),
			fmt.Sprintf("declare code %d in the command's Meta.ExitCodes", int(fail.Exit)))
		fail.Exit = exitcode.GeneralError
	}
	return fail
}
