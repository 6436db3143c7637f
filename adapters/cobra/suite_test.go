package cobra_test

import (
	"io"
	"strconv"
	"testing"

	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/adaptertest"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
)

// TestFramework holds the adapter to the contract every adapter keeps.
func TestFramework(t *testing.T) { adaptertest.TestFramework(t, build) }

// made keeps the cobra root build made of each app.
var made adaptertest.Made[*cobra.Command]

// build makes the suite's app on cobra.
func build(t *testing.T, root *adaptertest.Command) adapters.Framework {
	app, err := duetcobra.Wrap(made.Of(root, func(c *adaptertest.Command) *cobra.Command { return command(c, true) }))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func command(c *adaptertest.Command, root bool) *cobra.Command {
	cmd := &cobra.Command{Use: c.Name, Short: c.Usage}
	flags := cmd.Flags()
	if root {
		flags = cmd.PersistentFlags() // the root's flags are the app's global flags
	}
	for _, f := range c.Flags {
		switch f.Kind {
		case adaptertest.Bool:
			flags.BoolP(f.Name, f.Short, false, f.Usage)
		case adaptertest.Int:
			n, _ := strconv.Atoi(f.Default)
			flags.IntP(f.Name, f.Short, n, f.Usage)
		case adaptertest.Strings:
			flags.StringArrayP(f.Name, f.Short, nil, f.Usage)
		default:
			flags.StringP(f.Name, f.Short, f.Default, f.Usage)
		}
	}
	for _, sub := range c.Commands {
		cmd.AddCommand(command(sub, false))
	}
	if c.Run != nil {
		cmd.RunE = func(cmd *cobra.Command, args []string) error { return c.Run(cmd.Context(), call{cmd, args}) }
	}
	if c.Meta != nil {
		duetcobra.Annotate(cmd, *c.Meta)
	}
	return cmd
}

// call reads an invocation as cobra gives it to RunE.
type call struct {
	cmd  *cobra.Command
	args []string
}

func (c call) Bool(name string) bool        { v, _ := c.cmd.Flags().GetBool(name); return v }
func (c call) Int(name string) int          { v, _ := c.cmd.Flags().GetInt(name); return v }
func (c call) String(name string) string    { v, _ := c.cmd.Flags().GetString(name); return v }
func (c call) Strings(name string) []string { v, _ := c.cmd.Flags().GetStringArray(name); return v }
func (c call) Args() []string               { return c.args }
func (c call) Stdout() io.Writer            { return c.cmd.OutOrStdout() }
