package conformance

import "strings"

// Requirement is one requirement of the CLI Agent Spec that a probe checks.
type Requirement struct {
	ID       string `json:"id"` // F-004, C-013, O-041 ...
	Title    string `json:"title"`
	Priority string `json:"priority"` // P0 (must) to P3
}

// Tier is the requirement's class: F (framework-automatic), C (command
// contract) or O (opt-in).
func (r Requirement) Tier() string { return r.ID[:1] }

// Required reports whether a failure makes the target non-conforming: the
// spec's P0 requirements.
func (r Requirement) Required() bool { return r.Priority == "P0" }

// requirements are those the probes check, from the spec's digest
// (reference/cli-agent-spec/requirements.md). A requirement no probe checks
// is left out of the report rather than reported as passing.
var requirements = []Requirement{
	{"F-001", "Standard exit code table", "P0"},
	{"F-002", "Exit 2 reserved for validation", "P0"},
	{"F-003", "JSON mode auto-activation", "P0"},
	{"F-004", "Consistent response envelope", "P0"},
	{"F-005", "Locale-invariant serialization", "P0"},
	{"F-006", "Stdout/stderr separation", "P0"},
	{"F-007", "ANSI suppression", "P0"},
	{"F-008", "NO_COLOR / CI detection", "P0"},
	{"F-009", "Non-interactive auto-detection", "P0"},
	{"F-010", "Pager suppression", "P0"},
	{"F-012", "Timeout exit code + JSON error", "P0"},
	{"F-013", "SIGTERM handler", "P0"},
	{"F-014", "SIGPIPE handler", "P0"},
	{"F-015", "Validate-before-execute", "P0"},
	{"F-018", "Pagination metadata", "P0"},
	{"F-022", "Schema version in every response", "P1"},
	{"F-029", "Auto-update suppression", "P1"},
	{"F-039", "Duration in meta", "P1"},
	{"F-045", "Hallucination input rejection", "P0"},
	{"F-048", "Help to stderr in non-TTY", "P0"},
	{"F-055", "EDITOR/VISUAL no-op", "P0"},
	{"F-056", "No width wrapping in JSON", "P0"},
	{"F-057", "Headless detection / GUI suppression", "P0"},
	{"F-068", "Help/version purity", "P0"},
	{"F-069", "SIGINT handler", "P0"},
	{"F-072", "LF line endings", "P1"},
	{"C-001", "Command declares exit codes", "P0"},
	{"C-002", "Danger level", "P0"},
	{"C-004", "Destructive ⇒ --dry-run", "P0"},
	{"C-013", "Error code + message", "P0"},
	{"C-015", "Input + output schema", "P1"},
	{"O-003", "--limit / --cursor", "P0"},
	{"O-009", "--validate-only", "P1"},
	{"O-021", "Destructive commands need confirmation", "P0"},
	{"O-041", "tool manifest", "P1"},
}

func requirement(id string) Requirement {
	for _, r := range requirements {
		if r.ID == id {
			return r
		}
	}
	return Requirement{ID: id, Title: strings.TrimSpace(id), Priority: "P3"}
}
