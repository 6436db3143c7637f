package urfavev2_test

import (
	"io"
	"strconv"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfavev2"
)

// TestFramework holds the adapter to the contract every adapter keeps.
func TestFramework(t *testing.T) { adaptertest.TestFramework(t, build) }

// build makes the suite's app on urfave/cli v2. The suite's global flags
// are taken before and after a command's name; a v2 app says so by giving
// every command the flag again.
func build(t *testing.T, root *adaptertest.Command) adapters.Framework {
	wrapped, err := urfavev2.Wrap(made.Of(root, newApp))
	if err != nil {
		t.Fatal(err)
	}
	return wrapped
}

// made keeps the app build made of each suite app.
var made adaptertest.Made[*cli.App]

// newApp is the suite's app on urfave/cli v2.
func newApp(root *adaptertest.Command) *cli.App {
	app := &cli.App{Name: root.Name, Usage: root.Usage, Flags: flags(root.Flags)}
	for _, sub := range root.Commands {
		app.Commands = append(app.Commands, command(app, sub, root.Flags))
	}
	if root.Meta != nil {
		urfavev2.Annotate(app, nil, *root.Meta)
	}
	return app
}

func command(app *cli.App, c *adaptertest.Command, global []adaptertest.Flag) *cli.Command {
	cmd := &cli.Command{Name: c.Name, Usage: c.Usage, Flags: flags(append(c.Flags, global...))}
	for _, sub := range c.Commands {
		cmd.Subcommands = append(cmd.Subcommands, command(app, sub, global))
	}
	if c.Run != nil {
		cmd.Action = func(ctx *cli.Context) error { return c.Run(ctx.Context, call{ctx}) }
	}
	if c.Meta != nil {
		urfavev2.Annotate(app, cmd, *c.Meta)
	}
	return cmd
}

func flags(fs []adaptertest.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range fs {
		var aliases []string
		if f.Short != "" {
			aliases = []string{f.Short}
		}
		switch f.Kind {
		case adaptertest.Bool:
			out = append(out, &cli.BoolFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage})
		case adaptertest.Int:
			n, _ := strconv.Atoi(f.Default)
			out = append(out, &cli.IntFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage, Value: n})
		case adaptertest.Strings:
			out = append(out, &cli.StringSliceFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage})
		default:
			out = append(out, &cli.StringFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage, Value: f.Default})
		}
	}
	return out
}

// call reads an invocation as urfave/cli v2 gives it to an action. A global
// flag is read where the command line set it: v2 reads the nearest
// command's, which has its default when the flag came before the name.
type call struct{ ctx *cli.Context }

func (c call) from(name string) *cli.Context {
	for _, ctx := range c.ctx.Lineage() {
		if ctx.IsSet(name) {
			return ctx
		}
	}
	return c.ctx
}

func (c call) Bool(name string) bool        { return c.from(name).Bool(name) }
func (c call) Int(name string) int          { return c.from(name).Int(name) }
func (c call) String(name string) string    { return c.from(name).String(name) }
func (c call) Strings(name string) []string { return c.from(name).StringSlice(name) }
func (c call) Args() []string               { return c.ctx.Args().Slice() }
func (c call) Stdout() io.Writer            { return c.ctx.App.Writer }
