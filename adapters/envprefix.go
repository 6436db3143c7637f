package adapters

import (
	"fmt"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// The tool's own environment variables (the CLI Agent Spec's F-073): every
// one Duet reads for a tool is named <TOOL>_..., so that two tools in one
// agent session never read each other's settings: DEBUG=1 changes
// nothing, <TOOL>_DEBUG=1 is --debug. `tool manifest` gives each its one
// home: the flag it is the default of, or root env_vars.

// debugFromEnv reports whether <TOOL>_DEBUG asks for --debug's trace: a
// true value, and no --quiet or --verbose on the command line, which win.
func (inv *invocation) debugFromEnv() bool {
	return isTrue(inv.cfg.getenv(envelope.EnvName(inv.root.Name, "DEBUG"))) && !inv.call.on(flagname.Quiet) && !inv.call.on(flagname.Verbose)
}

// checkEnvPrefix holds the ported commands of a spec-strict app to the CLI
// Agent Spec's F-073: a flag may read a variable without the tool's prefix
// (AWS_REGION, a family's CLOUDFALL_PROJECT) only after the prefixed name
// of the same setting, which wins. The manifest declares every variable a
// flag reads in its env_vars, so such a name is never undeclared there;
// what the spec refuses is the name that comes first, or alone, where
// another tool's setting would change this one. A sensitive flag's
// variables are secrets, homed in secret_env_vars, and not held to it.
//
// Only there: an app that reads GITHUB_TOKEN or AWS_REGION must keep
// working when it adopts Duet (adaptertest.Warnings names such a flag);
// an app that opts into the spec's strictness, for a command it ported,
// asks for the refusal at startup instead.
func checkEnvPrefix(root *schema.Command) []error {
	prefix := envelope.EnvName(root.Name, "")
	var errs []error
	root.Walk(func(c *schema.Command) {
		if !c.Declared {
			return
		}
		for _, f := range c.Flags {
			if f.Builtin || f.Sensitive || c != root && f.Persistent && root.Flag(f.Name) != nil {
				continue
			}
			prefixed := false
			for _, e := range f.Env {
				switch {
				case strings.HasPrefix(e, prefix):
					prefixed = true
				case universalEnv(e) || prefixed:
				default:
					errs = append(errs, fmt.Errorf("command %q: flag --%s reads %s, which lacks the tool's prefix %s, with no %s... name read before it: list the prefixed name first (REQ-F-073, refused in a spec-strict app)",
						c.DotPath(), f.Name, e, prefix, prefix))
				}
			}
		}
	})
	return errs
}

// universalEnv reports whether a tool may read name without its prefix:
// the CLI Agent Spec's universal exceptions (REQ-F-073).
func universalEnv(name string) bool {
	switch name {
	case "NO_COLOR", "CI", "HOME", "USER", "PATH", "PWD", "SHELL", "TERM", "COLUMNS",
		"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
		"REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "GITHUB_ACTIONS", "JENKINS_URL":
		return true
	}
	return false
}
