package run

import (
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// TestTotalsRound ends the sums of run stats where the harnesses' figures
// end: floating-point sums of costs such as 0.1 + 0.2 leave binary fractions
// (0.30000000000000004) a person and an agent would read.
func TestTotalsRound(t *testing.T) {
	var tot Totals
	for _, c := range []float64{0.1, 0.2, 0.284} {
		tot.add(state.Group{Status: state.Succeeded, Runs: 1, TotalCostUSD: c, DurationSecs: c * 10})
	}
	if tot.CostUSD == 0.584 {
		t.Fatal("the sum came out exact: the test shows nothing")
	}
	tot.round()
	if tot.CostUSD != 0.584 || tot.DurationSecs != 5.84 {
		t.Errorf("rounded cost %v, duration %v; want 0.584 and 5.84", tot.CostUSD, tot.DurationSecs)
	}
}
