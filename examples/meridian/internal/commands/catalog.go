package commands

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// SkillSummary is one skill in `skills list`; `skills show` adds its content.
type SkillSummary struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Path        string   `json:"path"`
	Scope       string   `json:"scope"` // project or user
}

var catalogCodes = exitcode.Table{
	exitcode.NotFound:     {Description: "No skill or model has that name."},
	exitcode.Precondition: {Description: "A skill's front matter or .meridian/models.toml is broken."},
}

func (e Env) skillsCommand() *cli.Command {
	return &cli.Command{
		Name:     "skills",
		Category: catDiscovery,
		Usage:    "List and show skills",
		Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{
				Name:  "list",
				Usage: "List available skills",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					skills, problems := e.project(cmd).Catalog().Skills()
					warnProblems(ctx, problems)
					out := make([]SkillSummary, len(skills))
					for i, s := range skills {
						out[i] = SkillSummary{Name: s.Name, Description: s.Description, Tags: s.Tags, Path: s.Path, Scope: s.Scope}
					}
					return envelope.From(ctx).Result(out)
				},
			}, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]SkillSummary]()}),
			urfave.Annotate(&cli.Command{
				Name:      "show",
				Usage:     "Show skill details",
				ArgsUsage: "<name>",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					s, err := e.project(cmd).Catalog().Skill(cmd.Args().First())
					if err != nil {
						return run.CatalogError("skill", err)
					}
					return envelope.From(ctx).Result(s)
				},
			}, schema.Meta{Danger: schema.Safe, Output: schema.Of[catalog.Skill](), ExitCodes: catalogCodes,
				Args: []schema.Arg{{Name: "name", Type: schema.String, Required: true, ID: true, Pattern: skillNamePattern, Usage: "a skill's name"}}}),
		},
	}
}

func (e Env) modelsCommand() *cli.Command {
	return &cli.Command{
		Name:     "models",
		Category: catDiscovery,
		Usage:    "List and show models",
		Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{
				Name:  "list",
				Usage: "List available models",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					models, err := e.models(ctx, cmd)
					if err != nil {
						return err
					}
					return envelope.From(ctx).Result(models.List())
				},
			}, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]catalog.Model](), ExitCodes: catalogCodes}),
			urfave.Annotate(&cli.Command{
				Name:      "show",
				Usage:     "Show model details",
				ArgsUsage: "<model>",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					models, err := e.models(ctx, cmd)
					if err != nil {
						return err
					}
					m, warning, err := models.Resolve(cmd.Args().First())
					if err != nil {
						return run.CatalogError("model", err)
					}
					if warning != "" {
						envelope.From(ctx).Warn("MODEL_NOT_IN_CATALOG", warning, "run 'meridian models list' to see the catalog")
					}
					return envelope.From(ctx).Result(m)
				},
			}, schema.Meta{Danger: schema.Safe, Output: schema.Of[catalog.Model](), ExitCodes: catalogCodes,
				Args: []schema.Arg{{Name: "model", Type: schema.String, Required: true, Usage: "a model id or alias"}}}),
		},
	}
}

// models loads the catalog: the built-in models and .meridian/models.toml.
func (e Env) models(ctx context.Context, cmd *cli.Command) (*catalog.Models, error) {
	models, err := catalog.LoadModels(e.project(cmd).State.Dir)
	if err != nil {
		return nil, project.FileError(err)
	}
	for _, w := range models.Warnings() {
		envelope.From(ctx).Warn("MODELS_FILE", w, "fix .meridian/models.toml")
	}
	return models, nil
}

// warnProblems reports catalog files that could not be read.
func warnProblems(ctx context.Context, problems []catalog.Problem) {
	for _, p := range problems {
		envelope.From(ctx).Warn("CATALOG_FILE", fmt.Sprintf("%s: %v", p.Path, p.Err), "fix or remove the file")
	}
}
