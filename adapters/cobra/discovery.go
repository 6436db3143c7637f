package cobra

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/duet-cli/duet/adapters"
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
// declares with adapters.WithEnvVar, and for a ported app those every Duet
// tool reads, so that its help names every one AGENTS.md lists.
func (a *App) addEnvHelp() {
	if s := adapters.RootEnvHelp(a.tree, a.declared, a.opts...); s != "" {
		long := a.root.Long
		if long == "" {
			long = a.root.Short
		}
		a.root.Long = strings.TrimLeft(long+"\n\n"+s, "\n")
	}
}
