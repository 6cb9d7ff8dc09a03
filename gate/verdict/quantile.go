package verdict

// TQuantile returns t such that P(T <= t) = p for Student's t with df
// degrees of freedom (df <= 0: the standard normal). It exports the
// verdict's audited quantile so that packages computing intervals of
// their own (package history's step sizes) use the same numerics.
func TQuantile(p, df float64) float64 { return tQuantile(p, df) }
