package history

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
)

func TestRunsCentre(t *testing.T) {
	runs := FromLines("a", []baseline.HistoryLine{
		{GitSHA: "old", WorkloadHash: "h0", Trials: []map[string]float64{{"tpot_ms.p50": 99}}},
		{GitSHA: "x", WorkloadHash: "h1", Trials: []map[string]float64{
			{"tpot_ms.p50": 10, "success_rate": 1, "ttft_ms.p50": 0},
			{"tpot_ms.p50": 40, "success_rate": 0.5, "ttft_ms.p50": 4},
		}}}).Runs()
	// The session of another workload hash is no point of the series.
	if len(runs) != 1 || runs[0].Commit != "x" {
		t.Fatalf("runs %+v, want the one session of the newest hash", runs)
	}
	c := runs[0].Centre
	// Geometric for relative metrics, arithmetic for absolute ones, as
	// verdict.Arm.Centre; a relative metric with a zero trial has no
	// log-scale level and no point.
	if math.Abs(c["tpot_ms.p50"]-20) > 1e-9 || math.Abs(c["success_rate"]-0.75) > 1e-12 {
		t.Errorf("centres %v, want tpot 20, success 0.75", c)
	}
	if _, ok := c["ttft_ms.p50"]; ok {
		t.Errorf("ttft_ms.p50 with a zero trial has a centre %v", c["ttft_ms.p50"])
	}
}
