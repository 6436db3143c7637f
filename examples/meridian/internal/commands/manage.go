package commands

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/examples/meridian/internal/doctor"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// Initialized is what `init` answers.
type Initialized struct {
	Dir     string `json:"dir"`
	Config  string `json:"config"`
	Created bool   `json:"created"` // false: config.toml was there and was left alone
}

func (e Env) initCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:     "init",
		Category: catUtilities,
		Usage:    "Initialize .meridian/ with a commented config.toml (idempotent)",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			p := e.project(cmd)
			path, created, err := config.Init(p.State.Dir)
			if err != nil {
				return err
			}
			for _, d := range []string{"agents", "skills"} {
				if err := os.MkdirAll(filepath.Join(p.State.Dir, d), 0o755); err != nil {
					return err
				}
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Noop)
			if created {
				out.Effect(envelope.Created)
			}
			return out.Result(Initialized{Dir: p.State.Dir, Config: path, Created: created})
		},
	}, schema.Meta{Danger: schema.Mutating, Audience: schema.HumanOnly, Output: schema.Of[Initialized]()})
}

func (e Env) configCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:     "config",
		Category: catConfig,
		Usage:    "Show the configuration in effect",
		Commands: []*cli.Command{urfave.Annotate(&cli.Command{
			Name:  "show",
			Usage: "Show each setting's value and where it comes from",
			Action: func(ctx context.Context, cmd *cli.Command) error {
				_, cfg, err := e.loaded(ctx, cmd)
				if err != nil {
					return err
				}
				return envelope.From(ctx).Result(cfg.Settings())
			},
		}, schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly, Output: schema.Of[[]config.Setting](),
			ExitCodes: exitcode.Table{exitcode.Precondition: {Description: "A configuration file is broken."}}})},
	}, schema.Meta{Audience: schema.HumanOnly})
}

func (e Env) spaceCommand() *cli.Command {
	idArg := []schema.Arg{{Name: "space-id", Type: schema.String, Required: true, ID: true, Pattern: spaceIDPattern, Usage: "a space, such as s3"}}
	return urfave.Annotate(&cli.Command{
		Name:     "space",
		Category: catSpaces,
		Usage:    "Manage spaces",
		Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{
				Name:  "list",
				Usage: "List all spaces",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					spaces, err := space.List(ctx, e.project(cmd))
					return result(ctx, spaces, err)
				},
			}, schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly, List: true, Output: schema.Of[[]space.Summary]()}),
			urfave.Annotate(&cli.Command{
				Name:      "show",
				Usage:     "Show space details and session history",
				ArgsUsage: "<space-id>",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					p, out := e.project(cmd), envelope.From(ctx)
					id := cmd.Args().First()
					d, cached, err := space.Show(p, id, out.CacheFresh(state.Runs{Dir: p.State.SpaceDir(id)}.TallyPath()))
					if err != nil {
						return err
					}
					if cached {
						out.UsedCache()
					}
					out.RenderText(func(w io.Writer) error { return renderSpace(w, d) })
					return out.Result(d)
				},
			}, schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly, Args: idArg, Output: schema.Of[space.Detail](), ExitCodes: space.Codes,
				// The runs by status come from the tally run stats keeps.
				SideEffects: []schema.SideEffect{{Path: ".meridian/.spaces/{space-id}/runs.tally.json", Kind: schema.CacheFile}}}),
			urfave.Annotate(&cli.Command{
				Name:      "close",
				Usage:     "Close a space and clean up sessions",
				ArgsUsage: "<space-id>",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					c, err := space.Close(ctx, e.project(cmd), cmd.Args().First(), e.Now())
					return result(ctx, c, err)
				},
			}, schema.Meta{Danger: schema.Destructive, DryRun: true, Audience: schema.HumanOnly, Args: idArg, Output: schema.Of[space.Closed](), ExitCodes: space.Codes}),
		},
	}, schema.Meta{Audience: schema.HumanOnly})
}

func (e Env) doctorCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:     "doctor",
		Category: catHealth,
		Usage:    "Check and repair space health",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			p, cfg, err := e.loaded(ctx, cmd)
			if err != nil {
				return err
			}
			rep, err := doctor.Run(ctx, p, cfg, doctor.Options{Now: e.Now(), Path: e.Getenv("PATH")})
			if err == nil {
				envelope.From(ctx).RenderText(func(w io.Writer) error { return renderDoctor(w, rep) })
			}
			return result(ctx, rep, err)
		},
	}, schema.Meta{Danger: schema.Mutating, Output: schema.Of[doctor.Report](),
		ExitCodes: exitcode.Table{exitcode.Precondition: {Description: "A configuration file is broken."}}})
}
