package cobra_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// A ported cobra command answers a script reading a pipe with text, the
// rendering of its result, or in the format --format asks for.
func ExampleRun() {
	type run struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	newApp := func() *cobra.Command {
		list := duetcobra.Annotate(&cobra.Command{
			Use: "list",
			RunE: func(cmd *cobra.Command, _ []string) error {
				return envelope.From(cmd.Context()).Result([]run{{"r1", "running"}, {"r2", "done"}})
			},
		}, schema.Meta{Danger: schema.Safe, Output: schema.Of[[]run]()})
		root := &cobra.Command{Use: "runs"}
		root.AddCommand(list)
		return root
	}
	for _, args := range [][]string{{"list"}, {"list", "--format", "tsv"}} {
		var stdout strings.Builder
		duetcobra.Run(context.Background(), newApp(), args,
			adapters.WithStdio(strings.NewReader(""), &stdout, nil),
			adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped))
		fmt.Print(stdout.String())
	}
	// Output:
	// id  status
	// ─────────────
	// r1  running
	// r2  done
	// id	status
	// r1	running
	// r2	done
}
