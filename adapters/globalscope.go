package adapters

import (
	"fmt"

	"github.com/duet-cli/duet/schema"
)

// checkGlobalScope holds the ported commands of a spec-strict app to the
// CLI Agent Spec's F-079: a command-local flag must not reuse the long
// name, an alias or the short name of a global option (a persistent flag
// of the root: Duet's --format, --quiet, ... and the app's own), so that
// -f never means --format on one command and --force on another.
//
// Only there: Duet's design is that adopting it never breaks an app, and
// that its words stay out of an app that defines them itself, so anywhere
// else the command's own flag is adopted (see appendMissing). An app that
// opts into the spec's strictness, for a command it ported, asks for the
// spec's refusal at startup instead.
func checkGlobalScope(root *schema.Command) []error {
	long := map[string]*schema.Flag{}  // a global option by each of its long names
	short := map[string]*schema.Flag{} // and by its short name
	for i := range root.Flags {
		g := &root.Flags[i]
		if !g.Persistent {
			continue // the root's own, which no subcommand accepts
		}
		for _, n := range g.Names() {
			long[n] = g
		}
		if g.Short != "" {
			short[g.Short] = g
		}
	}
	var errs []error
	root.Walk(func(c *schema.Command) {
		if c == root || !c.Declared {
			return
		}
		for i := range c.Flags {
			f := &c.Flags[i]
			if f.Builtin {
				continue
			}
			for _, n := range f.Names() {
				if g := long[n]; g != nil {
					errs = append(errs, fmt.Errorf("command %q: flag %s reuses --%s, a name of the global option %s: %s",
						c.DotPath(), flagLabel(f), n, flagLabel(g), globalScopeFix))
				}
			}
			if g := short[f.Short]; f.Short != "" && g != nil {
				errs = append(errs, fmt.Errorf("command %q: flag %s reuses -%s, the short name of the global option %s: %s",
					c.DotPath(), flagLabel(f), f.Short, flagLabel(g), globalScopeFix))
			}
		}
	})
	return errs
}

// globalScopeFix is what a refusal of checkGlobalScope tells the author.
const globalScopeFix = "a global option means the same on every command (REQ-F-079, refused in a spec-strict app); rename the command's flag"

// flagLabel names a flag as its help does: --force (-f).
func flagLabel(f *schema.Flag) string {
	if f.Short != "" {
		return "--" + f.Name + " (-" + f.Short + ")"
	}
	return "--" + f.Name
}
