package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// The schemas commands: what a command declares of its input, as the
// manifest and --schema say it (REQ-C-015) — positionals in call order, a
// flag that takes one JSON object (type "object" with its schema, checked
// before the command runs), and integer flags and positionals whose values
// are a few integers (enum_values as numbers).

// WatchFilter is the schema of watch's --filter: the JSON object that
// chooses what a watch sees.
var WatchFilter = schema.MustParse(`{
	"type": "object",
	"properties": {
		"status": {"type": "string", "enum": ["open", "closed"], "description": "the state of the items watched"},
		"labels": {"type": "array", "items": {"type": "string"}, "description": "labels every item watched has"}
	},
	"required": ["status"],
	"additionalProperties": false
}`)

// watchResult is watch's data.
type watchResult struct {
	Target  string          `json:"target"`
	Level   int             `json:"level"`
	SigType int             `json:"sig_type"`
	Filter  json.RawMessage `json:"filter"`
	File    string          `json:"file"`
}

// schemasCommands are the schemas commands of e2eapp.
func schemasCommands() []*cli.Command {
	watch := urfave.Annotate(&cli.Command{
		Name:      "watch",
		Usage:     "Start watching a target's items that match --filter, at a level, saving the watch to a file",
		ArgsUsage: "<target> <level>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "filter", Usage: "what to watch, as one JSON object: {\"status\": ...}", Required: true},
			&cli.IntFlag{Name: "sig-type", Usage: "the signature type: 0 none, 1 hmac, 2 ed25519"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			level, err := strconv.Atoi(c.Args().Get(1))
			if err != nil {
				return fmt.Errorf("level %q: %w", c.Args().Get(1), err) // checked in phase 1: cannot happen
			}
			r := watchResult{Target: c.Args().First(), Level: level, SigType: int(c.Int("sig-type")), Filter: json.RawMessage(c.String("filter"))}
			dir := filepath.Join(dataHome(), Name, "watches")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("saving the watch: %w", err)
			}
			r.File = filepath.Join(dir, r.Target+".json")
			raw, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := os.WriteFile(r.File, raw, 0o600); err != nil {
				return fmt.Errorf("saving the watch: %w", err)
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(r)
		},
	}, schema.Meta{Danger: schema.Mutating, Output: schema.Of[watchResult](),
		Flags: map[string]schema.FlagMeta{
			"filter":   {Schema: WatchFilter},
			"sig-type": {Enum: []string{"0", "1", "2"}},
		},
		Args: []schema.Arg{
			{Name: "target", Required: true, Type: schema.String, Pattern: "^[a-z0-9-]+$", Usage: "the target to watch"},
			{Name: "level", Required: true, Type: schema.Integer, Enum: []string{"1", "2", "3"}, Usage: "how closely to watch: 1, 2 or 3"},
		}})
	return []*cli.Command{watch}
}

// schemasOptions are the Duet options the schemas commands need.
func schemasOptions() []urfave.Option { return nil }
