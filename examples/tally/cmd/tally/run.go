//go:build !bare

package main

import (
	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/examples/tally/internal/app"
)

// run is the one line that adopts Duet: it was root.Execute().
func run(root *cobra.Command) {
	duetcobra.Main(root, adapters.WithVersion(app.Version))
}
