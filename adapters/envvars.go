package adapters

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// isEnvVarName reports whether name is what the CLI Agent Spec's AGENTS.md
// lists as a variable: ^[A-Z][A-Z0-9_]*$. By hand, not a package-level
// regexp, which every start of a wrapped app would compile.
func isEnvVarName(name string) bool {
	for i, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '_'):
		default:
			return false
		}
	}
	return name != ""
}

// WithEnvVar declares an environment variable the app reads itself, not
// through a flag's env source: its name, its type ("string", "integer",
// "boolean", "path", ...) and what it does. AGENTS.md's Environment
// Variables section and the root's --help list it (O-043), so that an agent
// learns every variable the tool reads. Duet's own variables and those of
// flags are listed without being declared.
func WithEnvVar(name, typ, description string) Option {
	return func(c *config) {
		c.envVars = append(c.envVars, describe.EnvVar{Name: name, Type: typ, Description: description})
	}
}

// checkEnvVars fails Prepare on a declaration AGENTS.md could not list.
func checkEnvVars(cfg *config) []error {
	var errs []error
	for _, v := range cfg.envVars {
		if !isEnvVarName(v.Name) {
			errs = append(errs, fmt.Errorf("WithEnvVar(%q): the name must be upper case letters, digits and _, starting with a letter", v.Name))
		}
		if v.Type == "" || v.Description == "" {
			errs = append(errs, fmt.Errorf("WithEnvVar(%q): give its type and what it does", v.Name))
		}
	}
	return errs
}

// EnvHelp is the paragraph the root's --help adds for the variables opts
// declare with [WithEnvVar], or "" when they declare none. The adapters
// append it to the root's description.
func EnvHelp(opts ...Option) string {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.envVars) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Environment variables it reads:")
	for _, v := range cfg.envVars {
		fmt.Fprintf(&b, "\n%s (%s): %s", v.Name, v.Type, v.Description)
	}
	return b.String()
}

// RootEnvHelp is what an adapter appends to the root's description: the
// variables opts declare (see [EnvHelp]) and, for an app that ports a
// command (ported: [Framework.Declared]), the variables Duet reads for it —
// its own ([describe.DuetEnv]), those a ported command's Meta.Flags
// declares, which the framework's help of the flag cannot show, and the
// sentence naming those every Duet tool reads — so that the root's help
// names every variable its AGENTS.md lists (O-043). An app nobody ported
// keeps its help as it was: "" when it declares no variable.
func RootEnvHelp(root *schema.Command, ported bool, opts ...Option) string {
	s := EnvHelp(opts...)
	if !ported {
		return s
	}
	var names []string
	for _, v := range describe.DuetEnv(root.Name) {
		names = append(names, v.Name)
	}
	settings := "Settings it reads from the environment (`" + root.Name + " manifest` describes each): " + strings.Join(names, ", ")
	if flags := metaFlagEnv(root); len(flags) > 0 {
		settings += "; and for flags: " + strings.Join(flags, ", ")
	}
	return strings.TrimLeft(s+"\n\n"+settings+".\n\n"+describe.AmbientEnv, "\n")
}

// metaFlagEnv lists the variables the ported commands' Meta.Flags declare,
// each as "NAME (command --flag)", in the tree's order.
func metaFlagEnv(root *schema.Command) []string {
	var out []string
	seen := map[string]bool{}
	root.Walk(func(c *schema.Command) {
		if !c.Declared {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(c.Meta.Flags)) {
			for _, e := range c.Meta.Flags[name].Env {
				if !seen[e] {
					seen[e] = true
					out = append(out, fmt.Sprintf("%s (%s --%s)", e, strings.Join(c.Path, " "), name))
				}
			}
		}
	})
	return out
}

// envVar is a variable WithEnvVar declares, as AGENTS.md lists it.
type envVar = describe.EnvVar
