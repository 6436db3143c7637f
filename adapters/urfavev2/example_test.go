package urfavev2_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfavev2"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// A v2 command ported to Duet answers an agent with one envelope. Its
// declarations go to Annotate with the app, whose Metadata keeps them.
func ExampleRun() {
	type run struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	app := &cli.App{Name: "runs"}
	app.Commands = []*cli.Command{urfavev2.Annotate(app, &cli.Command{
		Name:  "list",
		Flags: []cli.Flag{&cli.StringFlag{Name: "status", Value: "running"}},
		Action: func(c *cli.Context) error {
			return envelope.From(c.Context).Result([]run{{"r1", c.String("status")}})
		},
	}, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]run]()})}

	var stdout strings.Builder
	code := urfavev2.Run(context.Background(), app, []string{"list", "--status", "done"},
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
