package mcp_test

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// The commands an app declares are its MCP tools; a call runs the command
// (here in the server's process) and answers with its data.
func ExampleNewServer() {
	newApp := func() (adapters.Framework, error) {
		greet := urfave.Annotate(&cli.Command{
			Name: "greet", Usage: "Greet someone",
			Flags: []cli.Flag{&cli.StringFlag{Name: "name", Value: "world"}},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				return envelope.From(ctx).Result(map[string]string{"greeting": "hello, " + cmd.String("name")})
			},
		}, schema.Meta{Danger: schema.Safe})
		return urfave.Wrap(&cli.Command{Name: "kit", Commands: []*cli.Command{greet}}, mcp.Command("serve"))
	}
	app, err := newApp()
	if err != nil {
		panic(err)
	}
	server, err := mcp.NewServer(app, mcp.WithRunner(mcp.InProcess(newApp)))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		panic(err)
	}
	client, err := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		panic(err)
	}
	defer client.Close()

	tools, err := client.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name, "-", t.Description)
	}
	res, err := client.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "ann"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// greet - Greet someone
	// {"greeting":"hello, ann"}
}
