package cobra

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
)

// Re-exported options of the discovery built-ins (see package adapters).
var (
	WithChangelog     = adapters.WithChangelog
	WithCheck         = adapters.WithCheck
	WithDependency    = adapters.WithDependency
	WithStateFile     = adapters.WithStateFile
	WithSideEffect    = adapters.WithSideEffect
	WithInstall       = adapters.WithInstall
	WithHistory       = adapters.WithHistory
	WithMCPToolSource = adapters.WithMCPToolSource
	WithEnvVar        = adapters.WithEnvVar
)

// shortFree returns short when no flag cmd accepts has it, and "" otherwise:
// pflag panics on a shorthand defined twice.
func shortFree(cmd *cobra.Command, short string) string {
	if short == "" || cmd.Flags().ShorthandLookup(short) != nil || cmd.PersistentFlags().ShorthandLookup(short) != nil {
		return ""
	}
	for p := cmd.Parent(); p != nil; p = p.Parent() {
		if p.PersistentFlags().ShorthandLookup(short) != nil {
			return ""
		}
	}
	return short
}

// addEnvHelp ends the root's long description with the variables the app
// declares with WithEnvVar, so that its help names every one AGENTS.md lists.
func (a *App) addEnvHelp() {
	if s := adapters.EnvHelp(a.opts...); s != "" {
		long := a.root.Long
		if long == "" {
			long = a.root.Short
		}
		a.root.Long = strings.TrimLeft(long+"\n\n"+s, "\n")
	}
}
