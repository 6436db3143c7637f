package app

import (
	"context"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// auditCommands are what the audit log (REQ-O-030) is seen to record: a
// keyring group whose set takes a key by name, a value that may be large,
// a secret token and --dry-run, and whose get fails on a key it does not
// hold; and keyrings, a command whose name starts with keyring's, which a
// filter on the keyring group must not match.
func auditCommands() []*cli.Command {
	set := urfave.Annotate(&cli.Command{
		Name:      "set",
		Usage:     "Keep a value under a key in the keyring",
		ArgsUsage: "<key>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "value", Usage: "the value to keep", Required: true},
			&cli.StringFlag{Name: "token", Usage: "the keyring's access token", Sources: cli.EnvVars("E2EAPP_KEYRING_TOKEN")},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			key := c.Args().First()
			out.Effect(envelope.Updated)
			if out.DryRun() {
				out.WouldAffect(map[string]string{"key": key})
				return out.Result(map[string]string{"key": key})
			}
			file := filepath.Join(dataDir(c), "keyring", key)
			if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(file, []byte(c.String("value")), 0o600); err != nil {
				return err
			}
			return out.Result(map[string]string{"key": key})
		},
	}, schema.Meta{Danger: schema.Mutating, DryRun: true,
		Flags: map[string]schema.FlagMeta{"token": {Sensitive: true}},
		Args:  []schema.Arg{{Name: "key", Required: true, Type: schema.String, Pattern: "^[a-z0-9-]+$", Usage: "the key"}}})

	get := urfave.Annotate(&cli.Command{
		Name:      "get",
		Usage:     "Read the value kept under a key",
		ArgsUsage: "<key>",
		Action: func(ctx context.Context, c *cli.Command) error {
			key := c.Args().First()
			raw, err := os.ReadFile(filepath.Join(dataDir(c), "keyring", key))
			if os.IsNotExist(err) {
				return envelope.Errorf(exitcode.NotFound, "KEY_NOT_FOUND", "the keyring holds no key %q", key)
			}
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]string{"key": key, "value": string(raw)})
		},
	}, schema.Meta{Danger: schema.Safe,
		Args: []schema.Arg{{Name: "key", Required: true, Type: schema.String, Pattern: "^[a-z0-9-]+$", Usage: "the key"}}})

	keyring := urfave.Annotate(&cli.Command{
		Name:     "keyring",
		Usage:    "Keep values under keys",
		Commands: []*cli.Command{set, get},
	}, schema.Meta{Danger: schema.Safe})

	keyrings := urfave.Annotate(&cli.Command{
		Name:  "keyrings",
		Usage: "List the keys the keyring holds",
		Action: func(ctx context.Context, c *cli.Command) error {
			entries, err := os.ReadDir(filepath.Join(dataDir(c), "keyring"))
			if err != nil && !os.IsNotExist(err) {
				return err
			}
			keys := []string{}
			for _, e := range entries {
				keys = append(keys, e.Name())
			}
			return envelope.From(ctx).Result(keys)
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})
	pid := urfave.Annotate(&cli.Command{
		Name:  "pid",
		Usage: "Report the id of the process that answers (exec's, for every line of a batch)",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]int{"pid": os.Getpid()})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})
	return []*cli.Command{keyring, keyrings, pid}
}

// auditOptions are the Duet options the audit commands need: none, the
// log is the operator's to turn on (E2EAPP_AUDIT_LOG).
func auditOptions() []urfave.Option { return nil }
