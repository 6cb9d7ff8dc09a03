package verdict

// TQuantile returns t such that P(T <= t) = p for Student's t with df
// degrees of freedom (df <= 0 or +Inf: the standard normal). It is the
// verdict's own quantile, exported so that predictions of what the verdict
// can detect (perfgate calibrate's minimum detectable change) use the very
// numbers the verdict will use.
func TQuantile(p, df float64) float64 { return tQuantile(p, df) }
