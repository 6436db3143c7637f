package adapters

import (
	"fmt"
	"strings"

	"github.com/duet-cli/duet/internal/describe"
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
// command (ported: [Framework.Declared]), the sentence naming the variables
// every Duet tool reads, which its AGENTS.md says too (O-043) — or "" when
// there is neither. An app nobody ported keeps its help as it was.
func RootEnvHelp(ported bool, opts ...Option) string {
	s := EnvHelp(opts...)
	if !ported {
		return s
	}
	if s == "" {
		return describe.AmbientEnv
	}
	return s + "\n\n" + describe.AmbientEnv
}

// envVar is a variable WithEnvVar declares, as AGENTS.md lists it.
type envVar = describe.EnvVar
