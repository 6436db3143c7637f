package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/spec"
)

// TestScoreModes scores failure modes from the verdicts on the
// requirements mapped to them.
func TestScoreModes(t *testing.T) {
	modes := []spec.Mode{{Number: 1, Name: "all pass"}, {Number: 2, Name: "judged pass"}, {Number: 3, Name: "mixed"},
		{Number: 4, Name: "all fail"}, {Number: 5, Name: "none judged"}, {Number: 6, Name: "nothing mapped"}}
	res := func(id string, s Status, modes ...int) RequirementResult {
		return RequirementResult{Requirement: Requirement{ID: id, Modes: modes}, Status: s}
	}
	results := []RequirementResult{
		res("F-001", Pass, 1, 2, 3), res("F-002", Pass, 1), res("F-003", NotJudged, 2, 5), res("F-004", Fail, 3, 4),
		res("F-005", NotApplicable, 4, 5),
	}
	got, tally := scoreModes(modes, results)
	score := func(n int) *int { return &n }
	want := []ModeScore{
		{Number: 1, Name: "all pass", Score: score(3), Requirements: []string{"F-001", "F-002"}},
		{Number: 2, Name: "judged pass", Score: score(2), Requirements: []string{"F-001", "F-003"}},
		{Number: 3, Name: "mixed", Score: score(1), Requirements: []string{"F-001", "F-004"}},
		{Number: 4, Name: "all fail", Score: score(0), Requirements: []string{"F-004", "F-005"}},
		{Number: 5, Name: "none judged", Requirements: []string{"F-003", "F-005"}},
		{Number: 6, Name: "nothing mapped"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scoreModes (-want +got):\n%s", diff)
	}
	if want := (ModeTally{Points: 6, Scored: 4, Modes: 6}); tally != want || tally.Percent() != 50 {
		t.Errorf("tally %+v (%.1f %%), want %+v (50 %%)", tally, tally.Percent(), want)
	}
}

// TestReportCoversTheSpec: a report has a verdict on every requirement of
// the spec and a line for every failure mode, whatever was probed, and the
// scorecard shows them.
func TestReportCoversTheSpec(t *testing.T) {
	c := &checker{target: Target{Path: "tool"}}
	c.record("probe", nil, nil, Pass, "", "F-001")
	c.record("probe", nil, nil, Fail, "exit 1, want 2", "F-002")
	r := c.report(&tree{source: "help"}, 0)
	// The spec's tables, as package spec holds them (its own tests hold
	// their counts to the spec's version, spec.Version).
	reqs, err := spec.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	modes, err := spec.Modes()
	if err != nil {
		t.Fatal(err)
	}
	var wantIDs, gotIDs []string
	for _, req := range reqs {
		wantIDs = append(wantIDs, req.ID)
	}
	for _, res := range r.Results {
		gotIDs = append(gotIDs, res.ID)
	}
	if diff := cmp.Diff(wantIDs, gotIDs); diff != "" || len(reqs) == 0 {
		t.Fatalf("the report's requirements are not the spec %s's %d (-spec +report):\n%s", spec.Version, len(reqs), diff)
	}
	var wantModes, gotModes []int
	for _, m := range modes {
		wantModes = append(wantModes, m.Number)
	}
	for _, m := range r.Modes {
		gotModes = append(gotModes, m.Number)
	}
	if diff := cmp.Diff(wantModes, gotModes); diff != "" || len(modes) == 0 {
		t.Fatalf("the report's failure modes are not the spec %s's %d (-spec +report):\n%s", spec.Version, len(modes), diff)
	}
	for _, id := range probed {
		if !slices.Contains(wantIDs, id) {
			t.Errorf("%s is probed, yet no requirement of the spec %s", id, spec.Version)
		}
	}
	byStatus := map[Status]int{}
	for _, res := range r.Results {
		byStatus[res.Status]++
	}
	if byStatus[Pass] != 1 || byStatus[Fail] != 1 || byStatus[NotJudged] != len(reqs)-len(probed) || byStatus[NotApplicable] != len(probed)-2 {
		t.Errorf("verdicts %v", byStatus)
	}
	var md strings.Builder
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 | Exit Codes & Status Signaling | Crit | 1 | F-001 ✓, F-002 ✗ |", "| F-002 | ", "exit 1, want 2"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the scorecard lacks %q:\n%s", want, md.String())
		}
	}
}
