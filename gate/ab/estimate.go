package ab

import (
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Estimator names a way of combining the pairs' B-A differences into one
// estimate with a standard error.
type Estimator string

const (
	// Pairs: the mean of the pair differences, a t interval on K-1
	// degrees of freedom. A linear drift cancels from the mean over every
	// quad, but enters each pair with the sign of its order (+δ for AB,
	// -δ for BA), so it inflates the pairs' spread and the interval.
	Pairs Estimator = "pairs"
	// Quads: the mean of each quad's two pair differences, a t interval
	// over the Q quads on Q-1 degrees of freedom. A linear drift cancels
	// inside every quad, at the price of half the degrees of freedom; a
	// pair left over (blocks = 2 mod 4) is not used.
	Quads Estimator = "quads"
	// PairsDrift: the pair differences regressed on their order's sign,
	// d_k = Δ + γ·s_k + e_k (s_k = +1 for AB, -1 for BA), a t interval for
	// Δ on K-2 degrees of freedom. The drift term γ is estimated and
	// removed from the spread, so a linear drift neither biases the
	// estimate nor inflates the interval, and only one degree of freedom is
	// spent on it. The default (TestEstimatorsUnderDrift measures the three).
	PairsDrift Estimator = "pairs-drift"
)

// DefaultEstimator is the estimator Compare uses.
const DefaultEstimator = PairsDrift

// fit is an estimate on the test scale: the difference est, its standard
// error se (from the pairs alone), the residual variance of one pair's
// difference v on df degrees of freedom, and the drift term per pair.
//
// se² = v·c: c is what the estimator's design makes of one pair's
// variance (1/K for the plain mean), kept so a floor on v carries to se.
type fit struct {
	est, se, v, c, df, drift float64
	used                     Estimator
}

// estimate combines the pair differences d with the pair signs s. It
// falls back from PairsDrift to Pairs when too few pairs (fewer than 4) or
// an order with one sign only leave no room for the drift term, and from
// Quads to Pairs with fewer than two complete quads. ok is false when not
// even Pairs can be formed (fewer than two pairs).
func estimate(d, s []float64, e Estimator, quadOf []int) (fit, bool) {
	k := len(d)
	switch e {
	case PairsDrift:
		var sum float64
		for _, x := range s {
			sum += x
		}
		den := float64(k*k) - sum*sum
		if k >= 4 && den > 0 {
			return driftFit(d, s), true
		}
	case Quads:
		if q := quadMeans(d, quadOf); len(q) >= 2 {
			m, v := verdict.MeanVar(q)
			// A quad mean averages two pairs: one pair's variance is
			// twice the quads' variance.
			return fit{est: m, se: math.Sqrt(v / float64(len(q))), v: 2 * v, c: 1 / float64(2*len(q)), df: float64(len(q) - 1), used: Quads}, true
		}
	}
	if k < 2 {
		return fit{}, false
	}
	m, v := verdict.MeanVar(d)
	return fit{est: m, se: math.Sqrt(v / float64(k)), v: v, c: 1 / float64(k), df: float64(k - 1), used: Pairs}, true
}

// driftFit is the least-squares fit of d = Δ + γ·s.
func driftFit(d, s []float64) fit {
	k := float64(len(d))
	var sd, ss, sds float64
	for i := range d {
		sd += d[i]
		ss += s[i]
		sds += d[i] * s[i]
	}
	// Normal equations with Σs² = k: [k ss; ss k]·[Δ γ] = [sd sds].
	den := k*k - ss*ss
	delta := (k*sd - ss*sds) / den
	gamma := (k*sds - ss*sd) / den
	var rss float64
	for i := range d {
		r := d[i] - delta - gamma*s[i]
		rss += r * r
	}
	v := rss / (k - 2)
	return fit{est: delta, se: math.Sqrt(v * k / den), v: v, c: k / den, df: k - 2, drift: gamma, used: PairsDrift}
}

// quadMeans averages the pair differences of each complete quad (both of
// its pairs kept); quadOf gives each pair's quad.
func quadMeans(d []float64, quadOf []int) []float64 {
	sum, n := map[int]float64{}, map[int]int{}
	var order []int
	for i, q := range quadOf {
		if n[q] == 0 {
			order = append(order, q)
		}
		sum[q] += d[i]
		n[q]++
	}
	var out []float64
	for _, q := range order {
		if n[q] == 2 {
			out = append(out, sum[q]/2)
		}
	}
	return out
}
