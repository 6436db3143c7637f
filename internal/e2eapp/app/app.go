// Package app is e2eapp, a small operations tool built on urfave/cli v3
// and wrapped with Duet the way a real app is (urfave.Annotate,
// schema.Meta, adapters options, WithSpecStrict). It exists to be built
// and driven black-box by the tests in internal/e2eapp/e2e: each command
// exercises one thing Duet promises an agent — the programs a command
// starts (package proc), prompts and editors where nobody can answer, a
// browser where there is no display, time limits, network I/O (package
// nethttp), logins, scopes, configuration writes, safe defaults, exit code
// tables and async jobs.
//
// Its state lives under --data-dir (E2EAPP_DATA_DIR), else
// $XDG_DATA_HOME/e2eapp, else ~/.local/share/e2eapp.
package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/envelope/filedigest"
	"github.com/duet-cli/duet/feature/level3"
	"github.com/duet-cli/duet/schema"
)

// Name is the tool's name: its environment variables are E2EAPP_*.
const Name = "e2eapp"

// Version is the tool's version.
const Version = "1.0.0"

// ScopesEnv holds the scopes of the active credential, comma-separated:
// e2eapp stands in for a tool that asks its API which scopes its token
// holds. Unset, there is no credential; set and empty, one with no scopes.
const ScopesEnv = "E2EAPP_SCOPES"

// Options are the Duet options e2eapp is wrapped with.
func Options() []urfave.Option {
	opts := []urfave.Option{
		adapters.WithVersion(Version),
		adapters.WithSpecStrict(),
		adapters.WithFeatures(level3.Features()...),
		adapters.WithPermissions(activeScopes),
		adapters.WithOutputDigest(filedigest.SHA256), // data.sha256 of a binary --output (REQ-O-001)
		mcp.Command("mcp"),                           // the same commands as MCP tools, over stdio
	}
	for _, more := range [][]urfave.Option{sessionOptions(), configOptions(), networkOptions(), progressOptions(),
		externalOptions(), storesOptions(), logsOptions(), parsingOptions(), longworkOptions(), passthroughOptions(),
		docsOptions(), auditOptions(), stateOptions(), schemasOptions()} {
		opts = append(opts, more...)
	}
	// exec runs every line of a batch in its own process on an app made
	// anew (REQ-O-050).
	return append(opts, adapters.WithNewApp(func() (adapters.Framework, error) { return urfave.Wrap(New(), opts...) }))
}

// activeScopes resolves the scopes of the active credential (see ScopesEnv).
func activeScopes(context.Context) ([]string, error) {
	v, ok := os.LookupEnv(ScopesEnv)
	if !ok {
		return nil, envelope.Unauthenticated("no credential: " + Name + " login first")
	}
	scopes := []string{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	return scopes, nil
}

// New returns e2eapp's command tree, annotated for Duet.
func New() *cli.Command {
	root := &cli.Command{
		Name:  Name,
		Usage: "a small operations tool; run bare at a terminal for its interactive shell",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data-dir", Usage: "where e2eapp keeps its state", Sources: cli.EnvVars("E2EAPP_DATA_DIR")},
		},
		Action: shell,
	}
	root.Commands = append(root.Commands, childCommands()...)
	root.Commands = append(root.Commands, personCommands()...)
	root.Commands = append(root.Commands, limitCommands()...)
	root.Commands = append(root.Commands, trustCommands()...)
	root.Commands = append(root.Commands, safetyCommands()...)
	root.Commands = append(root.Commands, renderCommands()...)
	root.Commands = append(root.Commands, confirmCommands()...)
	root.Commands = append(root.Commands, inputCommands()...)
	root.Commands = append(root.Commands, sessionCommands()...)
	root.Commands = append(root.Commands, configCommands()...)
	root.Commands = append(root.Commands, networkCommands()...)
	root.Commands = append(root.Commands, progressCommands()...)
	for _, more := range [][]*cli.Command{externalCommands(), storesCommands(), logsCommands(), parsingCommands(), longworkCommands(), passthroughCommands(),
		docsCommands(), auditCommands(), stateCommands(), schemasCommands()} {
		root.Commands = append(root.Commands, more...)
	}
	// The bare invocation is an interactive shell (a REPL): Duet refuses it
	// where nobody is at a terminal (REQ-F-047).
	return urfave.Annotate(root, schema.Meta{Danger: schema.Safe, Interactive: true, NoArgs: true})
}

// dataDir is where e2eapp keeps its state.
func dataDir(c *cli.Command) string {
	if d := c.String("data-dir"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, Name)
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", Name)
}
