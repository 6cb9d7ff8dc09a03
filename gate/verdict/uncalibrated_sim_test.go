package verdict

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// family names the metric families whose false alarms are counted apart:
// an assumption that fits latency but not throughput (the 1 % default of
// old) shows up as one family's rate.
func family(id string) string {
	switch {
	case Absolute(id):
		return "ratio"
	case id == "output_throughput" || id == "request_throughput":
		return "throughput"
	case DefaultTolerance(id) > 0.03:
		return "tail latency"
	}
	return "centre latency"
}

// TestUncalibratedHoldsAlpha: nothing calibrated, no history, a baseline
// of one session against a candidate of another, both unchanged; the true
// between-session CV is 2, 4 or 8 % (a fresh log-normal offset per arm,
// workload and metric), within-session CV 1 %, 10 workloads x the default
// gated metrics, designs 5 v 5, 10 v 10 and 20 v 5 in turn. Over 1,000
// runs per CV (never reduced: the bound is the product's promise), A/A
// gates report a false regression in at most alpha (1 %) of runs, in
// every metric family and in all together. Simulated at the summary level
// (trial values straight into Compare), so it costs seconds.
func TestUncalibratedHoldsAlpha(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	const runs = 1000
	designs := [][2]int{{5, 5}, {10, 10}, {20, 5}}
	p := DefaultPolicy()
	for i, cv := range []float64{0.02, 0.04, 0.08} {
		t.Run(fmt.Sprintf("between CV %.0f%%", 100*cv), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(2202, uint64(i)))
			falseBy := map[string]int{}
			anyFalse, inconclusive := 0, 0
			for r := 0; r < runs; r++ {
				d := designs[r%len(designs)]
				w := newWorld(rng, simWorkloads, constant(0.01), cv)
				cmp, err := Compare(w.session(rng, d[0], "", 1), w.session(rng, d[1], "", 1), p, Look{})
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				for _, c := range cmp.Cells {
					if c.Gated && c.Outcome == Regression {
						seen[family(c.Metric)] = true
					}
				}
				for f := range seen {
					falseBy[f]++
				}
				if len(seen) > 0 {
					anyFalse++
				}
				if cmp.Verdict == Inconclusive {
					inconclusive++
				}
			}
			t.Logf("between CV %.0f%%, %d A/A runs: any false regression %.2f%% (centre %.2f%%, tail %.2f%%, throughput %.2f%%), inconclusive %.1f%%",
				100*cv, runs, 100*float64(anyFalse)/runs, 100*float64(falseBy["centre latency"])/runs, 100*float64(falseBy["tail latency"])/runs,
				100*float64(falseBy["throughput"])/runs, 100*float64(inconclusive)/runs)
			if float64(anyFalse)/runs > p.Alpha {
				t.Errorf("any false regression in %.2f%% of runs > alpha %.0f%%", 100*float64(anyFalse)/runs, 100*p.Alpha)
			}
			for f, n := range falseBy {
				if float64(n)/runs > p.Alpha {
					t.Errorf("%s: false regressions in %.2f%% of runs > alpha", f, 100*float64(n)/runs)
				}
			}
		})
	}
}
