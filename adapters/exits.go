package adapters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// heldToTable holds an invocation's error to the exit code contract before it
// is answered:
//
//   - exit 2 promises that nothing changed (F-002). A command that reports
//     invalid input after a change the lifecycle sees — an effect it
//     reported, a file it kept for the caller, a step it completed or an
//     undo it registered, a program it started (unless it is declared
//     safe), a background process left running, a file it declares it
//     writes that changed (see seenChanges) — or that marks the error as
//     from its execution, exits 1 instead, and an EXIT_2_AFTER_CHANGE
//     warning says what was seen. A change the command makes on its own,
//     to a path it did not declare, is not seen: a command checks its
//     input before it acts, in Meta.Validate;
//   - every exit code is one the command's table declares, or a signal's
//     (F-001, C-001). An undeclared code exits 1 instead, and a warning
//     names it, so the table an agent read stays true — but for the app's
//     own code (appExit), which a script gets too: it is kept, and the
//     warning names it;
//   - an error code is one its exit's entry lists, when the entry lists
//     them (ExitCodeEntry.error_codes, C-001). One it does not list is
//     answered as it is — the code is what the agent branches on — with
//     an UNDECLARED_ERROR_CODE warning that tells the author.
//
// The error's code and message are the command's either way.
func (inv *invocation) heldToTable(fail *envelope.Error) *envelope.Error {
	if fail == nil || inv.out == nil || inv.isDelegatedExit(fail) {
		return fail // a delegated tool's code is outside the table (REQ-C-031)
	}
	if fail.Exit == exitcode.ArgError && inv.ran.Load() {
		seen := inv.seenChanges()
		when := ""
		switch {
		case len(seen) > 0:
			when = "after it " + strings.Join(seen, ", ")
		case fail.Phase == envelope.Execution:
			when = "as an error of its execution, when it may have changed state"
		}
		if when != "" {
			inv.out.Warn(exit2AfterChange,
				fmt.Sprintf("%s reported invalid input (%s) %s, so it exits 1, not 2: exit 2 promises that nothing changed", inv.call.node.DotPath(), fail.Code, when),
				"check the input before acting: declare it, or check it in Meta.Validate")
			fail.Exit, fail.Phase = exitcode.GeneralError, envelope.Execution
		}
	}
	switch fail.Exit {
	case exitcode.Success, exitcode.Interrupted, exitcode.Terminated:
		return fail
	}
	table := inv.call.node.ExitCodes()
	if _, ok := table[fail.Exit]; !ok && inv.ownExit {
		// The app's own code, which a script gets too: kept, and named.
		inv.out.Warn("UNDECLARED_EXIT_CODE",
			fmt.Sprintf("%s exited with code %d, the app's own, which its exit code table does not declare", inv.call.node.DotPath(), int(fail.Exit)),
			fmt.Sprintf("declare code %d in the command's Meta.ExitCodes", int(fail.Exit)))
	} else if !ok {
		inv.out.Warn("UNDECLARED_EXIT_CODE",
			fmt.Sprintf("%s failed with exit code %d, which its exit code table does not declare, so it exits 1", inv.call.node.DotPath(), int(fail.Exit)),
			fmt.Sprintf("declare code %d in the command's Meta.ExitCodes", int(fail.Exit)))
		fail.Exit = exitcode.GeneralError
	}
	if listed := table[fail.Exit].ErrorCodes; listed != nil && !slices.Contains(listed, fail.Code) {
		promise := "lists " + strings.Join(listed, ", ")
		if len(listed) == 0 {
			promise = "says it carries no error.code"
		}
		inv.out.Warn("UNDECLARED_ERROR_CODE",
			fmt.Sprintf("%s failed with error code %s under exit %d, whose entry %s", inv.call.node.DotPath(), fail.Code, int(fail.Exit), promise),
			fmt.Sprintf("add %s to the error_codes of exit %d in the command's Meta.ExitCodes", fail.Code, int(fail.Exit)))
	}
	return fail
}

// exit2AfterChange is the code of the warning of a command that reported
// invalid input after it changed something, and exits 1 instead of 2.
const exit2AfterChange = "EXIT_2_AFTER_CHANGE"

// fixChecked drops an error's fix_command when it is not one an agent can
// run verbatim and safely (C-030): one with a placeholder (<id>, $TOKEN,
// {name}), one that does not name a command of this tool, or one that runs
// a destructive command other than as a dry run. fix_required keeps the
// condition, and a warning tells the author.
func (inv *invocation) fixChecked(fail *envelope.Error) *envelope.Error {
	if fail == nil || fail.FixCommand == "" || inv.out == nil {
		return fail
	}
	if why := inv.unsafeFix(fail.FixCommand); why != "" {
		inv.out.Warn("FIX_COMMAND_DROPPED", fmt.Sprintf("the fix_command %q of %s was left out: %s", fail.FixCommand, fail.Code, why),
			"give a fix_command only when one safe command, run as it is, resolves the error")
		fail.FixCommand = ""
	}
	return fail
}

// unsafeFix says why line is not a safe, verbatim fix_command, or "".
func (inv *invocation) unsafeFix(line string) string {
	if strings.ContainsAny(line, "<>$`{}") {
		return "it holds a placeholder or shell syntax"
	}
	words := strings.Fields(line)
	if len(words) == 0 || words[0] != inv.root.Name {
		return "it does not run " + inv.root.Name
	}
	node := inv.root
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") {
			break
		}
		sub := node.Sub(w)
		if sub == nil {
			break
		}
		node = sub
	}
	if !node.Runnable {
		return "it names no command of " + inv.root.Name
	}
	if node.Danger() == schema.Destructive && !slices.Contains(words, "--"+flagname.DryRun) {
		return node.DotPath() + " is destructive"
	}
	return ""
}
