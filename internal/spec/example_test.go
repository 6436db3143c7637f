package spec_test

import (
	"fmt"

	"github.com/duet-cli/duet/internal/spec"
)

// Scoring two failure modes: one whose requirements are all met, one where
// a requirement is only partly met.
func ExampleCoverage() {
	reqs := []spec.Requirement{
		{ID: "F-001", Title: "Standard Exit Code Table", Modes: []int{1}},
		{ID: "F-013", Title: "SIGTERM Handler Installation", Modes: []int{16}},
		{ID: "F-069", Title: "SIGINT Handler Installation", Modes: []int{16}},
	}
	modes := []spec.Mode{{Number: 1, Name: "Exit Codes"}, {Number: 16, Name: "Signal Handling"}}
	verdicts := []spec.Verdict{
		{ID: "F-001", Status: spec.Met},
		{ID: "F-013", Status: spec.Met},
		{ID: "F-069", Status: spec.Partial},
	}
	r := spec.Coverage(reqs, modes, verdicts)
	for _, m := range r.Modes {
		fmt.Printf("§%d %s: %s\n", m.Number, m.Name, m.Status)
	}
	fmt.Printf("%.1f%%\n", r.Percent())
	// Output:
	// §1 Exit Codes: met
	// §16 Signal Handling: partial
	// 75.0%
}
