package history

import (
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// The noise screen's F test assumes normal trials, and a variance test is
// far more sensitive to tails than a test of means: with trials spread as
// Student's t on 5 df (excess kurtosis 6), a plain F test at 1e-3 refused
// 3.1 % of ordinary sessions. The variance of a sample variance on n
// trials is σ⁴ (2/(n-1) + κ/n) for excess kurtosis κ, which is a
// chi-square's on d = 2 / (2/(n-1) + κ/n) degrees of freedom, so the
// screen tests on those effective degrees of freedom (Layard's
// correction), with κ measured from the cell's own past trials.

// defaultKurtosis is the excess kurtosis assumed for a metric with no
// past trials to measure it from: trial-level tail percentiles are
// heavier than normal, and a screen with too many degrees of freedom
// refuses ordinary sessions.
const defaultKurtosis = 3.0

// maxKurtosis bounds a measured kurtosis, which a single wild trial in
// the history can otherwise make arbitrarily large (and the test blind).
const maxKurtosis = 12.0

// minKurtosisResiduals is the fewest within-session residuals a kurtosis
// is measured from (three 5-trial sessions).
const minKurtosisResiduals = 15

// effectiveDF is a sample variance's degrees of freedom on n trials of
// excess kurtosis k.
func effectiveDF(n int, k float64) float64 {
	if n < 2 {
		return 0
	}
	return 2 / (2/float64(n-1) + k/float64(n))
}

// cellKurtosis measures metric id's excess kurtosis from the
// within-session residuals of c's sessions (each scaled by
// sqrt(n/(n-1)) so it has the trials' variance), floored at 0 and capped
// at maxKurtosis; defaultKurtosis when c has too few trials.
func cellKurtosis(c *Cell, id string) float64 {
	if c == nil {
		return defaultKurtosis
	}
	var m2, m4 float64
	var count int
	for _, s := range c.Sessions {
		sum, ok := s.Summary[id]
		if !ok || sum.N < 2 || len(s.Trials) != sum.N {
			continue
		}
		scale := math.Sqrt(float64(sum.N) / float64(sum.N-1))
		for _, t := range s.Trials {
			raw, ok := t[id]
			if !ok {
				continue
			}
			v, ok := verdict.TestValue(id, raw)
			if !ok {
				continue
			}
			e := (v - sum.Mean) * scale
			m2 += e * e
			m4 += e * e * e * e
			count++
		}
	}
	if count < minKurtosisResiduals || m2 == 0 {
		return defaultKurtosis
	}
	m2 /= float64(count)
	m4 /= float64(count)
	return math.Min(math.Max(m4/(m2*m2)-3, 0), maxKurtosis)
}
