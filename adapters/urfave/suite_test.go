package urfave_test

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/golden"
)

// TestFramework holds the adapter to the contract every adapter keeps. Run
// with -update, it rewrites the describe document every adapter is held
// to (adapters/adaptertest/testdata/describe.json) from this one.
func TestFramework(t *testing.T) {
	if golden.Updating() {
		doc := adaptertest.Describe(t, build)
		if err := os.WriteFile("../adaptertest/testdata/describe.json", doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	adaptertest.TestFramework(t, build)
}

// made keeps the root command build made of each app.
var made adaptertest.Made[*cli.Command]

// build makes the suite's app on urfave/cli.
func build(t *testing.T, root *adaptertest.Command) adapters.Framework {
	app, err := urfave.Wrap(made.Of(root, command))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func command(c *adaptertest.Command) *cli.Command {
	cmd := &cli.Command{Name: c.Name, Usage: c.Usage}
	for _, f := range c.Flags {
		cmd.Flags = append(cmd.Flags, flag(f))
	}
	for _, sub := range c.Commands {
		cmd.Commands = append(cmd.Commands, command(sub))
	}
	if c.Run != nil {
		cmd.Action = func(ctx context.Context, cmd *cli.Command) error { return c.Run(ctx, call{cmd}) }
	}
	if c.Meta != nil {
		urfave.Annotate(cmd, *c.Meta)
	}
	return cmd
}

func flag(f adaptertest.Flag) cli.Flag {
	var aliases []string
	if f.Short != "" {
		aliases = []string{f.Short}
	}
	switch f.Kind {
	case adaptertest.Bool:
		return &cli.BoolFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage}
	case adaptertest.Int:
		n, _ := strconv.Atoi(f.Default)
		return &cli.IntFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage, Value: n}
	case adaptertest.Strings:
		return &cli.StringSliceFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage}
	}
	return &cli.StringFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage, Value: f.Default}
}

// call reads an invocation as urfave/cli gives it to an action.
type call struct{ cmd *cli.Command }

func (c call) Bool(name string) bool        { return c.cmd.Bool(name) }
func (c call) Int(name string) int          { return c.cmd.Int(name) }
func (c call) String(name string) string    { return c.cmd.String(name) }
func (c call) Strings(name string) []string { return c.cmd.StringSlice(name) }
func (c call) Args() []string               { return c.cmd.Args().Slice() }
func (c call) Stdout() io.Writer            { return c.cmd.Root().Writer }
