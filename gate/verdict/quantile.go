package verdict

import "math"

// TQuantile returns t such that P(T <= t) = p for Student's t with df
// degrees of freedom (df <= 0: the standard normal). It exports the
// verdict's audited quantile so that packages computing intervals of
// their own (package history's step sizes) use the same numerics.
func TQuantile(p, df float64) float64 { return tQuantile(p, df) }

// FSurvival returns P(F > f) for Fisher's F with d1 and d2 degrees of
// freedom; d2 = +Inf is the chi-square limit (the denominator variance
// known), P(chi2(d1)/d1 > f). Package history's noise screen tests a
// session's spread against the pooled past spread with it.
func FSurvival(f, d1, d2 float64) float64 {
	if math.IsInf(d2, 1) || d2 > 1e8 {
		d2 = 1e8 // within 1e-6 of the chi-square limit, where betaReg still converges
	}
	return fSurvival(f, d1, d2)
}
