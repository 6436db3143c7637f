package adapters

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/describe"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// The tool's own environment variables (the CLI Agent Spec's F-073): every
// one Duet reads for a tool is named <TOOL>_..., so that two tools in one
// agent session never read each other's settings — DEBUG=1 changes
// nothing, <TOOL>_DEBUG=1 is --debug — and `tool manifest` lists them all,
// with those the app's flags read, as its "environment".

// debugFromEnv reports whether <TOOL>_DEBUG asks for --debug's trace: a
// true value, and no --quiet or --verbose on the command line, which win.
func (inv *invocation) debugFromEnv() bool {
	on, err := strconv.ParseBool(inv.cfg.getenv(envelope.EnvName(inv.root.Name, "DEBUG")))
	return err == nil && on && !inv.call.on(FlagQuiet) && !inv.call.on(FlagVerbose)
}

// duetEnvVars are the variables Duet reads for a tool beyond those
// describe's AGENTS.md lists (describe.Manifest.EnvVars).
func duetEnvVars(tool string) []describe.EnvVar {
	name := func(s string) string { return envelope.EnvName(tool, s) }
	return []describe.EnvVar{
		{Name: name("DEBUG"), Type: "boolean", Description: "1 or true: the same as --debug"},
		{Name: name("AUDIT_LOG"), Type: "string", Description: "the audit log's file; off keeps none"},
		{Name: name("TRACE_ID"), Type: "string", Description: "the caller's trace id, on every log line and in meta.trace_id"},
		{Name: name("INSTANCE_ID"), Type: "string", Description: "the same as --instance-id"},
		{Name: name("NO_UPDATE"), Type: "boolean", Description: "the same as --no-update-check"},
		{Name: name("SESSION_ID"), Type: "string", Description: "the agent session recorded as the operator in the audit log"},
		{Name: name("STATE_DIR"), Type: "string", Description: "the directory of the tool's state: jobs, idempotency records"},
		{Name: name("MAX_STDIN_BYTES"), Type: "integer", Description: fmt.Sprintf("the most bytes read from stdin (default %d)", schema.DefaultMaxStdinBytes)},
	}
}

// manifestEnv is the manifest's "environment": every variable the tool
// reads of its own, by name.
func manifestEnv(m describe.Manifest) []describe.SpecEnvVar {
	vars := append(m.EnvVars(), duetEnvVars(m.Tool)...)
	slices.SortFunc(vars, func(a, b describe.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	out := make([]describe.SpecEnvVar, 0, len(vars))
	for i, v := range vars {
		if i > 0 && vars[i-1].Name == v.Name {
			continue
		}
		out = append(out, describe.SpecEnvVar{Name: v.Name, Description: v.Description})
	}
	return out
}
