package history

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The history's segment, built from history lines as the gate builds it
// (FromLines, SegmentBaselines), is a baseline of several sessions: with
// 10 nightly sessions of 5 trials (between-session CV 1 %, within 2 %) and
// 5 candidate trials (a session with its own offset), an 8 % TPOT
// regression is found in at least 90 % of runs (the power curve is
// logged), and an unchanged build is called a regression in at most 2 %
// of runs (alpha 0.01 plus the sampling error of 300 runs). The verdict's own seeded tests
// (TestSimulatedHistoryBaseline) measure the same over ten workloads.
func TestSegmentAsBaselinePower(t *testing.T) {
	runs := 300
	if testing.Short() {
		runs = 60
	}
	p := verdict.DefaultPolicy()
	p.Rules = []verdict.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "output_throughput", Gated: true, Tolerance: 0.03}}
	for i, change := range []float64{0, 0.03, 0.05, 0.08, 0.12} {
		rng := rand.New(rand.NewPCG(23, uint64(i)))
		found, wrong := 0, 0
		for r := 0; r < runs; r++ {
			lines := nightly(rng, 10, 5, 0.01, 0.02, flat)
			c := FromLines("chat", lines)
			arm, seg := c.SegmentBaselines(baseFor(lines[9]), []string{"tpot_ms.p50", "output_throughput"}, 9, DefaultDetector())
			if r == 0 && (len(arm) != seg.Len() || len(arm) < 9) {
				t.Fatalf("segment of %d sessions (%+v)", len(arm), seg)
			}
			// The candidate is a session of its own: offset like any other.
			cand := candidate(rng, 5, 0.02, 0.01*rng.NormFloat64(), day0.AddDate(0, 0, 10).Add(time.Hour))
			cand.Trials = tpotOnly(cand.Trials, change)
			cmp, err := verdict.Compare(arm, []*result.Result{cand}, p, verdict.Look{})
			if err != nil {
				t.Fatal(err)
			}
			for _, cell := range cmp.Cells {
				if cell.Outcome != verdict.Regression {
					continue
				}
				if cell.Metric == "tpot_ms.p50" && change > 0 {
					found++
				} else {
					wrong++
				}
			}
		}
		pf, pw := float64(found)/float64(runs), float64(wrong)/float64(runs)
		t.Logf("TPOT +%.0f%%, 10-session segment from history lines, %d runs: found %.1f%%, other cells called regressions %.2f%%", 100*change, runs, 100*pf, 100*pw)
		if change == 0 && pw > 0.02 {
			t.Errorf("A/A: cells called regressions in %.1f%% of runs", 100*pw)
		}
		if change == 0.08 && pf < 0.90 {
			t.Errorf("+8%%: found in %.1f%%, want at least 90%%", 100*pf)
		}
	}
}

// tpotOnly slows TPOT by change, leaving the other metrics as drawn.
func tpotOnly(ts []result.Trial, change float64) []result.Trial {
	for i := range ts {
		ts[i].Values["tpot_ms.p50"] *= 1 + change
	}
	return ts
}
