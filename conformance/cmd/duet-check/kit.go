package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// kitCommand is `duet-check kit`, the spec's own conformance kit
// (conformance/run.py) in Go: the same profile, checks and verdicts, and
// the spec's ConformanceResult, whose checks also list every run they rest
// on. Like the kit, it runs what the profile names, in the caller's
// environment and working directory, outside the checker's namespaces: the
// profile's author chose those commands and the sandbox they act on.
func kitCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:      kitName,
		Usage:     "Run the CLI Agent Spec's conformance kit on a profile (conformance-profile.json) and report its levels",
		ArgsUsage: "<profile.json>",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "only", Usage: "report only this check (an id of the kit's); repeat for more"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			path := cmd.Args().First()
			for _, id := range cmd.StringSlice("only") {
				if !slices.Contains(conformance.CheckIDs(), id) {
					return envelope.Errorf(exitcode.ArgError, "INVALID_CHECK", "no check %q in the kit", id).
						WithSuggestion("one of " + strings.Join(conformance.CheckIDs(), ", "))
				}
			}
			p, err := conformance.LoadProfile(path)
			if err != nil { // a *ProfileError, whose text is its reason
				return envelope.Errorf(exitcode.ArgError, "INVALID_PROFILE", "%s", err).
					WithSuggestion("correct the profile so that it validates against the spec's schemas/conformance-profile.json")
			}
			res := conformance.RunProfile(ctx, p, cmd.StringSlice("only")...)
			out := envelope.From(ctx)
			out.RenderText(func(w io.Writer) error { return writeKit(w, res) })
			if err := out.Result(res); err != nil {
				return err
			}
			if !res.OK() {
				return envelope.Errorf(nonconforming, "CONFORMANCE_CHECKS_FAILED", "%d of %d checks failed", res.Summary.Failed, len(res.Checks)).
					WithSuggestion("fix each failing check in data.checks; each failure names its run (argv, stdin, exit code)").
					WithResult()
			}
			return nil
		},
	}, schema.Meta{
		Danger:  schema.Safe,
		Output:  schema.Of[*conformance.ConformanceResult](),
		Timeout: schema.NoTimeout,
		Args:    []schema.Arg{{Name: "profile", Usage: "a conformance profile (the spec's schemas/conformance-profile.json)", Required: true}},
		ExitCodes: exitcode.Table{nonconforming: {
			Name: "CONFORMANCE_CHECKS_FAILED", Description: "The kit ran; a check failed.", SideEffects: exitcode.None,
		}},
		Examples: []schema.Example{{Description: "run the kit on a profile", Command: kitName + " mytool-profile.json"}},
	})
}

// kitName is the kit command's name: main runs it outside the checker's
// namespaces.
const kitName = "kit"

// writeKit renders a kit result for a person: the levels, then each check
// with its failures.
func writeKit(w io.Writer, res *conformance.ConformanceResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: level 1 %s, level 2 %s, level 3 %s (%d passed, %d failed, %d skipped)\n\n",
		res.Tool, res.Levels.Level1, res.Levels.Level2, res.Levels.Level3, res.Summary.Passed, res.Summary.Failed, res.Summary.Skipped)
	for _, c := range res.Checks {
		fmt.Fprintf(&b, "%-4s L%d %-32s %d runs", c.Status, c.Level, c.ID, c.RunsChecked)
		if c.SkippedReason != "" {
			fmt.Fprintf(&b, " (%s)", c.SkippedReason)
		}
		b.WriteString("\n")
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "       %s: %s\n", f.Probe, f.Detail)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
