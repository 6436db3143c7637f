package app

import (
	"cmp"
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// PasstoolEnv names the program e2eapp's passthrough commands delegate to
// (internal/e2eapp/cmd/passtool); unset, "passtool" on PATH.
const PasstoolEnv = "E2EAPP_PASSTOOL"

// passthroughCommands are e2eapp's passthrough commands (REQ-C-031): ingest
// (mutating, with a help argv) and lint (safe, without one) hand every
// token after their path to passtool, and answer with its exit code.
func passthroughCommands() []*cli.Command {
	return []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "bank", Usage: "Run passtool on bank statements; every argument goes to passtool", Action: delegate},
			schema.Meta{Danger: schema.Mutating, Arguments: schema.PassthroughArguments, HelpArgv: []string{"extract", "--help"}}),
		urfave.Annotate(&cli.Command{Name: "lint", Usage: "Run passtool as a linter; every argument goes to passtool", Action: delegate},
			schema.Meta{Danger: schema.Safe, Arguments: schema.PassthroughArguments}),
	}
}

// delegate runs passtool with the forwarded tokens.
func delegate(ctx context.Context, _ *cli.Command) error {
	return adapters.Delegate(ctx, proc.Command(ctx, cmp.Or(os.Getenv(PasstoolEnv), "passtool")))
}

// passthroughOptions are the Duet options the passthrough commands need.
func passthroughOptions() []urfave.Option { return nil }
