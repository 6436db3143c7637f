package adapters

import (
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
)

// The tool's own environment variables (the CLI Agent Spec's F-073): every
// one Duet reads for a tool is named <TOOL>_..., so that two tools in one
// agent session never read each other's settings: DEBUG=1 changes
// nothing, <TOOL>_DEBUG=1 is --debug. (They are not in `tool manifest`,
// whose strict schema (O-041) has no "environment".)

// debugFromEnv reports whether <TOOL>_DEBUG asks for --debug's trace: a
// true value, and no --quiet or --verbose on the command line, which win.
func (inv *invocation) debugFromEnv() bool {
	return isTrue(inv.cfg.getenv(envelope.EnvName(inv.root.Name, "DEBUG"))) && !inv.call.on(flagname.Quiet) && !inv.call.on(flagname.Verbose)
}
