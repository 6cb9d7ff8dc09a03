package bootstrap

import (
	"cmp"
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The searches behind Decide: each asks the Designs one question over a
// range of trials or blocks.

// predictor is what both Designs answer.
type predictor interface {
	Power(change float64) float64
	PassTolerance() float64
	PassChance() float64
}

// outcome evaluates m's design d. A metric that calibration saw no noise
// in at all (a success rate of 1 in every trial) passes unchanged and is
// found beyond its tolerance; the Designs' formulas divide by its zero
// standard error.
func outcome(d predictor, m Metric) Outcome {
	if silent(m) {
		return Outcome{Decides: m.Tolerance, PassChance: 1}
	}
	return search(d, m.Absolute)
}

// Unsure says that m's between-session variance was estimated (it is not
// zero) on less than one degree of freedom: the sessions' means differed
// by about what their trials predict, and the Satterthwaite df says the
// estimate is barely known. The verdict's interval on such a metric can
// be unbounded (a t quantile on 0.2 df), whatever the Designs predict from
// the trials' own degrees of freedom, so init does not count on deciding it.
func Unsure(m Metric) bool {
	return m.Noise.BetweenVar > 0 && m.Noise.BetweenDF > 0 && m.Noise.BetweenDF < 1
}

// hopelessMetric says that neither a stored baseline of MaxTrials nor an
// A/B of MaxBlocks lets an unchanged build pass m at MaxTolerance.
func hopelessMetric(m Metric, r Rules) bool {
	if silent(m) {
		return false
	}
	b := r.MaxBlocks - r.MaxBlocks%4
	stored := bestStored(m, r)
	abPass := ABDesign(m, r, b).PassTolerance()
	return !(stored <= MaxTolerance) && !(abPass <= MaxTolerance)
}

// silent says calibration saw no noise in m at all.
func silent(m Metric) bool { return m.Noise.WithinVar == 0 && m.Noise.BetweenVar == 0 }

// search evaluates a design: the smallest change found with TargetPower
// by bisection on its Power (monotone in the change).
func search(d predictor, absolute bool) Outcome {
	hi := 10.0 // +1000 %
	if absolute {
		hi = 1 // 100 points
	}
	o := Outcome{PassTolerance: d.PassTolerance(), PassChance: d.PassChance(), Decides: math.Inf(1)}
	if math.IsNaN(o.PassTolerance) {
		o.PassTolerance = math.Inf(1)
	}
	if d.Power(hi) < verdict.TargetPower {
		return o
	}
	lo := 0.0
	for range 50 {
		mid := (lo + hi) / 2
		if d.Power(mid) >= verdict.TargetPower {
			hi = mid
		} else {
			lo = mid
		}
	}
	o.Decides = hi
	return o
}

// storedTrials is the fewest trials per arm, from MinTrials to MaxTrials,
// at which every metric's stored check is decidable; 0 when none is.
// PassTolerance only falls as trials grow, so a scan suffices.
func storedTrials(ms []Metric, r Rules) int {
	for n := r.MinTrials; n <= r.MaxTrials; n++ {
		ok := true
		for _, m := range ms {
			if !silent(m) && StoredDesign(m, r, n, 1).PassTolerance() > m.Tolerance*(1+1e-9) {
				ok = false
				break
			}
		}
		if ok {
			return n
		}
	}
	return 0
}

// bestStored is the smallest tolerance a stored check of MinTrials to
// MaxTrials trials passes an unchanged build at in 90 % of runs. It is
// not always at MaxTrials: when the between-session estimate rests on a
// fraction of a degree of freedom, more trials shift the test's degrees
// of freedom towards it and its t quantile grows faster than the within
// term shrinks.
func bestStored(m Metric, r Rules) float64 {
	best := math.Inf(1)
	for n := r.MinTrials; n <= r.MaxTrials; n++ {
		if pt := StoredDesign(m, r, n, 1).PassTolerance(); pt < best {
			best = pt
		}
	}
	return best
}

// worstStored is the metric furthest from its tolerance and the smallest
// tolerance a stored check would need for it.
func worstStored(ms []Metric, r Rules) (Metric, float64) {
	var worst Metric
	need, ratio := 0.0, -1.0
	for _, m := range ms {
		if silent(m) {
			continue
		}
		pt := bestStored(m, r)
		if q := pt / math.Max(m.Tolerance, 1e-12); q > ratio {
			worst, need, ratio = m, pt, q
		}
	}
	return worst, need
}

// abBlocks is the fewest blocks (a multiple of four) up to MaxBlocks at
// which an unchanged B passes every metric at the family's rate
// (Rules.PassRate, so all of them together 90 % of the time); 0 when none.
func abBlocks(ms []Metric, r Rules) int {
	most := 0
	for _, m := range ms {
		if silent(m) {
			continue
		}
		b := ABDesign(m, r, 0).BlocksToPass(cmp.Or(r.PassRate, ab.PlanPass))
		if b == 0 || b > r.MaxBlocks {
			return 0
		}
		most = max(most, b)
	}
	return most
}

// widenedTrials is the trial count of a widened stored check: the fewest
// at which every metric's pass tolerance is within 10 % of what MaxTrials
// would give, since beyond it more trials buy little (the between-session
// term does not shrink with trials).
func widenedTrials(ms []Metric, r Rules) int {
	for n := r.MinTrials; n < r.MaxTrials; n++ {
		ok := true
		for _, m := range ms {
			if silent(m) {
				continue
			}
			floor := bestStored(m, r)
			if StoredDesign(m, r, n, 1).PassTolerance() > 1.1*floor {
				ok = false
				break
			}
		}
		if ok {
			return n
		}
	}
	return r.MaxTrials
}

// widen rounds a pass tolerance up to the next half percent (half point
// for absolute metrics), the grain tolerances are written in.
func widen(pt float64) float64 {
	step := 0.005
	if math.IsInf(pt, 0) || math.IsNaN(pt) {
		return 1
	}
	return math.Ceil(pt/step-1e-9) * step
}

// cv is a variance as a CV (points for absolute metrics).
func cv(v float64, absolute bool) float64 {
	if absolute {
		return math.Sqrt(v)
	}
	return math.Sqrt(math.Expm1(v))
}

// pct formats a fraction as a percentage ("points" for absolute metrics).
func pct(x float64, absolute bool) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "never"
	}
	if absolute {
		return fmt.Sprintf("%.1f points", 100*x)
	}
	return fmt.Sprintf("%.1f %%", 100*x)
}

// needs says what tolerance a metric would need.
func needs(t float64, absolute bool) string {
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return "no tolerance is decidable with so few calibrated sessions"
	}
	return "it would need " + pct(t, absolute)
}
