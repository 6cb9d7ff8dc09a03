package verdict

import "math"

// This file fits the empirical-Bayes variance prior of limma's moderated t
// (Smyth 2004, "Linear models and empirical Bayes methods for assessing
// differential expression in microarray experiments", section 6.2): the
// cells of one metric each have a sample variance s² on d degrees of
// freedom, and their true variances are modelled as draws from a scaled
// inverse chi-square distribution with d0 degrees of freedom around s0².
// The posterior variance of a cell is then (d0·s0² + d·s²)/(d0 + d), and
// its moderated t statistic follows Student's t on d0 + d degrees of
// freedom exactly under that model: a cell borrows as much strength from
// the others as the spread of their variances says it may, and a noisy
// cell keeps most of its own, larger, variance.

// varPrior is a fitted prior: variance V on DF degrees of freedom. DF 0
// means no prior (each cell keeps its own variance); DF is never infinite:
// when the cells' variances agree better than sampling alone explains,
// Smyth's estimate of d0 is infinite, and the prior is then worth the
// pooled variance's own degrees of freedom, no more (the prior is itself
// estimated from those cells).
type varPrior struct {
	V, DF float64
	// TooSpread says there is no prior because the variances spread too
	// far for one (d0's bound at most minPriorDF), not for want of cells.
	TooSpread bool
}

// posterior combines a cell's variance v on df degrees of freedom with the
// prior.
func (p varPrior) posterior(v, df float64) (float64, float64) {
	if p.DF <= 0 {
		return v, df
	}
	return (p.DF*p.V + df*v) / (p.DF + df), p.DF + df
}

// minPriorCells is the fewest cells a prior is fitted from: the method of
// moments needs the spread of the log variances, which two cells give on
// one degree of freedom only.
const minPriorCells = 3

// fitPrior estimates d0 and s0² from variances vs on degrees of freedom
// dfs by Smyth's method of moments on log variances: with
// e = log s² − ψ(d/2) + log(d/2), mean(e) estimates log s0² − ψ(d0/2) +
// log(d0/2), and var(e) − mean(ψ'(d/2)) estimates ψ'(d0/2) (var(e) taken
// at its upper confidence bound, see priorLevel). Variances are
// floored at floor (identical trials would give log 0). Cells with no
// degrees of freedom are skipped; with fewer than minPriorCells left, or
// fewer than minDF degrees of freedom among them, there is no prior, nor
// (bounded) when d0's bound is at most minPriorDF.
func fitPrior(vs, dfs []float64, floor, minDF float64, bounded bool) varPrior {
	var es, ds []float64
	total, pooled := 0.0, 0.0
	for i, v := range vs {
		d := dfs[i]
		if d <= 0 {
			continue
		}
		v = math.Max(v, floor)
		pooled += v * d
		es = append(es, math.Log(v)-digamma(d/2)+math.Log(d/2))
		ds = append(ds, d)
		total += d
	}
	g := float64(len(es))
	if len(es) < minPriorCells || total < minDF {
		return varPrior{}
	}
	var em, tri float64
	for i, e := range es {
		em += e
		tri += trigamma(ds[i] / 2)
	}
	em /= g
	tri /= g
	var ss float64
	for _, e := range es {
		ss += (e - em) * (e - em)
	}
	d0 := dfFromSpread(ss/(g-1)-tri, total)
	// The prior's location comes from the point estimate of d0; its weight
	// from the lower confidence bound (see priorLevel). When the variances
	// agree (d0 at the cap) the location is the pooled variance itself,
	// the unbiased estimate of a common variance.
	s0 := math.Exp(em + digamma(d0/2) - math.Log(d0/2))
	if d0 >= total {
		s0 = pooled / total
	}
	if bounded {
		d0 = dfFromSpread(ss/chi2Quantile(priorLevel, g-1)-tri, total)
		if d0 <= minPriorDF {
			return varPrior{TooSpread: true}
		}
	}
	return varPrior{V: s0, DF: d0}
}

// dfFromSpread inverts ψ'(d0/2) = evar; when the log variances spread no
// more than sampling alone explains (evar <= 0, d0 infinite), or d0 comes
// out above the cells' own total, the prior is the pooled variance, worth
// those degrees of freedom and no more.
func dfFromSpread(evar, total float64) float64 {
	if evar <= 0 {
		return total
	}
	return math.Min(2*trigammaInverse(evar), total)
}

// digamma is ψ(x) = d/dx log Γ(x) for x > 0: the recurrence ψ(x) =
// ψ(x+1) − 1/x up to x ≥ 10, then the asymptotic series (error below 1e-12).
func digamma(x float64) float64 {
	r := 0.0
	for x < 10 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

// trigamma is ψ'(x) for x > 0, by the same recurrence and series.
func trigamma(x float64) float64 {
	r := 0.0
	for x < 10 {
		r += 1 / (x * x)
		x++
	}
	f := 1 / (x * x)
	return r + 1/x + f/2 + f/x*(1.0/6-f*(1.0/30-f*(1.0/42-f/30)))
}

// trigammaInverse solves ψ'(x) = y for x > 0 (ψ' decreases from +∞ to 0),
// by bisection on log x: a few dozen steps, and no derivative to trust.
func trigammaInverse(y float64) float64 {
	if y > 1e7 {
		return 1 / math.Sqrt(y)
	}
	if y < 1e-6 {
		return 1 / y
	}
	lo, hi := math.Log(1e-8), math.Log(1e8)
	for i := 0; i < 200 && hi-lo > 1e-12; i++ {
		mid := (lo + hi) / 2
		if trigamma(math.Exp(mid)) > y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// priorLevel makes the prior's weight d0 a one-sided 80 % lower
// confidence bound rather than the point estimate: the spread of the log
// variances is divided by the 20 % quantile of chi-square on G−1 degrees of
// freedom instead of by G−1 (the prior's location s0² still comes from the
// point estimate). With ten workloads the point estimate of d0 is often far
// too large, and a noisy workload then borrows a quiet prior. Measured at
// CVs of 1-4 % across workloads, 5 trials (A/A false alarms) and at equal
// CVs of 2 % (power for +8 %): the point estimate 1.4 % / 96 %, the 75 %
// bound 1.0 % / 92 %, the 80 % bound 0.93 % / 92 %, the 90 % bound
// 0.8 % / 85 % (docs/statistics.md).
const priorLevel = 0.2

// minPriorDF is the smallest (bounded) d0 a prior is used at. A scaled
// inverse chi-square on d0 <= 2 degrees of freedom has no finite mean: the
// cells' variances then spread more than the family can describe (a
// 16-fold range of CVs within one metric), and the little a prior that
// weak adds (under 2 df beside a cell's 8) mostly shrinks the noisiest
// cells toward a quieter centre while adding to their degrees of freedom.
// Each cell is then tested on its own spread, exactly Student's t on its
// own df. Measured (A/A, 5 / 10 trials): CVs 0.5-8 % 1.25 % / 1.10 % ->
// 1.00 % / 0.80 %; CVs 1-4 % 0.85 % / 0.50 % -> 1.00 % / 0.50 %; +8 % TPOT
// at equal CV 2 % named 91.0 % either way (docs/statistics.md).
const minPriorDF = 2.0

// chi2Quantile is the p quantile of the chi-square distribution with k
// degrees of freedom by the Wilson–Hilferty cube-root approximation
// (within about 1 % for k >= 2 at the levels used here).
func chi2Quantile(p, k float64) float64 {
	z := normQuantile(p)
	a := 2 / (9 * k)
	return k * math.Pow(math.Max(1-a+z*math.Sqrt(a), 0), 3)
}
