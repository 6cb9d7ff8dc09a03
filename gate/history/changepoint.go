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
// within-session variance of that level (s²/N, 0 when unknown), with
// prefix sums (index i holds the sum over sessions [0, i)) so each
// candidate's statistic costs O(1).
type points struct {
	y, w []float64
	// tau0 and d0 are the prior between-session variance and its df.
	tau0, d0 float64
	// sy, syy and sw are the prefix sums of y, y² and w; y is centred on
	// its mean first, so the sums of squares lose no precision on log
	// levels near each other.
	sy, syy, sw []float64
}

// prefix fills the prefix sums.
func (p *points) prefix() {
	n := len(p.y)
	var mu float64
	for _, v := range p.y {
		mu += v
	}
	if n > 0 {
		mu /= float64(n)
	}
	p.sy, p.syy, p.sw = make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
	for i, v := range p.y {
		c := v - mu
		p.sy[i+1] = p.sy[i] + c
		p.syy[i+1] = p.syy[i] + c*c
		p.sw[i+1] = p.sw[i] + p.w[i]
	}
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
	p.prefix()
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
	// The degrees of freedom are the segment's, the same for every
	// candidate, so the largest |t| of each family is its smallest p.
	df := float64(hi-lo-2) + p.d0
	var best change
	adj := 2.0
	pick := func(c change, count int) {
		pv := 2 * verdict.TSurvival(c.t, df)
		if a := math.Min(1, 2*pv*float64(count)*float64(max(d.Family, 1))); a < adj {
			best, adj = c, a
		}
	}
	single, singles := change{t: -1}, 0
	for k := lo + m; k <= hi-m; k++ {
		singles++
		if c := p.stat(lo, hi, k, hi); c.t > single.t {
			single = c
		}
	}
	pick(single, singles)
	bump, bumps := change{t: -1}, 0
	for a := lo + m; a <= hi-2*m; a++ {
		for b := a + m; b <= hi-m; b++ {
			bumps++
			if c := p.stat(lo, hi, a, b); c.t > bump.t {
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
// the segment (b = hi: a single step at a), with its |t|.
type change struct {
	a, b int
	t    float64
}

// stat returns |t| of "the level of [a, b) differs from that of the rest
// of [lo, hi)": a two-sample t statistic of the session levels, whose
// variance (τ² + s²/N, the same for every session under the null) is
// estimated from the residuals about the two groups' means on n-2 degrees
// of freedom, floored at the sessions' mean within-session term (a level
// cannot vary less than its trials say: this is what keeps a perfectly
// separated step of four quiet sessions from looking like no evidence at
// all) and pooled with the calibration's τ0² + that term on its df. Under
// the null the statistic is Student's t on n-2 (+ d0) degrees of freedom
// exactly when the sessions are alike (before the floor, which only makes
// it conservative), so its p-value has no floor.
func (p points) stat(lo, hi, a, b int) change {
	c := change{a: a, b: b}
	sum := func(s []float64, i, j int) float64 { return s[j] - s[i] }
	cntIn := float64(b - a)
	cntOut := float64(hi-lo) - cntIn
	sIn := sum(p.sy, a, b)
	sOut := sum(p.sy, lo, hi) - sIn
	qAll := sum(p.syy, lo, hi)
	// RSS about the two group means: Σy² − Σ_g (Σ_g y)²/n_g.
	rss := math.Max(0, qAll-sIn*sIn/cntIn-sOut*sOut/cntOut)
	n := float64(hi - lo)
	wbar := sum(p.sw, lo, hi) / n
	df := n - 2
	v := math.Max(rss/df, wbar)
	if p.d0 > 0 {
		v = (p.d0*(p.tau0+wbar) + df*v) / (p.d0 + df)
	}
	diff := math.Abs(sIn/cntIn - sOut/cntOut)
	switch {
	case v > 0:
		c.t = diff / math.Sqrt(v*(1/cntIn+1/cntOut))
	case diff > 1e-15:
		// No noise at all: an exact difference is a certain change.
		c.t = math.Inf(1)
	}
	return c
}
