package conformance

import (
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
	reqs, modes, err := theSpec()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != len(reqs) || len(r.Modes) != len(modes) || len(reqs) != 158 || len(modes) != 71 {
		t.Fatalf("%d requirements and %d modes in the report; the spec has %d and %d", len(r.Results), len(r.Modes), len(reqs), len(modes))
	}
	byStatus := map[Status]int{}
	for _, res := range r.Results {
		byStatus[res.Status]++
	}
	if byStatus[Pass] != 1 || byStatus[Fail] != 1 || byStatus[NotJudged] != 158-len(probed) || byStatus[NotApplicable] != len(probed)-2 {
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
