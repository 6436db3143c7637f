// Command duet-check judges any command-line binary by the CLI Agent Spec,
// black-box (see package conformance), and is itself built on Duet: a person
// gets a table, an agent one envelope whose data is the report.
//
//	duet-check ./mytool
//	duet-check --long-running watch -- ./mytool --profile ci
//	duet-check agents-md AGENTS.md ./mytool
//	duet-check artifacts ./mytool
package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/profile"
	"github.com/duet-cli/duet/schema"
)

var version = "dev"

// nonconforming is the exit code of a check that found a required
// requirement failing.
const nonconforming exitcode.Code = 80

func main() {
	// The checker runs the binaries it judges: inside namespaces of their
	// own where the kernel allows, so that no probe reaches the network or
	// writes outside the sandbox. Its own audit log and profiles stay
	// writable.
	var own []string
	if audit := adapters.AuditLogPath("duet-check", os.Getenv); audit != "" {
		own = append(own, filepath.Dir(audit))
	}
	if profiles, err := profile.Path("duet-check", os.Getenv); err == nil {
		own = append(own, filepath.Dir(profiles))
	}
	if code, done := conformance.Isolate(own...); done {
		os.Exit(code)
	}
	urfave.Main(newApp(), adapters.WithVersion(version), adapters.WithSpecStrict())
}

func newApp() *cli.Command {
	check := urfave.Annotate(&cli.Command{
		Name:      "check",
		Usage:     "Run the conformance probes against a binary and report per requirement",
		ArgsUsage: "<binary> [args...]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "long-running", Usage: "a command (dot path) to send signals to; repeat for more"},
			&cli.StringSliceFlag{Name: "env", Usage: "KEY=value for the target's environment; repeat for more"},
			&cli.DurationFlag{Name: "probe-timeout", Value: 10 * time.Second, Usage: "kill a run of the target after this long"},
			&cli.IntFlag{Name: "max-commands", Value: 100, Usage: "crawl at most this many commands from --help"},
			&cli.DurationFlag{Name: "budget", Value: time.Minute, Usage: "spend at most this long on the whole check (the crawl of --help at most half); runs it leaves out are not judged"},
			&cli.StringSliceFlag{Name: "read-only", Usage: "a command line that only reads (\"status\", \"log -1\"), run as an agent and at a terminal; repeat for more"},
			&cli.BoolFlag{Name: "markdown", Usage: "render the report as a markdown scorecard (failure modes scored 0–3) rather than a table"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			target := conformance.Target{Path: args[0], Args: args[1:], Env: cmd.StringSlice("env")}
			report, err := conformance.Check(ctx, target, conformance.Options{
				ProbeTimeout: cmd.Duration("probe-timeout"),
				LongRunning:  cmd.StringSlice("long-running"),
				MaxCommands:  cmd.Int("max-commands"),
				Budget:       cmd.Duration("budget"),
				ReadOnly:     readOnly(cmd.StringSlice("read-only")),
			})
			if err != nil {
				return envelope.Errorf(exitcode.GeneralError, "CHECK_FAILED", "%w", err)
			}
			out := envelope.From(ctx)
			out.RenderText(func(w io.Writer) error {
				if cmd.Bool("markdown") {
					return report.WriteMarkdown(w)
				}
				return report.WriteTable(w, out.Mode().Color)
			})
			if err := out.Result(report); err != nil {
				return err
			}
			if !report.OK() {
				return envelope.Errorf(nonconforming, "NONCONFORMANT", "%s does not conform: %v", target.Path, report.Failed()).
					WithSuggestion("see each failing requirement's evidence in data.requirements").
					WithResult()
			}
			return nil
		},
	}, schema.Meta{
		Danger: schema.Safe,
		// What a CLI needs to be judged well (its read-only commands, its
		// long-running ones, the budget) is saved once with
		// `profile save <name> ...` and applied with --profile <name>.
		Flags: map[string]schema.FlagMeta{
			"read-only": {Profile: true}, "long-running": {Profile: true}, "env": {Profile: true},
			"budget": {Profile: true}, "probe-timeout": {Profile: true}, "max-commands": {Profile: true},
		},
		Output:  schema.Of[conformance.Report](),
		Timeout: schema.NoTimeout,
		Args:    []schema.Arg{{Name: "binary", Usage: "the program to check", Required: true}, {Name: "args", Usage: "fixed leading arguments", Variadic: true}},
		ExitCodes: exitcode.Table{nonconforming: {
			Name: "NONCONFORMANT", Description: "The check ran; a required requirement failed.", SideEffects: exitcode.None,
		}},
		Examples: []schema.Example{{Description: "check a binary", Command: "check ./mytool"}},
	})
	return &cli.Command{
		Name:     "duet-check",
		Usage:    "Check how well a command-line tool serves agents",
		Commands: []*cli.Command{check, agentsMD(), artifacts()},
	}
}

// readOnly splits each command line into its words, at spaces.
func readOnly(lines []string) [][]string {
	var out [][]string
	for _, l := range lines {
		if words := strings.Fields(l); len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}
