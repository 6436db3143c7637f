package adapters

import (
	"fmt"
	"os"
)

// keepWorkdir notes the process's working directory before a command runs,
// and returns what puts it back afterwards (F-041): a command that changed
// directory, or a library it called, would leave every relative path after
// it — an MCP server's next call, a test's next case — pointing elsewhere.
// The change is undone and reported as a warning, for the author to build
// absolute paths instead (duetvet flags os.Chdir where it is written).
func (inv *invocation) keepWorkdir() (restore func()) {
	before, err := os.Getwd()
	if err != nil {
		return func() {}
	}
	return func() {
		after, err := os.Getwd()
		if err == nil && after == before {
			return
		}
		//duetvet:allow chdir -- undoes the command's own change
		if err := os.Chdir(before); err != nil {
			inv.out.Warn("CWD_CHANGED", fmt.Sprintf("%s changed the working directory, and it could not be changed back to %s: %v", inv.call.node.DotPath(), before, err), "build absolute paths instead of changing directory")
			return
		}
		inv.out.Warn("CWD_CHANGED", fmt.Sprintf("%s changed the working directory to %s; it was changed back to %s", inv.call.node.DotPath(), after, before), "build absolute paths instead of changing directory")
	}
}
