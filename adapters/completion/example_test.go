package completion_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/completion"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

// Example adds the command to an app, asks it for the bash script as a
// person would, and prints the script's first line.
func Example() {
	app := &cli.Command{Name: "notes", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "list", Action: func(context.Context, *cli.Command) error { return nil }},
			schema.Meta{Danger: schema.Safe}),
	}}
	var script strings.Builder
	urfave.Run(context.Background(), app, []string{"completion", "bash"},
		adapters.WithStdio(strings.NewReader(""), &script, io.Discard),
		completion.Command("completion"))
	first, _, _ := strings.Cut(script.String(), "\n")
	fmt.Println(first)
	// Output: # bash completion for notes, made by Duet from its command tree. It is static:
}
