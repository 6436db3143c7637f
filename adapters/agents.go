package adapters

import (
	"runtime/debug"
	"strings"

	"github.com/duet-cli/duet/internal/describe"
)

// agentsInfo is what the tool's AGENTS.md says beside its commands.
func (inv *invocation) agentsInfo() describe.AgentsInfo {
	return describe.AgentsInfo{Install: inv.installCommand(), Env: inv.cfg.envVars, Ported: inv.fw.Declared(), LegacyOutput: inv.cfg.legacyOutput,
		AuditLog: inv.auditLogPath()}
}

// installCommand is WithInstall's command, else `go install` of the main
// package this binary was built from, at its module's version (@latest for a
// build from a working tree), or "" when the build does not say.
func (inv *invocation) installCommand() string {
	if c := inv.cfg.discovery.install; c != "" {
		return c
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Path == "" || strings.HasSuffix(bi.Path, ".test") || bi.Path == "command-line-arguments" {
		return ""
	}
	version := bi.Main.Version
	if version == "" || version == "(devel)" || strings.Contains(version, "+dirty") {
		version = "latest"
	}
	return "go install " + bi.Path + "@" + version
}
