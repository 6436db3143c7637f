package level3_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/feature/level3"
	"github.com/duet-cli/duet/schema"
)

// The bundle gives a mutating command what the core does not: here,
// --idempotency-key in its --schema.
func Example() {
	app := func() *cli.Command {
		return &cli.Command{Name: "notes", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "add", Action: func(context.Context, *cli.Command) error { return nil }},
				schema.Meta{Danger: schema.Mutating}),
		}}
	}
	for _, wrap := range []struct {
		name     string
		features []adapters.Feature
	}{{"core", nil}, {"level3", level3.Features()}} {
		var stdout bytes.Buffer
		urfave.Run(context.Background(), app(), []string{"add", "--schema"}, adapters.WithSpecStrict(),
			adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)), adapters.WithFeatures(wrap.features...))
		var doc struct {
			Data struct {
				Flags map[string]any `json:"flags"`
			} `json:"data"`
		}
		json.Unmarshal(stdout.Bytes(), &doc)
		_, keyed := doc.Data.Flags["idempotency-key"]
		fmt.Printf("%s: --idempotency-key %v\n", wrap.name, keyed)
	}
	// Output:
	// core: --idempotency-key false
	// level3: --idempotency-key true
}
