package verdict

import (
	"cmp"
	"math"
	"sync"
)

// The predictions of a test on few degrees of freedom, computed exactly
// rather than by the shifted-t shortcut of Design (MDEAt and its kin):
// with a few pairs the test's standard error is itself an estimate on few
// degrees of freedom, and the shortcut misjudges the power by more than
// the five points the seeded tests hold the predictions to (at 16 blocks
// of a paired A/B it predicts 92.6 % where 88.0 % is measured and this
// integral gives 89.8 %; docs/statistics.md). The estimate is normal
// around the true difference δ with standard error se; its estimated
// standard error is ŝe² = P·X/ν + F, with P the estimated part of the
// variance, X a χ² variable on ν degrees of freedom and F the fixed part.
// The rules of Compare are then
//
//	regression: est > tol and est > tH·ŝe
//	pass:       est + q·ŝe <= tol
//
// and each chance is a one-dimensional integral over X, done on a grid of
// log X (smooth for every ν) and normalised on the grid. Package ab
// decides and plans its paired cells with them.

// Spread is the variance of an estimate split into the part estimated
// from the measurements (Est, on DF degrees of freedom) and the part
// taken as given (Fixed: a resident A/B arm's between-session term).
type Spread struct{ Est, DF, Fixed float64 }

// SE is the estimate's standard error.
func (s Spread) SE() float64 { return math.Sqrt(s.Est + s.Fixed) }

// Satterthwaite is the degrees of freedom of the t test on the whole
// variance; fixedDF is the fixed part's (0: exact).
func (s Spread) Satterthwaite(fixedDF float64) float64 {
	v := s.Est + s.Fixed
	den := s.Est * s.Est / s.DF
	if fixedDF > 0 {
		den += s.Fixed * s.Fixed / fixedDF
	}
	if den == 0 || v == 0 {
		return 0
	}
	return v * v / den
}

// Exact is a test's spread and thresholds: TH the first Holm step's t
// quantile, Q the pass rule's, Tol the tolerance, all on the test scale.
type Exact struct {
	Spread
	TH, Q, Tol float64
	// Rate is the pass rate PassTolerance is quoted at (0: TargetPass).
	Rate float64
}

// ExactAt is the exact test of criterion c at spread s, whose fixed part
// has fixedDF degrees of freedom (0: exact): the thresholds are taken on
// the Satterthwaite degrees of freedom, as Compare takes them.
func (c Criterion) ExactAt(s Spread, fixedDF float64) Exact {
	df := s.Satterthwaite(fixedDF)
	return Exact{Spread: s, TH: c.HolmT(df), Q: c.PassT(df), Tol: c.TestTolerance(), Rate: c.PassRate}
}

// gridPoints is the number of points of the χ² grid for ν degrees of
// freedom: the integrands are smooth in log X but for one kink, and the
// grid spans more of log X the fewer the degrees of freedom, so 81 points
// from ν = 10 and up to 481 below give the chances to better than 1e-3
// (TestChanceIntegrals checks them against a grid eight times finer).
func gridPoints(nu float64) int {
	switch {
	case nu < 4:
		return 481
	case nu < 10:
		return 161
	}
	return 81
}

// chiGrid returns the points X/ν and weights (summing to 1) of a grid over
// the distribution of X/ν for X ~ χ²(ν), without the points of negligible
// weight. Grids are cached by ν: the cells of one comparison share their
// degrees of freedom, and a seeded test judges thousands of comparisons.
func chiGrid(nu float64) (u, w []float64) {
	gridMu.Lock()
	defer gridMu.Unlock()
	if g, ok := grids[nu]; ok {
		return g[0], g[1]
	}
	k := nu / 2 // X/ν ~ Gamma(shape k, scale 1/k); y = log(X/ν)
	lo := -math.Max(10/math.Sqrt(k), 25/k)
	hi := math.Max(10/math.Sqrt(k), math.Log1p((40+10*math.Sqrt(k))/k))
	points := gridPoints(nu)
	h := (hi - lo) / float64(points-1)
	var sum float64
	for i := 0; i < points; i++ {
		y := lo + float64(i)*h
		// Density of y up to a constant: exp(k·y − k·e^y); Simpson's weights.
		sw := 2.0
		if i == 0 || i == points-1 {
			sw = 1
		} else if i%2 == 1 {
			sw = 4
		}
		wi := sw * math.Exp(k*(y-math.Exp(y)+1))
		sum += wi
		if wi > 1e-12 {
			u, w = append(u, math.Exp(y)), append(w, wi)
		}
	}
	for i := range w {
		w[i] /= sum
	}
	if len(grids) > 1000 {
		grids = map[float64][2][]float64{}
	}
	grids[nu] = [2][]float64{u, w}
	return u, w
}

