// Command e2eapp-globals is a small tool built the way the CLI Agent Spec's
// test registry for REQ-F-079 is: a global option -f/--format the app
// registers at its root, a ported command deploy with its own -f/--force,
// and a ported command render with its own --format (a template's file
// type, not the answer's). E2EAPP_GLOBALS=strict wraps it WithSpecStrict,
// which asks Duet to refuse render's --format at startup; =short adds the
// root's -f/--format too; =unported is strict with render not declared to
// Duet; unset, it is an app that has not opted in, whose flags Duet adopts
// as they are. The tests in
// internal/e2eapp/e2e use it where e2eapp, strict and without a short
// global, cannot show both.
package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

func main() {
	deploy := urfave.Annotate(&cli.Command{Name: "deploy", Usage: "Deploy the release",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "deploy over a running release"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]bool{"deployed": true, "force": c.Bool("force")})
		}}, schema.Meta{Danger: schema.Mutating, NoArgs: true})
	render := &cli.Command{Name: "render", Usage: "Render the report",
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Usage: "the report's file type: html or pdf", Value: "html", Local: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return envelope.From(ctx).Result(map[string]string{"rendered": "report." + c.String("format")})
		}}
	mode := os.Getenv("E2EAPP_GLOBALS")
	if mode != "unported" {
		urfave.Annotate(render, schema.Meta{Danger: schema.Safe, NoArgs: true})
	}
	root := &cli.Command{Name: "e2eapp-globals", Usage: "a tool whose commands reuse global option names",
		Commands: []*cli.Command{deploy, render}}
	var opts []urfave.Option
	switch mode {
	case "strict", "unported": // unported: render is not declared to Duet
		opts = append(opts, adapters.WithSpecStrict())
	case "short":
		// The spec's registry: -f/--format at the root, next to deploy's -f/--force.
		root.Flags = append(root.Flags, &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "the answer's format"})
		opts = append(opts, adapters.WithSpecStrict())
	}
	urfave.Main(root, append(opts, adapters.WithVersion("1.0.0"))...)
}
