package verdict

import (
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestGateOnMetricPercentile: a workload that records p75
// (metric_percentiles) and gates tpot_ms.p75 is judged on it: the rule
// reaches the comparison and a 40 % slower p75 regresses.
func TestGateOnMetricPercentile(t *testing.T) {
	spec := result.Spec{Kind: result.KindServing, Name: "p", Cell: "p",
		Load:              result.Load{Requests: 10, Rate: 1, Burstiness: 1},
		MetricPercentiles: []float64{75},
		Gate:              []result.GateRule{{Metric: "tpot_ms.p75", Tolerance: 0.05}},
	}
	trials := func(centre float64) map[string][]float64 {
		return map[string][]float64{
			"tpot_ms.p75":       {centre, centre * 1.01, centre * 0.99, centre * 1.005, centre * 0.995},
			"output_throughput": {100, 101, 99, 100.5, 99.5},
			"success_rate":      {1, 1, 1, 1, 1},
		}
	}
	b := withSpec(newResult("p", trials(20)), spec)
	c := withSpec(newResult("p", trials(28)), spec)
	cmp := mustCompare(t, []*result.Result{b}, []*result.Result{c}, oneSession())
	var found *Cell
	for i := range cmp.Cells {
		if cmp.Cells[i].Metric == "tpot_ms.p75" {
			found = &cmp.Cells[i]
		}
	}
	if found == nil || !found.Gated {
		t.Fatalf("tpot_ms.p75 not gated: %+v", cmp.Cells)
	}
	if cmp.Verdict != Regression {
		t.Errorf("verdict %s, want regression on tpot_ms.p75", cmp.Verdict)
	}
}
