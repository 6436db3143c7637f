package urfave

import (
	"strings"

	"github.com/duet-cli/duet/adapters"
)

// addEnvHelp ends the root's description with the variables the app
// declares with adapters.WithEnvVar, and for a ported app those every Duet
// tool reads, so that its help names every one AGENTS.md lists.
func (a *App) addEnvHelp() {
	if s := adapters.RootEnvHelp(a.tree, a.declared, a.opts...); s != "" {
		a.root.Description = strings.TrimLeft(a.root.Description+"\n\n"+s, "\n")
	}
}
