package conformance

import (
	"context"
	"testing"
)

// Test checks target and reports each requirement as a subtest named by its
// id: a failure fails it with the evidence, and a requirement that does not
// apply, or could not be judged, is skipped, saying why. It returns the report.
//
//	func TestConformance(t *testing.T) {
//		conformance.Test(t, conformance.Target{Path: buildMyTool(t)}, conformance.Options{})
//	}
func Test(t *testing.T, target Target, opts Options) *Report {
	t.Helper()
	report, err := Check(context.Background(), target, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range report.Results {
		t.Run(res.ID, func(t *testing.T) {
			switch res.Status {
			case NotApplicable, NotJudged:
				t.Skipf("%s: %s (no check applied to this target)", res.Title, res.Status)
			case Fail:
				for _, f := range res.Failures {
					t.Errorf("%s — %s: %s\n\t%s", res.Title, f.Probe, f.Evidence, f.Command)
				}
			}
		})
	}
	return report
}
