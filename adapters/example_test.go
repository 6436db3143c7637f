package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
)

// Options are the same for every adapter: here the version the app reports
// and an agent's streams. A usage error comes back as one envelope whose
// error says what to correct, with exit code 2.
func ExampleRun() {
	app, err := urfave.Wrap(&cli.Command{Name: "runs", Commands: []*cli.Command{{
		Name:   "list",
		Flags:  []cli.Flag{&cli.IntFlag{Name: "limit"}},
		Action: func(context.Context, *cli.Command) error { return nil },
	}}}, adapters.WithVersion("1.2.3"))
	if err != nil {
		panic(err)
	}
	var stdout strings.Builder
	code := adapters.Run(context.Background(), app, []string{"list", "--limit", "ten"},
		adapters.WithStdio(strings.NewReader(""), &stdout, nil),
		adapters.WithEnv([]string{"CLAUDECODE=1"}), // run by a coding agent
		adapters.WithTerminal(adapters.Piped))
	var env envelope.Envelope
	if err := json.Unmarshal([]byte(stdout.String()), &env); err != nil {
		panic(err)
	}
	fmt.Println("exit", code, "from", env.Meta.ToolVersion)
	fmt.Println(env.Error.Code, env.Error.Phase, env.Error.Field)
	fmt.Println(env.Error.FixRequired)
	// Output:
	// exit 2 from 1.2.3
	// INVALID_FLAG_VALUE validation limit
	// give --limit a value of its type
}
