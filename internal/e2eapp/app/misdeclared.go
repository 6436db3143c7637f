package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// codeUndeclared is an exit code no table of e2eapp declares.
const codeUndeclared exitcode.Code = 81

// misdeclarations are the commands e2eapp-misdeclared adds, by case: each
// declares what Duet must refuse when the app is wrapped (or, for the
// runtime cases, does what its declaration does not allow).
var misdeclarations = map[string]func() *cli.Command{
	// REQ-F-073 (v1.16): a flag that reads a name without the tool's
	// prefix alone, or ahead of the prefixed one.
	"env-unprefixed": func() *cli.Command {
		c := broken("deploy", schema.Meta{Danger: schema.Safe, NoArgs: true})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "region", Usage: "the region", Sources: cli.EnvVars("AWS_REGION")})
		return c
	},
	"env-unprefixed-first": func() *cli.Command {
		c := broken("deploy", schema.Meta{Danger: schema.Safe, NoArgs: true})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "project", Usage: "the project", Sources: cli.EnvVars("CLOUDFALL_PROJECT", "E2EAPP_PROJECT")})
		return c
	},
	// REQ-C-032: protocol servers declared beside what cannot go with them.
	"protocol-not-kebab": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Safe, Protocol: "MCP_stdio"})
	},
	"protocol-stdin": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Safe, Protocol: "lsp", Stdin: "a payload"})
	},
	"protocol-output-schema": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Safe, Protocol: "lsp", Output: schema.Of[map[string]int]()})
	},
	"protocol-dry-run": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Mutating, Protocol: "lsp", DryRun: true})
	},
	"protocol-streaming": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Safe, Protocol: "dap", StreamingDefault: true})
	},
	"protocol-tool": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Safe, Protocol: "lsp", Tool: schema.ToolAlways})
	},
	// REQ-C-002: no danger level.
	"no-danger": func() *cli.Command { return broken("wipe", schema.Meta{}) },
	// REQ-C-002 / REQ-C-004: destructive without a dry run.
	"destructive-no-dry-run": func() *cli.Command { return broken("wipe", schema.Meta{Danger: schema.Destructive}) },
	// REQ-O-048 (v1.11): a destructive command confirmed by a flag other
	// than --confirm-destructive (REQ-O-021).
	"destructive-confirm-yes": func() *cli.Command {
		c := broken("wipe", schema.Meta{Danger: schema.Destructive, DryRun: true, ConfirmFlag: "yes"})
		c.Flags = append(c.Flags, &cli.BoolFlag{Name: "yes", Usage: "confirm"})
		return c
	},
	// REQ-C-002 / REQ-O-004 (v1.11): a streaming destructive command.
	"streaming-destructive": func() *cli.Command {
		return broken("wipe", schema.Meta{Danger: schema.Destructive, DryRun: true, Streaming: true})
	},
	// REQ-C-002 / REQ-C-007: a streaming mutating command that accepts
	// --idempotency-key.
	"streaming-idempotency-key": func() *cli.Command {
		c := broken("wipe", schema.Meta{Danger: schema.Mutating, Streaming: true})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "idempotency-key", Usage: "the caller's key"})
		return c
	},
	// REQ-C-002 / REQ-C-011: a safe command whose only write is its output
	// file (kind "output").
	"safe-output-write": func() *cli.Command {
		return broken("render", schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{{Path: "./report.html", Kind: "output"}}})
	},
	// REQ-F-038 / REQ-C-032 (v1.16): a protocol server that declares a
	// child log on stderr, whose streams are its protocol's.
	"child-log-protocol": func() *cli.Command {
		return broken("serve", schema.Meta{Danger: schema.Safe, Protocol: "mcp", ChildLog: true})
	},
	// REQ-F-038 / REQ-C-031 (v1.16): a passthrough command that declares
	// a child log, whose stdout is the delegated tool's.
	"child-log-passthrough": func() *cli.Command {
		return broken("ingest", schema.Meta{Danger: schema.Safe, Arguments: schema.PassthroughArguments, ChildLog: true})
	},
	// REQ-F-057: a command that opens a browser and says nothing of a
	// headless run.
	"gui-no-headless": func() *cli.Command {
		return broken("preview", schema.Meta{Danger: schema.Safe, GUI: []string{"browser_open"}})
	},
	// REQ-C-011 (v1.11): an output side effect with a TTL, and one with a
	// command that clears it: a product neither goes stale nor is cleared.
	"output-ttl": func() *cli.Command {
		return broken("render", schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{{Path: "./report.html", Kind: schema.OutputFile, TTL: time.Hour}}})
	},
	"output-clearable": func() *cli.Command {
		return broken("render", schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{{Path: "./report.html", Kind: schema.OutputFile, ClearWith: "e2eapp cleanup"}}})
	},
	// REQ-C-025: a configuration write without a write scope.
	"config-no-scope": func() *cli.Command {
		return broken("remember", schema.Meta{Danger: schema.Mutating, SideEffects: []schema.SideEffect{{Path: "~/.e2eapprc", Kind: schema.ConfigFile}}})
	},
	// REQ-C-029: a login without its scopes.
	"auth-no-scopes": func() *cli.Command {
		return broken("sso-login", schema.Meta{Danger: schema.Mutating, Auth: &schema.Auth{Headless: true}})
	},
	// REQ-C-029: a blanket admin scope nothing explains.
	"blanket-scope": func() *cli.Command {
		return broken("members", schema.Meta{Danger: schema.Safe, Scopes: []string{"admin:org"}})
	},
	// REQ-O-048: a safe default with no dry run to default to.
	"safe-default-no-dry-run": func() *cli.Command {
		return broken("ship", schema.Meta{Danger: schema.Destructive, SafeDefault: true})
	},
	// REQ-C-001: a retryable exit that may have changed something.
	"retryable-with-side-effects": func() *cli.Command {
		return broken("flaky", schema.Meta{Danger: schema.Mutating, ExitCodes: exitcode.Table{
			90: {Name: "UPSTREAM_HICCUP", Description: "The upstream failed half way.", Retryable: true, SideEffects: exitcode.Partial},
		}})
	},
	// REQ-C-022: an async command that cannot run detached.
	"async-list": func() *cli.Command {
		return broken("export", schema.Meta{Danger: schema.Safe, Async: true, List: true})
	},
	// REQ-F-054: line mode without saying what a line is, and a line cap
	// on a command that reads no lines.
	"lines-undescribed": func() *cli.Command {
		return broken("load-all", schema.Meta{Danger: schema.Mutating, StdinLines: true})
	},
	"line-cap-buffered": func() *cli.Command {
		return broken("load-all", schema.Meta{Danger: schema.Mutating, Stdin: "one JSON document", MaxLineBytes: 4096})
	},
	// REQ-C-016: a flag that takes a secret's value, not declared
	// Sensitive (so read from the command line), and a positional secret.
	"secret-flag": func() *cli.Command {
		c := broken("deploy", schema.Meta{Danger: schema.Mutating, NoArgs: true})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "password", Usage: "the deploy password"})
		return c
	},
	"secret-argument": func() *cli.Command {
		return broken("deploy", schema.Meta{Danger: schema.Mutating,
			Args: []schema.Arg{{Name: "api-token", Required: true, Type: schema.String, Usage: "the API token"}}})
	},
	// REQ-C-023: a command that opens an editor with no flag to stand in
	// for it.
	"editor-no-alternative": func() *cli.Command {
		return broken("commit", schema.Meta{Danger: schema.Mutating, Editor: true})
	},
	// REQ-F-075: a command of the previous release gone without having
	// been deprecated there (see apiExportRemoved).
	"command-removed": apiExportRemoved,
	// REQ-C-031: passthrough commands that declare what the delegated
	// tool owns (a flag, a positional, options anywhere), or that are
	// destructive.
	"passthrough-flag": func() *cli.Command {
		c := broken("statements", schema.Meta{Danger: schema.Mutating, Arguments: schema.PassthroughArguments})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "importer", Usage: "the importer to run"})
		return c
	},
	"passthrough-positional": func() *cli.Command {
		return broken("statements", schema.Meta{Danger: schema.Mutating, Arguments: schema.PassthroughArguments, Args: []schema.Arg{{Name: "statement"}}})
	},
	"passthrough-placement-any": func() *cli.Command {
		return broken("statements", schema.Meta{Danger: schema.Mutating, Arguments: schema.PassthroughArguments, OptionPlacement: schema.Any})
	},
	"passthrough-destructive": func() *cli.Command {
		return broken("statements", schema.Meta{Danger: schema.Destructive, Arguments: schema.PassthroughArguments})
	},
	// REQ-F-079: a ported command's own flags reuse a global option's name
	// (Duet's --format, the app's --data-dir), refused in a spec-strict app.
	"global-option-reused": func() *cli.Command {
		c := broken("render", schema.Meta{Danger: schema.Safe, NoArgs: true})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "format", Usage: "the report's file type", Local: true})
		return c
	},
	"global-app-option-reused": func() *cli.Command {
		c := broken("render", schema.Meta{Danger: schema.Safe, NoArgs: true})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "data-dir", Usage: "where the report goes", Local: true})
		return c
	},
	// Runtime cases: the app wraps; the command misbehaves when it runs.

	// REQ-C-001: an exit code its table does not declare.
	// REQ-C-033: an interruption that declares neither Detach nor Resume,
	// and one on a streaming command.
	"interruption-neither": func() *cli.Command {
		return broken("scan", schema.Meta{Danger: schema.Safe, Interruption: &schema.Interruption{}})
	},
	"interruption-streaming": func() *cli.Command {
		return broken("scan", schema.Meta{Danger: schema.Safe, Streaming: true, Interruption: &schema.Interruption{Resume: true}})
	},
	"undeclared-exit": func() *cli.Command {
		return urfave.Annotate(&cli.Command{Name: "migrate", Usage: "Migrate the store",
			Action: func(context.Context, *cli.Command) error {
				return envelope.Errorf(codeUndeclared, "MIGRATION_DRIFT", "the store drifted from the plan")
			}}, schema.Meta{Danger: schema.Safe, NoArgs: true})
	},
	// REQ-C-001 (v1.13): an error code its exit's entry does not list.
	"undeclared-error-code": func() *cli.Command {
		return urfave.Annotate(&cli.Command{Name: "migrate", Usage: "Migrate the store",
			Action: func(context.Context, *cli.Command) error {
				return envelope.Errorf(exitcode.NotFound, "PLAN_NOT_FOUND", "no migration plan")
			}}, schema.Meta{Danger: schema.Safe, NoArgs: true, ExitCodes: exitcode.Table{
			exitcode.NotFound: {Description: "The store has no such table; nothing was changed.", ErrorCodes: []string{"TABLE_NOT_FOUND"}},
		}})
	},
	// REQ-F-057: a browser opened by a command that declares no display.
	"undeclared-open": func() *cli.Command {
		return urfave.Annotate(&cli.Command{Name: "preview", Usage: "Preview the site",
			Action: func(ctx context.Context, _ *cli.Command) error {
				out := envelope.From(ctx)
				if err := out.Open("https://preview.example.com/"); err != nil {
					return err
				}
				return out.Result(map[string]bool{"previewed": true})
			}}, schema.Meta{Danger: schema.Safe, NoArgs: true})
	},
	// REQ-C-015 (v1.16): an object flag (FlagMeta.Schema) that takes a
	// number, one whose schema is not an object's, one whose schema uses
	// a keyword its values would not be checked against, and an integer
	// flag whose enum lists a word.
	"object-flag-int": func() *cli.Command {
		c := broken("track", schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"filter": {Schema: WatchFilter}}})
		c.Flags = append(c.Flags, &cli.IntFlag{Name: "filter", Usage: "the filter"})
		return c
	},
	"object-flag-not-object": func() *cli.Command {
		c := broken("track", schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"filter": {Schema: schema.Schema{"type": "array"}}}})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "filter", Usage: "the filter"})
		return c
	},
	"object-flag-unchecked-keyword": func() *cli.Command {
		c := broken("track", schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"filter": {Schema: schema.Schema{"type": "object", "patternProperties": map[string]any{"^x-": map[string]any{"type": "string"}}}}}})
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "filter", Usage: "the filter"})
		return c
	},
	"integer-enum-word": func() *cli.Command {
		c := broken("track", schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"sig-type": {Enum: []string{"0", "one"}}}})
		c.Flags = append(c.Flags, &cli.IntFlag{Name: "sig-type", Usage: "the signature type"})
		return c
	},
}

// Misdeclared returns the command of case name (see misdeclarations).
func Misdeclared(name string) (*cli.Command, error) {
	build, ok := misdeclarations[name]
	if !ok {
		return nil, fmt.Errorf("E2EAPP_MISDECLARE=%q: want one of %s", name, strings.Join(MisdeclaredCases(), ", "))
	}
	return build(), nil
}

// MisdeclaredCases lists the cases, sorted.
func MisdeclaredCases() []string {
	var names []string
	for n := range misdeclarations {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// broken is a command that would run if its declaration held.
func broken(name string, meta schema.Meta) *cli.Command {
	return urfave.Annotate(&cli.Command{Name: name, Usage: "A misdeclared command",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]bool{"ran": true})
		}}, meta)
}
