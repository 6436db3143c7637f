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

// Claiming a level: every level-1 requirement is met, a level-2 one only
// partly, so the claim is level 1, and level 2 names what it still needs.
func ExampleLevels() {
	reqs := []spec.Requirement{
		{ID: "F-001", Level: 1},
		{ID: "F-004", Level: 1},
		{ID: "F-011", Level: 2},
		{ID: "F-049", Level: 3},
	}
	verdicts := []spec.Verdict{
		{ID: "F-001", Status: spec.Met},
		{ID: "F-004", Status: spec.Met},
		{ID: "F-011", Status: spec.Partial},
		{ID: "F-049", Status: spec.NotForGo},
	}
	c := spec.Levels(reqs, verdicts)
	fmt.Println("claimed: level", c.Claimed)
	for _, l := range c.Levels {
		fmt.Printf("level %d: %d met, %d n/a, of %d; short %d\n", l.Level, l.Met, l.NotForGo, l.Total, len(l.Short))
	}
	// Output:
	// claimed: level 1
	// level 1: 2 met, 0 n/a, of 2; short 0
	// level 2: 2 met, 0 n/a, of 3; short 1
	// level 3: 2 met, 1 n/a, of 4; short 1
}
