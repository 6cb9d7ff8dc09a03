package bootstrap

import (
	"time"

	"github.com/perfgate/perfgate/gate/verdict"
)

// A stored-baseline check whose trials are spread over K server starts
// (trials.restarts: K) on both arms: the PR's candidate and the baseline
// it is judged against (the first baseline is recorded the same way, and
// every nightly adds sessions). Each start is a session to the verdict,
// so the estimate's between-session variance is σb²·(1/K + 1/K) instead of
// the 2σb² of one session per arm: the check decides below the
// between-session noise from one build, at K start-ups per PR instead of
// the A/B's one per block plus building the merge base.

// RestartsDesign is the verdict's design of a check of m with n trials
// per arm spread over k starts on each arm.
func RestartsDesign(m Metric, r Rules, n, k int) verdict.Design {
	d := StoredDesign(m, r, n, k)
	d.CandidateSessions = k
	d.BaselineTrials = (n + k - 1) / k
	return d
}

// restartsPlan is the cheapest (starts, trials) at which every metric's
// restarted check is decidable, with at least two trials per start and
// at most MaxRestarts starts and MaxTrials trials; 0, 0 when none is.
func restartsPlan(ms []Metric, r Rules, c Costs) (k, n int) {
	var best time.Duration
	for kk := 2; kk <= r.MaxRestarts; kk++ {
		for nn := max(r.MinTrials, 2*kk); nn <= r.MaxTrials; nn++ {
			ok := true
			for _, m := range ms {
				if !silent(m) && RestartsDesign(m, r, nn, kk).PassTolerance() > m.Tolerance*(1+1e-9) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			if cost := restartsCost(c, kk, nn); k == 0 || cost < best {
				k, n, best = kk, nn, cost
			}
			break // more trials at these starts only cost more
		}
	}
	return k, n
}

// restartsCost is one PR check's GPU time with k starts and n trials.
func restartsCost(c Costs, k, n int) time.Duration {
	return time.Duration(k)*c.Startup + time.Duration(n)*c.Trial
}
