package verdict

import "math"

// This file holds the few distribution functions the tests need: Student's
// t and Fisher's F, both through the regularized incomplete beta function.
// They are written out here (a page of textbook numerics) rather than taken
// from a statistics library because none of the approved libraries has a t
// quantile, and the verdict must not depend on one we cannot audit.

// tSurvival is P(T > t), computed without the cancellation of 1-tCDF for
// large t (p-values of 1e-12 still need to order correctly under Holm).
func tSurvival(t, df float64) float64 {
	if df <= 0 || math.IsInf(df, 1) || df > 1e7 {
		return 0.5 * math.Erfc(t/math.Sqrt2)
	}
	if t < 0 {
		return 1 - tSurvival(-t, df)
	}
	if t == 0 || math.IsNaN(t) {
		return 0.5
	}
	if math.IsInf(t, 1) {
		return 0
	}
	return 0.5 * betaReg(df/(df+t*t), df/2, 0.5)
}

// tQuantile returns t such that P(T <= t) = p, for 0 < p < 1.
func tQuantile(p, df float64) float64 {
	if df <= 0 || math.IsInf(df, 1) || df > 1e7 {
		return normQuantile(p)
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -tQuantile(1-p, df)
	}
	// Bracket, then bisect on the survival function (monotone, accurate in
	// the far tail where the quantiles of small Holm thresholds live).
	q := 1 - p
	lo, hi := 0.0, math.Max(1, normQuantile(p))
	for tSurvival(hi, df) > q {
		lo, hi = hi, hi*2
		if hi > 1e12 {
			return hi
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-10*hi; i++ {
		mid := (lo + hi) / 2
		if tSurvival(mid, df) > q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// fSurvival is P(F > f) for Fisher's F with d1, d2 degrees of freedom.
func fSurvival(f, d1, d2 float64) float64 {
	if f <= 0 {
		return 1
	}
	if math.IsInf(f, 1) {
		return 0
	}
	return betaReg(d2/(d2+d1*f), d2/2, d1/2)
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func normQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// betaReg is the regularized incomplete beta function I_x(a, b), evaluated
// by its continued fraction (Lentz's method), using the symmetry
// I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func betaReg(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

// betaCF evaluates the continued fraction of the incomplete beta function
// by Lentz's method.
func betaCF(x, a, b float64) float64 {
	const eps = 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < lentzTiny {
		d = lentzTiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 1000; m++ {
		fm := float64(m)
		c, d = lentzStep(fm*(b-fm)*x/((a+2*fm-1)*(a+2*fm)), c, d) // even step
		h *= d * c
		c, d = lentzStep(-(a+fm)*(a+b+fm)*x/((a+2*fm)*(a+2*fm+1)), c, d) // odd step
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// lentzTiny stands in for a zero denominator in Lentz's method.
const lentzTiny = 1e-300

// lentzStep is one term of Lentz's method: it folds the coefficient num
// into c and d (d returned as its reciprocal, as the product h needs it).
func lentzStep(num, c, d float64) (float64, float64) {
	d = 1 + num*d
	if math.Abs(d) < lentzTiny {
		d = lentzTiny
	}
	c = 1 + num/c
	if math.Abs(c) < lentzTiny {
		c = lentzTiny
	}
	return c, 1 / d
}

// holm returns Holm's step-down adjusted p-values: with the p-values sorted
// ascending, adj(i) = max over j <= i of min(1, (k-j+1) p(j)). Rejecting
// where adj <= alpha controls the family-wise error at alpha under any
// dependence between the tests.
func holm(p []float64) []float64 {
	k := len(p)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	// Insertion sort keeps this dependency-free and stable; k is at most a
	// few hundred cells.
	for i := 1; i < k; i++ {
		for j := i; j > 0 && p[idx[j]] < p[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	adj := make([]float64, k)
	run := 0.0
	for rank, i := range idx {
		v := math.Min(1, float64(k-rank)*p[i])
		run = math.Max(run, v)
		adj[i] = run
	}
	return adj
}
