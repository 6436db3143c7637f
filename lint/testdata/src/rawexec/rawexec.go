// Package rawexec is what duetvet's rawexec analyzer is tested on: each
// line it must report carries a want comment.
package rawexec

import (
	"context"
	"os"
	"os/exec"
	"syscall"

	"github.com/duet-cli/duet/proc"
)

func start(ctx context.Context, name string) error {
	_ = exec.Command(name, "-n")                            // want `exec.Command starts a program outside package proc`
	_ = exec.CommandContext(ctx, "sh", "-c", name)          // want `exec.CommandContext starts a program outside package proc`
	_, _ = os.StartProcess(name, nil, &os.ProcAttr{})       // want `os.StartProcess starts a program outside package proc`
	_, _ = syscall.ForkExec(name, nil, &syscall.ProcAttr{}) // want `syscall.ForkExec starts a program outside package proc`
	_ = syscall.Exec(name, []string{name}, nil)             // want `syscall.Exec starts a program outside package proc`
	//duetvet:allow rawexec -- a build step of the tool's own tests
	_ = exec.Command("go", "version")
	_, _ = exec.LookPath(name) // finding a program starts nothing
	return proc.Command(ctx, name, "-n").Run()
}
