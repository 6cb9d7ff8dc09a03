package ab

import (
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// BenchmarkServerSecondsPerDecision measures the GPU time a decision
// costs, server starts included, for a 5 % decode slowdown (B decode
// x1.05): `perfgate ab` at the default design (restarted blocks, adaptive
// looks) against the fixed protocol of 10 trials per arm against a stored
// baseline (verdict.Compare with its adaptive looks adding candidate
// trials). A decision is a regression verdict with TPOT p50 named; the
// metric is the mean server-seconds of a run divided by the share of runs
// that decide (omitted when none does). The stored protocol is charged
// for both arms' servers (recording the baseline, then the candidate);
// stored-candidate-s/decision charges the candidate alone, as when the
// baseline is reused. stored-false-alarms is the share of runs in which
// the stored protocol calls an unchanged candidate a regression: under
// drift its "decisions" are the drift's.
//
// The runner is the trial-level model of model_test.go (30-second trials,
// 60-second starts) with a per-start offset of CV 2 %, with and without a
// drift of 2 %/minute; `make bench` prints the metrics.
func BenchmarkServerSecondsPerDecision(b *testing.B) {
	for _, wc := range []struct {
		name string
		w    world
	}{{"per-start-cv2", restarting}, {"drift2-cv2", world{TrialS: 30, StartupS: 60, SessionCV: 0.02, DriftPctPerMinute: 2}}} {
		b.Run(wc.name, func(b *testing.B) {
			const n = 100
			var abS, abDec, stS, stCand, stDec, stFalse float64
			for it := 0; it < b.N; it++ {
				abS, abDec, stS, stCand, stDec, stFalse = 0, 0, 0, 0, 0, 0
				for i := 0; i < n; i++ {
					r := rand.New(rand.NewPCG(uint64(i), 0xbe))
					c, e := abRun(wc.w, r, arm{1, 1}, arm{1, 1.05}, Options{Policy: verdict.DefaultPolicy()}, DefaultBlocks, DefaultBlockTrials, 0)
					abS += e.serverS
					if c.Verdict == verdict.Regression && regressed(c, "tpot_ms.p50") {
						abDec++
					}
					r = rand.New(rand.NewPCG(uint64(i), 0x5e))
					c, s := storedRun(wc.w, r, arm{1, 1}, arm{1, 1.05}, verdict.DefaultPolicy(), 10)
					stS += s
					stCand += s - (realistic.StartupS + 10*realistic.TrialS)
					if c.Verdict == verdict.Regression && regressed(c, "tpot_ms.p50") {
						stDec++
					}
					r = rand.New(rand.NewPCG(uint64(i), 0x5f))
					if c, _ := storedRun(wc.w, r, arm{1, 1}, arm{1, 1}, verdict.DefaultPolicy(), 10); c.Verdict == verdict.Regression {
						stFalse++
					}
				}
			}
			b.ReportMetric(abS/n, "ab-s/run")
			b.ReportMetric(abDec/n, "ab-decided")
			if abDec > 0 {
				b.ReportMetric(abS/abDec, "ab-s/decision")
			}
			b.ReportMetric(stS/n, "stored-s/run")
			b.ReportMetric(stDec/n, "stored-decided")
			b.ReportMetric(stFalse/n, "stored-false-alarms")
			if stDec > 0 {
				b.ReportMetric(stS/stDec, "stored-s/decision")
				b.ReportMetric(stCand/stDec, "stored-candidate-s/decision")
			}
		})
	}
}
