package urfave_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// A command ported to Duet answers an agent with one envelope. Run is what
// Main does for one command line, with the streams and the audience given.
func ExampleRun() {
	type run struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	list := urfave.Annotate(&cli.Command{
		Name:  "list",
		Flags: []cli.Flag{&cli.StringFlag{Name: "status", Value: "running"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return envelope.From(ctx).Result([]run{{"r1", cmd.String("status")}})
		},
	}, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]run]()})
	app := &cli.Command{Name: "runs", Commands: []*cli.Command{list}}

	var stdout strings.Builder
	code := urfave.Run(context.Background(), app, []string{"list", "--status", "done"},
		adapters.WithStdio(strings.NewReader(""), &stdout, nil),
		adapters.WithEnv([]string{"RUNS_FORMAT=json"}), // an agent asks for JSON
		adapters.WithTerminal(adapters.Piped))
	var env envelope.Envelope
	if err := json.Unmarshal([]byte(stdout.String()), &env); err != nil {
		panic(err)
	}
	fmt.Println(code, env.OK, string(env.Data), env.Meta.Pagination.Returned)
	// Output: 0 true [{"id":"r1","status":"done"}] 1
}
