package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// stale is the exit code of an AGENTS.md that does not match its binary.
const stale exitcode.Code = 81

// agentsMD is `duet-check agents-md`, the CI step of the CLI Agent Spec's
// O-046: an AGENTS.md held to the binary it documents.
func agentsMD() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:      "agents-md",
		Usage:     "Check that an AGENTS.md matches the binary it documents: version, sections, flags, commands and variables",
		ArgsUsage: "<AGENTS.md> <binary> [args...]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			doc, err := os.ReadFile(args[0])
			if err != nil {
				return envelope.Errorf(exitcode.ArgError, "AGENTS_MD_UNREADABLE", "%v", err).
					WithField("agents-md").WithPhase(envelope.Validation)
			}
			target := conformance.Target{Path: args[1], Args: args[2:]}
			report, err := conformance.CheckAgentsMD(ctx, target, doc)
			if err != nil {
				return envelope.Errorf(exitcode.GeneralError, "CHECK_FAILED", "%w", err)
			}
			out := envelope.From(ctx)
			out.RenderText(func(w io.Writer) error { return report.WriteDiff(w) })
			out.Result(report)
			if !report.OK() {
				return envelope.Errorf(stale, "AGENTS_MD_STALE", "%s does not match %s: %d mismatches", args[0], args[1], len(report.Mismatches)).
					WithSuggestion(fmt.Sprintf("regenerate it with '%s describe --agents-md > %s'", args[1], args[0])).WithResult()
			}
			return nil
		},
	}, schema.Meta{
		Danger:  schema.Safe,
		Output:  schema.Of[conformance.AgentsMDReport](),
		Timeout: schema.NoTimeout,
		Args: []schema.Arg{
			{Name: "agents-md", Usage: "the AGENTS.md file", Required: true},
			{Name: "binary", Usage: "the program it documents", Required: true},
			{Name: "args", Usage: "fixed leading arguments", Variadic: true},
		},
		ExitCodes: exitcode.Table{stale: {
			Name: "AGENTS_MD_STALE", Description: "The check ran; AGENTS.md does not match the binary.", SideEffects: exitcode.None,
		}},
		Examples: []schema.Example{{Description: "check in CI", Command: "agents-md AGENTS.md ./mytool"}},
	})
}
