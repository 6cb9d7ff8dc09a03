package history

import (
	"github.com/perfgate/perfgate/gate/verdict"
)

// MinSessions is the fewest sessions a between-session estimate is made
// from; `perfgate calibrate` needs as many restarts, for the same reason:
// with two sessions the variance of their levels has one degree of
// freedom and is as likely to be a third of the truth as three times it.
const MinSessions = 3

// Prior estimates metric's within- and between-session variance from the
// sessions [from, to] of c (the current segment: no detected step inside
// it), by the method of moments of the one-way random-effects model on
// the trials' test-scale values, sessions as groups:
//
//	MSW = Σ (n_i-1) s_i² / (N-k)                on N-k degrees of freedom
//	MSB = Σ n_i (ȳ_i - ȳ)² / (k-1)
//	between = max(0, (MSB - MSW) / n0),  n0 = (N - Σ n_i²/N) / (k-1)
//
// The between-session degrees of freedom are k-1, whether the estimate is
// positive or clamped at zero (verdict.MinBetweenDF says why not
// Satterthwaite's). ok is false with fewer than MinSessions sessions.
func (c *Cell) Prior(metric string, from, to int) (verdict.Prior, bool) {
	s := c.Series(metric, from, to)
	k := len(s.Mean)
	if k < MinSessions {
		return verdict.Prior{}, false
	}
	var n, nsq, sum, ssw float64
	for i := range s.Mean {
		ni := float64(s.N[i])
		n += ni
		nsq += ni * ni
		sum += ni * s.Mean[i]
		ssw += (ni - 1) * sq(s.SD[i])
	}
	grand := sum / n
	var ssb float64
	for i, m := range s.Mean {
		ssb += float64(s.N[i]) * sq(m-grand)
	}
	dfW, dfB := n-float64(k), float64(k-1)
	p := verdict.Prior{Source: "history", WithinDF: dfW, BetweenDF: dfB, Sessions: k}
	msb := ssb / dfB
	var msw float64
	if dfW > 0 {
		msw = ssw / dfW
		p.WithinVar = msw
	}
	n0 := (n - nsq/n) / dfB
	if between := (msb - msw) / n0; between > 0 {
		p.BetweenVar = between
	}
	return p, true
}

// Priors returns the history-learned priors of every metric of c over
// sessions [from, to], keyed by metric: the Policy.Noise entry of c.
func (c *Cell) Priors(from, to int) map[string]verdict.Prior {
	out := map[string]verdict.Prior{}
	for _, id := range c.Metrics() {
		if p, ok := c.Prior(id, from, to); ok {
			out[id] = p
		}
	}
	return out
}