var (
	gridMu sync.Mutex
	grids  = map[float64][2][]float64{}
)

// expect is the mean of f(ŝe) over the distribution of ŝe.
func (r Exact) expect(f func(seHat float64) float64) float64 {
	if r.DF <= 0 || math.IsInf(r.DF, 1) {
		return f(r.SE())
	}
	u, w := chiGrid(r.DF)
	var s float64
	for i := range u {
		s += w[i] * f(math.Sqrt(r.Est*u[i]+r.Fixed))
	}
	return s
}

func normSurvival(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// usable reports whether the test has a finite, positive standard error:
// a design with fewer than two pairs, or a cell no test ran on, has none,
// and every chance of it is 0.
func (r Exact) usable() bool {
	se := r.SE()
	return se > 0 && !math.IsInf(se, 0) && !math.IsNaN(se)
}

// Power is the chance a true worsening delta (test scale) is called a
// regression.
func (r Exact) Power(delta float64) float64 {
	if !r.usable() {
		return 0
	}
	se := r.SE()
	return r.expect(func(s float64) float64 {
		return normSurvival((math.Max(r.Tol, r.TH*s) - delta) / se)
	})
}

// Pass is the chance a true worsening delta (test scale) passes.
func (r Exact) Pass(delta float64) float64 {
	if !r.usable() {
		return 0
	}
	se := r.SE()
	return r.expect(func(s float64) float64 {
		return 1 - normSurvival((r.Tol-r.Q*s-delta)/se)
	})
}

// MDE is the worsening found with TargetPower (test scale); +Inf for a
// test without a usable standard error.
func (r Exact) MDE() float64 {
	return bisect(func(x float64) bool { return r.Power(x) >= TargetPower }, r.SE())
}

// PassTolerance is the smallest tolerance at which an unchanged build
// passes in Rate (TargetPass) of runs (test scale). Without a fixed part it is a
// multiple of the standard error that depends on df and q alone, cached.
func (r Exact) PassTolerance() float64 {
	se := r.SE()
	rate := cmp.Or(r.Rate, TargetPass)
	find := func() float64 {
		return bisect(func(x float64) bool { s := r; s.Tol = x; return s.Pass(0) >= rate }, se)
	}
	if r.Fixed != 0 || !r.usable() {
		return find()
	}
	key := [3]float64{r.DF, r.Q, rate}
	gridMu.Lock()
	m, ok := passMultiples[key]
	gridMu.Unlock()
	if !ok {
		m = find() / se
		gridMu.Lock()
		if len(passMultiples) > 1000 {
			passMultiples = map[[3]float64]float64{}
		}
		passMultiples[key] = m
		gridMu.Unlock()
	}
	return m * se
}

var passMultiples = map[[3]float64]float64{}

// bisect finds the smallest x >= 0 with ok(x), ok monotone, to a part in
// 10³ of unit (the standard error: finer than any report prints).
func bisect(ok func(float64) bool, unit float64) float64 {
	if unit <= 0 || math.IsInf(unit, 0) || math.IsNaN(unit) {
		return math.Inf(1)
	}
	lo, hi := 0.0, unit
	for !ok(hi) {
		lo, hi = hi, 2*hi
		if hi > 1e6*unit {
			return math.Inf(1)
		}
	}
	for hi-lo > 1e-3*unit {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
