package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/perfgate/perfgate/gate/metrics"
)

// Outlier is a trial left out of one cell because its value is far
// outside the other trials of its session: a noisy neighbour, a GC pause,
// a throttled GPU. It stays in Arm.Values; the test does not use it. In a
// paired A/B cell (gate/ab) the rule screens each arm's block values, and
// an Outlier is a block: Arm "a" or "b", Block set, Trial 0.
type Outlier struct {
	Arm string `json:"arm"` // "baseline" or "candidate"; "a" or "b" in a paired cell
	// Session is the 1-based baseline session of a several-session
	// baseline; 0 otherwise.
	Session int `json:"session,omitempty"`
	// Block is the 1-based block of a paired A/B cell left out, Value the
	// block's value; 0 otherwise.
	Block int     `json:"block,omitempty"`
	Trial int     `json:"trial"`
	Value float64 `json:"value"`
	// Score is the trial's distance from the mean of the session's other
	// trials in units of their moderated standard deviation.
	Score float64 `json:"score"`
	// P is the two-sided p-value of Score (before the Bonferroni factor).
	P float64 `json:"p"`
}

// minOutlierTrials is the fewest trials a session needs for the rule: the
// three others then still give a spread of their own.
const minOutlierTrials = 4

// dropOutliers applies the outlier-trial rule to every session of both
// arms: in a session of n >= 4 trials, the trial farthest from the
// session's median is left out when its studentized deleted residual
//
//	r = |x − mean(others)| / (s · sqrt(1 + 1/(n−1)))
//
// has a two-sided p-value below OutlierAlpha/n on Student's t, where s² is
// the others' variance moderated by the metric's within-session prior
// (the same empirical-Bayes posterior the test uses, on d0 + n − 2
// degrees of freedom). Leaving the suspect out of its own yardstick keeps
// one wild trial from hiding itself; the prior keeps three quiet trials
// from making an ordinary one look wild. At most one trial per session is
// dropped, so the rule cannot eat a real change: a slowdown moves every
// trial of the candidate, not one. Under the model each session loses a
// good trial with probability at most OutlierAlpha.
func (pc *pendingCell) dropOutliers(pr varPrior, p *Policy) {
	if p.OutlierAlpha <= 0 {
		return
	}
	drop := func(arm string, session int, x []float64, idx []int) ([]float64, []int) {
		k, r, pv, out := screen(x, pr, withinFloor(p, pc.cell.Absolute), p.OutlierAlpha)
		if !out {
			return x, idx
		}
		others := withoutFarthest(x)
		raw := x[k]
		if !pc.cell.Absolute {
			raw = math.Exp(raw)
		}
		o := Outlier{Arm: arm, Session: session, Trial: k, Value: raw, Score: r, P: pv}
		if k < len(idx) {
			o.Trial = idx[k]
		}
		pc.cell.Outliers = append(pc.cell.Outliers, o)
		where := arm
		if session > 0 {
			where = fmt.Sprintf("baseline session %d", session)
		}
		pc.cell.Warnings = append(pc.cell.Warnings, fmt.Sprintf("trial %d of the %s left out as an outlier (%.1f standard deviations from its session's other trials)", o.Trial, where, r))
		return others, append(append([]int(nil), idx[:k]...), idx[min(k+1, len(idx)):]...)
	}
	for s := range pc.xbs {
		session := 0
		if len(pc.xbs) > 1 {
			session = s + 1
		}
		var idx []int
		if s < len(pc.ibs) {
			idx = pc.ibs[s]
		}
		pc.xbs[s], idx = drop("baseline", session, pc.xbs[s], idx)
		if s < len(pc.ibs) {
			pc.ibs[s] = idx
		}
	}
	// A candidate over several server starts is screened per start, as
	// a baseline is per session: a start's offset is not an outlier.
	var xc []float64
	var ic []int
	for _, g := range pc.candGroups() {
		x, idx := drop("candidate", 0, g.x, g.idx)
		xc, ic = append(xc, x...), append(ic, idx...)
	}
	pc.xc, pc.ic = xc, ic
	pc.sumSquares()
}

// screen is the outlier rule of dropOutliers on one session's values x
// (test scale): k is the value farthest from x's median, r its studentized
// deleted residual against the others' variance (moderated by pr, never
// below floor), pv its two-sided p-value; out is true when pv is below
// alpha/n. With fewer than minOutlierTrials values nothing is out.
func screen(x []float64, pr varPrior, floor, alpha float64) (k int, r, pv float64, out bool) {
	n := len(x)
	if n < minOutlierTrials || alpha <= 0 {
		return 0, 0, 1, false
	}
	k = farthest(x)
	others := withoutFarthest(x)
	v, df := pr.posterior(variance(others)/trimBias(n), float64(n-2))
	v = math.Max(v, floor)
	r = math.Abs(x[k]-mean(others)) / math.Sqrt(v*(1+1/float64(n-1)))
	pv = 2 * tSurvival(r, df)
	return k, r, pv, pv < alpha/float64(n)
}

// Screen is the outlier-trial rule (dropOutliers) without a prior, for
// values that have none to borrow from: a paired A/B cell screens each
// arm's block values with it (gate/ab). x is on the test scale (logs for
// relative metrics), floor a variance on that scale; see screen for k, r,
// pv and out.
func Screen(x []float64, floor, alpha float64) (k int, r, pv float64, out bool) {
	return screen(x, varPrior{}, floor, alpha)
}

// farthest is the index of x's value farthest from its median.
func farthest(x []float64) int {
	med := metrics.MedianOf(x)
	k := 0
	for i := range x {
		if math.Abs(x[i]-med) > math.Abs(x[k]-med) {
			k = i
		}
	}
	return k
}

// withoutFarthest is x without its value farthest from the median.
func withoutFarthest(x []float64) []float64 {
	k := farthest(x)
	out := make([]float64, 0, len(x)-1)
	out = append(out, x[:k]...)
	return append(out, x[k+1:]...)
}

// trimBias returns E[s²]/σ² for the variance of n normal values after the
// one farthest from their median is left out: leaving out the most extreme
// value always shrinks the spread (to 0.47 σ² at n = 5), and a rule that
// measured a suspect against the uncorrected spread would drop good trials
// several times more often than OutlierAlpha says. The factor is computed
// once per n by a seeded simulation of 20,000 samples (its own error is
// about 0.5 %), since it has no closed form.
func trimBias(n int) float64 {
	n = min(n, maxTrimN)
	trimOnce.Lock()
	defer trimOnce.Unlock()
	if v, ok := trimCache[n]; ok {
		return v
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	const draws = 20000
	x := make([]float64, n)
	var acc float64
	for d := 0; d < draws; d++ {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		acc += variance(withoutFarthest(x))
	}
	v := acc / draws
	trimCache[n] = v
	return v
}

// maxTrimN caps the sessions trimBias simulates: beyond it the factor
// changes by less than its simulation error.
const maxTrimN = 64

var (
	trimOnce  sync.Mutex
	trimCache = map[int]float64{}
)
