package history

import (
	"math"
	"sort"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Detector finds the steps of a series of session levels by binary
// segmentation with a parametric test that knows what each point is:
//
//   - Each session's level y_i is the mean of its N_i trials, so its
//     variance is τ² + s_i²/N_i: the between-session variance τ² plus the
//     session's own within-session variance over its trial count. A quiet
//     session with many trials weighs more than a noisy one with three.
//   - τ² is estimated under each candidate change (from the residuals
//     about the segment means, less what the within-session terms explain,
//     method of moments, truncated at 0) and pooled with the calibration's
//     between-session variance when there is one (Prior), by degrees of
//     freedom: a young history borrows its noise from calibration.
//   - A candidate is a single step (the level before k against after) or
//     a step and its return (the sessions [a, b) against those outside
//     them: a regression that was reverted). Its statistic is the weighted
//     difference of the levels over its standard error, referred to
//     Student's t on the degrees of freedom of the noise estimate.
//   - The smallest p-value of a segment's single steps is multiplied by
//     their number and by 2, and so is that of its step-and-returns
//     (Bonferroni: the candidates overlap, so this is conservative), and
//     both by Family, the number of series tested together
//     in one gate run or report (a profile's cells x gated metrics), so an
//     unchanged profile announces a step with probability at most Alpha
//     however many series it has. A significant candidate is kept and each
//     part searched again.
//
// Why not a permutation test (the detector until this round)? With 8
// sessions a perfectly separated 4-4 step has a permutation p-value of at
// least 2/C(8,4) = 0.029, so the clearest step of a young history could
// never pass 0.01; a parametric null has no such floor. Why not PELT or
// E-divisive (Apache Otava)? PELT needs a penalty calibrated to the noise,
// which is what this test estimates anyway, and E-divisive tests for any
// change of distribution by permutation, with the same floor; binary
// segmentation that also tries a step-and-return finds the reverted
// regression that a single-split search misses (the best single split of
// a bump sits beside a segment mixing both levels). docs/statistics.md has
// the seeded rates.
type Detector struct {
	// Alpha is the family-wise level: the chance that a profile with no
	// step anywhere announces one.
	Alpha float64 `json:"alpha"`
	// Family is the number of series tested together (0 and 1: one).
	Family int `json:"family,omitempty"`
	// MinSize is the fewest sessions on either side of a step; a step in
	// the last MinSize-1 sessions is not yet visible.
	MinSize int `json:"min_size"`
	// Noise holds the calibration's priors (cell -> metric); a series of
	// a calibrated cell pools its between-session estimate with them.
	Noise verdict.Priors `json:"-"`
}

// DefaultDetector is the documented detector: family-wise alpha 0.01, at
// least 3 sessions on either side of a step.
func DefaultDetector() Detector {
	return Detector{Alpha: 0.01, MinSize: 3}
}

// Split is a detected change point: At is the index (into the series) of
// the first point after the step; P the Bonferroni-adjusted p-value that
// kept it (a step and its return share one).
type Split struct {
	At int
	P  float64
}

// points is what the test knows of each session: its level and the
// within-session variance of that level (s²/N, 0 when unknown).
type points struct {
	y, w []float64
	// tau0 and d0 are the prior between-session variance and its df.
	tau0, d0 float64
}

// Detect returns the change points of levels x alone (no within-session
// information, no prior): the between-session variance is estimated from
// the series itself.
func (d Detector) Detect(x []float64) []Split {
	return d.detect(points{y: x, w: make([]float64, len(x))})
}

// DetectSeries returns the change points of s, using each session's
// within-session spread and trial count and, when d.Noise has one for
// (s.Cell, s.Metric), the calibration's between-session variance.
func (d Detector) DetectSeries(s Series) []Split {
	p := points{y: s.Mean, w: make([]float64, len(s.Mean))}
	for i := range s.Mean {
		if s.N[i] >= 2 {
			p.w[i] = s.SD[i] * s.SD[i] / float64(s.N[i])
		}
	}
	if pr, ok := d.Noise.Lookup(s.Cell, s.Metric); ok && pr.BetweenDF > 0 {
		p.tau0, p.d0 = pr.BetweenVar, math.Max(pr.BetweenDF, verdict.MinBetweenDF(pr.Sessions))
	}
	return d.detect(p)
}

func (d Detector) detect(p points) []Split {
	if d.MinSize < 1 {
		d.MinSize = 1
	}
	var out []Split
	d.segment(p, 0, len(p.y), &out)
	sort.Slice(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// segment tests [lo, hi) and recurses into the parts of a kept change.
func (d Detector) segment(p points, lo, hi int, out *[]Split) {
	m := d.MinSize
	if hi-lo < 2*m {
		return
	}
	// Single steps and step-and-returns are two families of candidates,
	// each given half of the level with its own Bonferroni count: the
	// O(n²) step-and-returns would otherwise dilute the O(n) single
	// steps, the common case, twentyfold at 60 runs.
	var best change
	adj := 2.0
	pick := func(c change, count int) {
		if a := math.Min(1, 2*c.p*float64(count)*float64(max(d.Family, 1))); a < adj {
			best, adj = c, a
		}
	}
	single, singles := change{p: 2}, 0
	for k := lo + m; k <= hi-m; k++ {
		singles++
		if c := p.test(lo, hi, k, hi); c.p < single.p {
			single = c
		}
	}
	pick(single, singles)
	bump, bumps := change{p: 2}, 0
	for a := lo + m; a <= hi-2*m; a++ {
		for b := a + m; b <= hi-m; b++ {
			bumps++
			if c := p.test(lo, hi, a, b); c.p < bump.p {
				bump = c
			}
		}
	}
	if bumps > 0 {
		pick(bump, bumps)
	}
	if adj > d.Alpha {
		return
	}
	*out = append(*out, Split{At: best.a, P: adj})
	if best.b < hi {
		*out = append(*out, Split{At: best.b, P: adj})
		d.segment(p, lo, best.a, out)
		d.segment(p, best.a, best.b, out)
		d.segment(p, best.b, hi, out)
		return
	}
	d.segment(p, lo, best.a, out)
	d.segment(p, best.a, hi, out)
}

// change is a tested change: the sessions [a, b) against the rest of
// the segment (b = hi: a single step at a), with its two-sided p-value.
type change struct {
	a, b int
	p    float64
}

// test returns the two-sided p-value of "the level of [a, b) differs from
// that of the rest of [lo, hi)": a two-sample t test of the session
// levels, whose variance (τ² + s²/N, the same for every session under
// the null) is estimated from the residuals about the two groups' means
// on n-2 degrees of freedom, floored at the sessions' mean within-session
// term (a level cannot vary less than its trials say: this is what keeps
// a perfectly separated step of four quiet sessions from looking like no
// evidence at all) and pooled with the calibration's τ0² + that term on
// its df. Under the null the statistic is Student's t exactly when the
// sessions are alike (before the floor, which only makes it
// conservative), so its p-value has no floor.
func (p points) test(lo, hi, a, b int) change {
	c := change{a: a, b: b, p: 1}
	var sum, cnt [2]float64
	for i := lo; i < hi; i++ {
		g := 0
		if i >= a && i < b {
			g = 1
		}
		sum[g] += p.y[i]
		cnt[g]++
	}
	mean := [2]float64{sum[0] / cnt[0], sum[1] / cnt[1]}
	var rss, wbar float64
	for i := lo; i < hi; i++ {
		g := 0
		if i >= a && i < b {
			g = 1
		}
		r := p.y[i] - mean[g]
		rss += r * r
		wbar += p.w[i]
	}
	n := float64(hi - lo)
	wbar /= n
	df := n - 2
	v := math.Max(rss/df, wbar)
	if p.d0 > 0 {
		v = (p.d0*(p.tau0+wbar) + df*v) / (p.d0 + df)
		df += p.d0
	}
	diff := mean[1] - mean[0]
	if v <= 0 {
		// No noise at all: an exact difference is a certain change, an
		// exact equality none.
		if diff != 0 {
			c.p = 0
		}
		return c
	}
	c.p = 2 * verdict.TSurvival(math.Abs(diff)/math.Sqrt(v*(1/cnt[0]+1/cnt[1])), df)
	return c
}
