package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/runenv"
	"github.com/duet-cli/duet/schema"
)

// trustCommands are the commands that log in, need scopes or write
// configuration.
func trustCommands() []*cli.Command {
	login := urfave.Annotate(&cli.Command{
		Name:  "login",
		Usage: "Log in: with a token from E2EAPP_TOKEN (or E2EAPP_TOKEN_FILE), else in a browser",
		Action: func(ctx context.Context, _ *cli.Command) error {
			env := runenv.From(ctx)
			out := envelope.From(ctx)
			if env.Token != "" {
				out.Effect(envelope.Updated)
				return out.Result(map[string]any{"logged_in": true, "method": "token", "token_source": env.TokenSource, "token_sha256": fingerprint(env.Token)})
			}
			if err := out.Open("https://auth.example.com/e2eapp/login"); err != nil {
				return err
			}
			out.Effect(envelope.Noop)
			return out.Result(map[string]any{"logged_in": false, "method": "browser"})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Scopes: []string{},
		Auth: &schema.Auth{TokenEnv: []string{"E2EAPP_TOKEN", "E2EAPP_TOKEN_FILE"}},
		GUI:  []string{"browser_open"}, Headless: schema.FailHeadless})

	device := urfave.Annotate(&cli.Command{
		Name:  "device-login",
		Usage: "Log in with a device code: no browser here, a code to enter elsewhere",
		Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(map[string]string{"verification_uri": "https://auth.example.com/device", "user_code": "WDJB-MJHT"})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Scopes: []string{}, Auth: &schema.Auth{Headless: true}})

	repos := urfave.Annotate(&cli.Command{
		Name:  "repos",
		Usage: "List the repositories the credential can read",
		Action: func(ctx context.Context, _ *cli.Command) error {
			items := []map[string]string{{"name": "api", "visibility": "private"}, {"name": "web", "visibility": "public"}}
			return envelope.From(ctx).Page(items, len(items))
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, List: true, Scopes: []string{"repo:read"}})

	rename := urfave.Annotate(&cli.Command{
		Name:      "org-rename",
		Usage:     "Rename the organisation (needs admin:org: no narrower scope renames one)",
		ArgsUsage: "<name>",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]string{"organisation": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Mutating, Scopes: []string{"admin:org"},
		Args: []schema.Arg{{Name: "name", Required: true, Type: schema.String, Usage: "the new name"}}})

	configSet := urfave.Annotate(&cli.Command{
		Name:      "config-set",
		Usage:     "Set a setting in the project's configuration (./.e2eapp-config), or the user's with --global",
		ArgsUsage: "<key> [value]",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "value-file", Usage: "read the value from a file"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			env := runenv.From(ctx)
			value := c.Args().Get(1)
			if f := c.String("value-file"); f != "" {
				raw, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				value = string(raw)
			}
			// Read, change and write under the configuration's lock, so
			// that invocations setting keys at once all keep theirs (O-036).
			err := env.UpdateConfig(ctx, func(old []byte) ([]byte, error) {
				settings := map[string]string{}
				if old != nil {
					if err := json.Unmarshal(old, &settings); err != nil {
						return nil, err
					}
				}
				settings[c.Args().First()] = value
				return json.Marshal(settings)
			})
			if err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]any{"file": env.ConfigFile, "global": env.GlobalConfig, "key": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Mutating, ConfigWrite: schema.LocalConfig,
		SideEffects: []schema.SideEffect{{Path: "./.e2eapp-config", Kind: schema.ConfigFile}, {Path: "~/.config/e2eapp/config.json", Kind: schema.ConfigFile}},
		Args:        []schema.Arg{{Name: "key", Required: true, Type: schema.String, Usage: "the setting"}, {Name: "value", Type: schema.String, Usage: "its value"}}})

	return []*cli.Command{login, device, repos, rename, configSet}
}

// fingerprint names a token without showing it.
func fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])[:12]
}

// reportCacheTTL is how long report's cache is fresh.
const reportCacheTTL = time.Hour
