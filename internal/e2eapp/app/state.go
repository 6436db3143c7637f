package app

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// stateCommands are the state commands of e2eapp: project-show reads its
// --project from E2EAPP_PROJECT, then from CLOUDFALL_PROJECT, a name shared
// across a family of tools, which REQ-F-073 allows after the prefixed one.
func stateCommands() []*cli.Command {
	show := urfave.Annotate(&cli.Command{
		Name:  "project-show",
		Usage: "Show the project the tool family works on",
		Flags: []cli.Flag{&cli.StringFlag{Name: "project", Usage: "the project", Sources: cli.EnvVars("E2EAPP_PROJECT", "CLOUDFALL_PROJECT")}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return envelope.From(ctx).Result(map[string]string{"project": c.String("project")})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})
	return []*cli.Command{show}
}

// stateOptions are the Duet options the state commands need.
func stateOptions() []urfave.Option { return nil }
