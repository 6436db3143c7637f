package adaptertest_test

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

// An app half ported: list declares its danger, add and rm not yet.
func ExampleUndeclared() {
	noop := func(context.Context, *cli.Command) error { return nil }
	list := urfave.Annotate(&cli.Command{Name: "list", Action: noop}, schema.Meta{Danger: schema.Safe})
	app, err := urfave.Wrap(&cli.Command{Name: "notes", Commands: []*cli.Command{
		list,
		{Name: "add", Action: noop},
		{Name: "rm", Action: noop},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(adaptertest.Undeclared(app))
	// Output: [add rm]
}
