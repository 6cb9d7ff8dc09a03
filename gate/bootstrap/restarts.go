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
// Init writes n as a multiple of k (evenTrials), so every start runs n/k.
func RestartsDesign(m Metric, r Rules, n, k int) verdict.Design {
	d := StoredDesign(m, r, n, k)
	d.CandidateSessions = k
	d.BaselineTrials = (n + k - 1) / k
	return d
}

// evenTrials is n rounded up to a multiple of k, at most most rounded
// down to one; 0 when not even k trials fit.
func evenTrials(n, k, most int) int {
	n = (n + k - 1) / k * k
	if n > most {
		n = most - most%k
	}
	return n
}

// restartsPlan is the cheapest (starts, trials) at which every metric's
// restarted check is decidable, with at least two trials per start and
// at most MaxRestarts starts and MaxTrials trials; 0, 0 when none is.
func restartsPlan(ms []Metric, r Rules, c Costs) (k, n int) {
	var best time.Duration
	for kk := 2; kk <= r.MaxRestarts; kk++ {
		for nn := evenTrials(max(r.MinTrials, 2*kk), kk, r.MaxTrials); nn >= 2*kk && nn <= r.MaxTrials; nn += kk {
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

// widenedRestarts is the restarted check to widen over when no check
// decides the configured tolerances: the fewest starts (from 2 to
// MaxRestarts, with at least two trials per start, at least n trials, and
// at most MaxTrials) whose widened tolerances are within one grain (half a
// percent) of the most starts', within MaxGPU. It is chosen (ok) only when
// it widens no metric more than the one-session check of n trials does
// and some metric less: spread over starts, the candidate's session
// offsets average out, so it can pass an unchanged build at tolerances one
// session cannot.
func widenedRestarts(ms []Metric, r Rules, c Costs, n int) (k, trials int, ok bool) {
	kmax := min(r.MaxRestarts, r.MaxTrials/2)
	if kmax < 2 {
		return 0, 0, false
	}
	tols := func(design func(Metric) verdict.Design) []float64 {
		out := make([]float64, len(ms))
		for i, m := range ms {
			if silent(m) {
				out[i] = m.Tolerance
				continue
			}
			out[i] = max(m.Tolerance, widen(design(m).PassTolerance()))
		}
		return out
	}
	at := func(k int) (int, []float64) {
		nn := evenTrials(max(2*k, n), k, r.MaxTrials)
		return nn, tols(func(m Metric) verdict.Design { return RestartsDesign(m, r, nn, k) })
	}
	stored := tols(func(m Metric) verdict.Design { return StoredDesign(m, r, n, 1) })
	_, best := at(kmax)
	for kk := 2; kk <= kmax; kk++ {
		nn, t := at(kk)
		if r.MaxGPU > 0 && restartsCost(c, kk, nn) > r.MaxGPU {
			continue
		}
		near, tighter := true, false
		for i := range ms {
			if t[i] > best[i]+0.005+1e-9 || t[i] > stored[i]+1e-9 {
				near = false
				break
			}
			tighter = tighter || t[i] < stored[i]-1e-9
		}
		if near {
			return kk, nn, tighter
		}
	}
	return 0, 0, false
}
