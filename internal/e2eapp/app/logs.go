package app

import (
	"context"
	"errors"
	"os/exec"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// logsCommands are the commands that talk on stderr: `logs provision` runs
// a playbook (a program) whose log a person reads later, declared as a
// child log (schema.Meta.ChildLog), and `logs build` runs one the same way
// without the declaration. Both report progress and log through Duet at
// each level, so that what reaches stderr shows who Duet thinks watches.
func logsCommands() []*cli.Command {
	return []*cli.Command{{
		Name:  "logs",
		Usage: "Run programs whose output is a log",
		Commands: []*cli.Command{
			wrappedCommand("provision", "Run a playbook (a program); its log streams to stderr", true),
			wrappedCommand("build", "Run a build script (a program); its output is not this tool's to show", false),
		},
	}}
}

// logsOptions are the Duet options the logs commands need.
func logsOptions() []urfave.Option { return nil }

// wrappedCommand runs the program its argument names with the program's
// output on envelope.Output.ChildLog, and answers with the program's name.
func wrappedCommand(name, usage string, childLog bool) *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "<program>",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "report-error", Usage: "log an error-level line before running the program"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			log := out.Logger()
			program := c.Args().First()
			out.Progress("starting "+program, 0, 1)
			log.Info("running the program", "program", program)
			log.Debug("the program's environment is ready")
			if c.Bool("report-error") {
				log.Error("host db is unreachable; running anyway")
			}
			w := out.ChildLog()
			defer w.Close()
			cmd := proc.Command(ctx, program)
			cmd.Stdout, cmd.Stderr = w, w
			if err := cmd.Run(); err != nil {
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					return envelope.Errorf(exitcode.GeneralError, "PROGRAM_FAILED", "%s exited with %d", program, exit.ExitCode())
				}
				return envelope.Errorf(exitcode.NotFound, "PROGRAM_NOT_FOUND", "cannot run %s: %v", program, err)
			}
			out.Progress("finished "+program, 1, 1)
			return out.Result(map[string]string{"program": program})
		},
	}, schema.Meta{
		Danger:   schema.Safe,
		ChildLog: childLog,
		Args:     []schema.Arg{{Name: "program", Required: true, Type: schema.String, Usage: "the program to run"}},
	})
}
