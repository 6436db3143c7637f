package conformance

import "github.com/duet-cli/duet/internal/spec"

// Requirement is one requirement of the CLI Agent Spec.
type Requirement struct {
	ID       string `json:"id"` // F-004, C-013, O-041 ...
	Title    string `json:"title"`
	Priority string `json:"priority"`      // P0 (must) to P3
	Modes    []int  `json:"failure_modes"` // the failure modes (§) it addresses, as the spec maps them
}

// Tier is the requirement's class: F (framework-automatic), C (command
// contract) or O (opt-in).
func (r Requirement) Tier() string { return r.ID[:1] }

// Required reports whether a failure makes the target non-conforming: the
// spec's P0 requirements.
func (r Requirement) Required() bool { return r.Priority == "P0" }

// probed are the requirements the probes check. Every other requirement of
// the spec is reported as not judged: no probe of this checker looks at it.
var probed = []string{
	"F-001", "F-002", "F-003", "F-004", "F-005", "F-006", "F-007", "F-008", "F-009", "F-010", "F-012", "F-013",
	"F-014", "F-015", "F-018", "F-022", "F-029", "F-030", "F-039", "F-045", "F-048", "F-055", "F-056", "F-057", "F-068",
	"F-069", "F-072", "C-001", "C-002", "C-004", "C-011", "C-013", "C-015", "O-001", "O-003", "O-004", "O-009",
	"O-021", "O-041",
}

// theSpec is the spec's requirements, in its order, and its failure modes
// (package spec holds its tables).
func theSpec() ([]Requirement, []spec.Mode, error) {
	reqs, err := spec.Requirements()
	if err != nil {
		return nil, nil, err
	}
	modes, err := spec.Modes()
	if err != nil {
		return nil, nil, err
	}
	out := make([]Requirement, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, Requirement{ID: r.ID, Title: r.Title, Priority: r.Priority, Modes: r.Modes})
	}
	return out, modes, nil
}
