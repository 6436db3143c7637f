package app

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// gitIdentity lets git record a tag or a commit in a repository with no
// user configured.
var gitIdentity = []string{"-c", "user.name=e2eapp", "-c", "user.email=e2eapp@example.invalid"}

// childCommands are the commands that start programs: hooks, git, shell
// aliases, pipelines and streams read from a pipe.
func childCommands() []*cli.Command {
	check := urfave.Annotate(&cli.Command{
		Name:      "check",
		Usage:     "Run a health-check hook (a program) and report what it printed",
		ArgsUsage: "<hook>",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "direct", Usage: "start the hook with os/exec, as a library that does not know Duet would"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			hook := c.Args().First()
			var out []byte
			var err error
			if c.Bool("direct") {
				//duetvet:allow rawexec -- started as a third-party library would, to show what the process's own environment gives a child
				out, err = exec.CommandContext(ctx, hook).Output()
			} else {
				out, err = proc.Command(ctx, hook).Output()
			}
			if err != nil {
				return hookFailed(hook, err)
			}
			return envelope.From(ctx).Result(map[string]string{"hook": hook, "output": string(out)})
		},
	}, schema.Meta{Danger: schema.Safe, Args: []schema.Arg{{Name: "hook", Required: true, Type: schema.String, Usage: "the hook program"}}})

	history := urfave.Annotate(&cli.Command{
		Name:  "history",
		Usage: "List a repository's latest commits (git log, paginated as a person would)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Usage: "the repository", Required: true},
			&cli.IntFlag{Name: "limit", Value: 5, Usage: "how many commits"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out, err := proc.Command(ctx, "git", "-C", c.String("repo"), "--paginate", "log", "--oneline", "-n", strconv.Itoa(int(c.Int("limit")))).Output()
			if err != nil {
				return hookFailed("git log", err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			return envelope.From(ctx).Result(map[string]any{"commits": lines})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Tools: map[string]string{"git": ""}})

	reword := urfave.Annotate(&cli.Command{
		Name:  "reword",
		Usage: "Amend the last commit of a repository, in the editor git opens",
		Flags: []cli.Flag{&cli.StringFlag{Name: "repo", Usage: "the repository", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := append(append([]string{}, gitIdentity...), "-C", c.String("repo"), "commit", "--amend", "--quiet")
			if out, err := proc.Command(ctx, "git", args...).CombinedOutput(); err != nil {
				return hookFailed("git commit --amend", fmt.Errorf("%w: %s", err, bytes.TrimSpace(out)))
			}
			head, err := proc.Command(ctx, "git", "-C", c.String("repo"), "rev-parse", "HEAD").Output()
			if err != nil {
				return hookFailed("git rev-parse", err)
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]string{"commit": strings.TrimSpace(string(head))})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Tools: map[string]string{"git": ""}})

	tag := urfave.Annotate(&cli.Command{
		Name:      "tag",
		Usage:     "Tag the repository's HEAD with an annotated tag",
		ArgsUsage: "<name>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Usage: "the repository", Required: true},
			&cli.StringFlag{Name: "message", Usage: "the tag's message, any text", Required: true},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := append(append([]string{}, gitIdentity...), "-C", c.String("repo"), "tag", "-a", c.Args().First(), "-m", c.String("message"))
			if out, err := proc.Command(ctx, "git", args...).CombinedOutput(); err != nil {
				return hookFailed("git tag", fmt.Errorf("%w: %s", err, bytes.TrimSpace(out)))
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(map[string]string{"tag": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Mutating,
		Subprocess: schema.Subprocess{Binary: "git", Hardcoded: []string{"tag", "-a"}},
		Args:       []schema.Arg{{Name: "name", Required: true, Type: schema.String, Usage: "the tag", Subprocess: true}}})

	alias := urfave.Annotate(&cli.Command{
		Name:  "alias-run",
		Usage: "Run a user-defined alias: a shell command line",
		Flags: []cli.Flag{&cli.StringFlag{Name: "line", Usage: "the alias's command line", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			// The way many tools run a "!"-alias: through a shell. proc
			// refuses it (SHELL_STRING_PROHIBITED) before anything starts.
			if err := proc.Command(ctx, "sh", "-c", c.String("line")).Run(); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]bool{"ran": true})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true})

	count := urfave.Annotate(&cli.Command{
		Name:      "count",
		Usage:     "Count a file's lines, or those matching --pattern (cat <file> | wc -l, or | grep -c)",
		ArgsUsage: "<file>",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "pattern", Usage: "count only the lines that match it"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			read := proc.Command(ctx, "cat", "--", c.Args().First())
			tally := proc.Command(ctx, "wc", "-l")
			if p := c.String("pattern"); p != "" {
				tally = proc.Command(ctx, "grep", "-c", "-e", p)
			}
			var counted bytes.Buffer
			tally.Stdout = &counted
			var failed *proc.PipelineError
			if err := proc.Pipeline(read, tally); errors.As(err, &failed) {
				return envelope.Errorf(exitcode.GeneralError, "PIPELINE_FAILED", "%v", failed).
					WithContext("stage", failed.Stage+1).
					WithContext("program", failed.Program).
					WithContext("stage_exit_code", failed.ExitCode()).
					WithSuggestion("check the file and the pattern")
			} else if err != nil {
				return err
			}
			n, err := strconv.Atoi(strings.TrimSpace(counted.String()))
			if err != nil {
				return fmt.Errorf("reading the count %q: %w", counted.String(), err)
			}
			return envelope.From(ctx).Result(map[string]int{"count": n})
		},
	}, schema.Meta{Danger: schema.Safe, Args: []schema.Arg{{Name: "file", Required: true, Type: schema.String, Usage: "the file"}}})

	events := urfave.Annotate(&cli.Command{
		Name:  "events",
		Usage: "Stream the events a service writes to a named pipe, one item a line",
		Flags: []cli.Flag{&cli.StringFlag{Name: "source", Usage: "the named pipe", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return streamLines(ctx, c.String("source"), nil)
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Streaming: true, LongRunning: true, Timeout: schema.NoTimeout})

	ingest := urfave.Annotate(&cli.Command{
		Name:  "ingest",
		Usage: "Stream events from a named pipe into a log file, one item a line",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Usage: "the named pipe", Required: true},
			&cli.StringFlag{Name: "into", Usage: "the log file", Required: true},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			f, err := os.OpenFile(c.String("into"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				return err
			}
			defer f.Close()
			envelope.From(ctx).Effect(envelope.Created)
			return streamLines(ctx, c.String("source"), f)
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Streaming: true, LongRunning: true, Timeout: schema.NoTimeout})

	return []*cli.Command{check, history, reword, tag, alias, count, events, ingest}
}

// streamLines streams each line of the named pipe path as an item, and
// appends it to copyTo when given, until the writer closes the pipe.
func streamLines(ctx context.Context, path string, copyTo *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return envelope.Errorf(exitcode.NotFound, "SOURCE_NOT_FOUND", "cannot open %s: %v", path, err)
	}
	defer f.Close()
	out := envelope.From(ctx)
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		if copyTo != nil {
			if _, err := fmt.Fprintln(copyTo, lines.Text()); err != nil {
				return err
			}
		}
		if err := out.Item(map[string]any{"n": n, "event": lines.Text()}); err != nil {
			return err
		}
	}
	return lines.Err()
}

// hookFailed is the error of a program that failed.
func hookFailed(what string, err error) error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e // proc's own refusal (EDITOR_REQUIRED, SHELL_STRING_PROHIBITED)
	}
	return envelope.Errorf(exitcode.GeneralError, "PROGRAM_FAILED", "%s failed: %v", what, err).
		WithSuggestion("see the program's message")
}
