package noise

import (
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// The gate estimates the within-session spread from its own trials, so its
// standard error is random: ŝ² = T_w·V/df + T_b, where T_w is the
// within-session term of SE², T_b the between-session term (known, as a
// prior), and V ~ χ²_df on the df = n_c + n_b - 2 degrees of freedom of the
// pooled trials. For normal trials V is independent of the difference of
// means w ~ N(delta, SE²), so a rule's probability is a one-dimensional
// integral over V of a normal probability, with the rule's t quantile at
// the Satterthwaite degrees of freedom that ŝ itself implies. It is
// evaluated by Simpson's rule; TestRatesMatchSimulation checks it against
// seeded runs of the rules.

// PassProbability is the probability that an unchanged build passes this
// cell at tolerance tol (test scale): w + t_{1-PassAlpha}·ŝ <= tol.
func (c Components) PassProbability(d Design, tol float64) float64 {
	return c.expect(d, 1-d.PassAlpha, func(se, s, q float64) float64 {
		return normCDF((tol - q*s) / se)
	})
}

// Power is the probability that a worsening of delta (test scale) is
// called a regression: significant at CellAlpha (w > t_{1-CellAlpha}·ŝ)
// and beyond the tolerance (w > tol).
func (c Components) Power(d Design, tol, delta float64) float64 {
	return c.expect(d, 1-d.CellAlpha(), func(se, s, q float64) float64 {
		return 1 - normCDF((math.Max(tol, q*s)-delta)/se)
	})
}

// expect integrates f(SE, ŝ, q(ŝ)) over the distribution of ŝ, where q is
// the p quantile of t at ŝ's Satterthwaite degrees of freedom.
func (c Components) expect(d Design, p float64, f func(se, s, q float64) float64) float64 {
	nc, nb, m := float64(max(d.CandidateTrials, 1)), float64(max(d.BaselineTrials, 1)), float64(max(d.BaselineSessions, 1))
	tw := c.Within * (1/nc + 1/(m*nb))
	tb := c.Between * (1 + 1/m)
	se := math.Sqrt(tw + tb)
	df := nc + nb - 2
	if se == 0 {
		// No noise at all: the rule is decided by the means alone, as
		// the limit of a vanishing SE.
		return f(math.SmallestNonzeroFloat64, 0, 0)
	}
	if tw == 0 || df < 1 {
		return f(se, se, verdict.TQuantile(p, math.Inf(1)))
	}
	// The gate's Satterthwaite df count the between-session term on its
	// own degrees of freedom (verdict.MinBetweenDF bounds them below), so
	// they never exceed min(df, BetweenDF) from below: the curve starts
	// there.
	minDF := df
	if c.BetweenDF > 0 && tb > 0 {
		minDF = math.Min(df, c.BetweenDF)
	}
	q := newQuantileCurve(p, minDF)
	// V = u², so the χ² density's singularity at 0 (df < 2) disappears:
	// f_V(u²)·2u du. The upper end is far in the tail.
	const steps = 160 // even
	hi := math.Sqrt(df + 12*math.Sqrt(2*df) + 20)
	h := hi / steps
	lg, _ := math.Lgamma(df / 2)
	sum := 0.0
	for i := 0; i <= steps; i++ {
		u := float64(i) * h
		w := 2.0
		if i == 0 || i == steps {
			w = 1
		} else if i%2 == 1 {
			w = 4
		}
		v := u * u
		dens := 0.0
		if u > 0 {
			dens = 2 * u * math.Exp((df/2-1)*math.Log(v)-v/2-(df/2)*math.Ln2-lg)
		} else if df == 2 {
			dens = 0 // 2u·f(0) with f(0) finite
		}
		if dens == 0 {
			continue
		}
		s2 := tw*v/df + tb
		s := math.Sqrt(s2)
		// Satterthwaite: ŝ⁴ / ((T_w·V/df)²/df + T_b²/BetweenDF); T_b is
		// the calibration's value, fixed, on its own df as the gate
		// counts it.
		ew := tw * v / df
		den := ew * ew / df
		if c.BetweenDF > 0 {
			den += tb * tb / c.BetweenDF
		}
		sdf := s2 * s2 / den
		sum += w * dens * f(se, s, q.at(sdf))
	}
	return math.Min(1, math.Max(0, sum*h/3))
}

// quantileCurve interpolates t quantiles in 1/df, over which they are
// smooth (q ≈ z + (z³+z)/(4·df) + ...), so the integral needs a bisection
// per grid point rather than per integration step.
type quantileCurve struct {
	step float64 // grid spacing in 1/df
	q    []float64
}

func newQuantileCurve(p, minDF float64) quantileCurve {
	const n = 48
	c := quantileCurve{step: 1 / minDF / n, q: make([]float64, n+1)}
	for i := range c.q {
		df := math.Inf(1)
		if i > 0 {
			df = 1 / (float64(i) * c.step)
		}
		c.q[i] = verdict.TQuantile(p, df)
	}
	return c
}

func (c quantileCurve) at(df float64) float64 {
	x := 1 / df / c.step
	i := int(x)
	if i >= len(c.q)-1 {
		return c.q[len(c.q)-1]
	}
	f := x - float64(i)
	return c.q[i]*(1-f) + c.q[i+1]*f
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
