package app

import (
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
)

// configCommands are the commands that show what every answer's meta says and what the configuration flags change: schema version, request and trace ids, cwd, config sources, --no-config, --cwd, --context, --schema-version, --warnings-as-errors, retries.
func configCommands() []*cli.Command { return nil }

// configOptions are the Duet options the config commands need.
func configOptions() []urfave.Option { return nil }
