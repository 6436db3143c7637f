package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// artifacts is `duet-check artifacts`, the CLI Agent Spec's O-045 held to a
// Duet tool: no command or flag name in an integration artifact it
// generates is absent from its --help.
func artifacts() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:      "artifacts",
		Usage:     "Check that every command and flag the tool's AGENTS.md, MCP tool list and skill files name is in its --help",
		ArgsUsage: "<binary> [args...]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			reports, err := conformance.CheckArtifacts(ctx, conformance.Target{Path: args[0], Args: args[1:]})
			if err != nil {
				return envelope.Errorf(exitcode.GeneralError, "CHECK_FAILED", "%w", err)
			}
			bad := 0
			for _, r := range reports {
				bad += len(r.Mismatches)
			}
			out := envelope.From(ctx)
			out.RenderText(func(w io.Writer) error {
				for _, r := range reports {
					for _, m := range r.Mismatches {
						if _, err := fmt.Fprintf(w, "- %s: %s %s: %s\n", r.Artifact, m.Kind, m.Name, m.Detail); err != nil {
							return err
						}
					}
				}
				_, err := fmt.Fprintf(w, "%d artifacts, %d mismatches\n", len(reports), bad)
				return err
			})
			out.Result(reports)
			if bad > 0 {
				return envelope.Errorf(stale, "ARTIFACTS_STALE", "%d names in %s's artifacts are not in its --help", bad, args[0]).
					WithSuggestion("regenerate the artifacts with the binary they describe").WithResult()
			}
			return nil
		},
	}, schema.Meta{
		Danger:  schema.Safe,
		Output:  schema.Of[[]conformance.ArtifactReport](),
		Timeout: schema.NoTimeout,
		Args: []schema.Arg{
			{Name: "binary", Usage: "the Duet tool whose artifacts to check", Required: true},
			{Name: "args", Usage: "fixed leading arguments", Variadic: true},
		},
		ExitCodes: exitcode.Table{stale: {
			Name: "ARTIFACTS_STALE", Description: "The check ran; an artifact names what --help does not.", SideEffects: exitcode.None,
		}},
		Examples: []schema.Example{{Description: "check in CI", Command: "artifacts ./mytool"}},
	})
}
