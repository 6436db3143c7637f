package envelope

import (
	"fmt"
	"strconv"
)

// What the lifecycle can see a command change. Exit code 2 promises that
// nothing changed (the CLI Agent Spec's REQ-F-002): an agent corrects its
// input and calls again, with nothing to clean up. A command that reports
// invalid input after it changed something breaks that promise, and the
// lifecycle answers it with exit code 1 instead — when it can see the
// change. It sees what goes through the Output (listed by
// [Output.Changes]), and the lifecycle adds what it watches itself: the
// programs started through package proc and the files the command declares
// it writes (schema.Meta.SideEffects).
//
// It does not see what a command does on its own: a file written with
// package os to a path it did not declare, a request sent, a row written to
// a database. A command that may fail its input after doing any of those
// must check that input before it acts — in schema.Meta.Validate, which
// --validate-only runs too — or report the change (Output.Effect) first.

// Changes lists what the command did through its Output that outlasts the
// invocation, or nothing: an effect other than noop, outside a dry run
// ([Output.Effect]); a file kept for the caller ([Output.OutputFile]); a
// step completed ([Output.Step]) or an undo registered ([Output.Undo]),
// which say there is something to undo; a background process recorded
// ([Output.Background]). The session's temporary directory
// ([Output.TempDir], [Output.TempFile]) is not a change: the lifecycle
// removes it before it answers. Each entry says what was seen, for a
// message: "kept the file /tmp/…/todos.json".
func (o *Output) Changes() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var seen []string
	if o.effect != "" && o.effect != Noop && !o.s.DryRun {
		seen = append(seen, "reported the effect "+string(o.effect))
	}
	for _, path := range o.kept {
		seen = append(seen, "kept the file "+path)
	}
	for _, r := range o.work.runs {
		if r.state == stepDone {
			seen = append(seen, fmt.Sprintf("completed the step %q", r.name))
		}
	}
	if o.work.undoHooks > 0 {
		seen = append(seen, "registered "+strconv.Itoa(o.work.undoHooks)+" undo hook(s), so there was something to undo")
	}
	if len(o.background) > 0 {
		seen = append(seen, "left a background process running")
	}
	return seen
}
