// Package noise estimates how noisy a serving benchmark is between and
// within server sessions, from repeated sessions of trials: the one-way
// random-effects model that `perfgate calibrate` fits per (workload cell,
// metric), and the predictions of what a gate with that noise can detect.
// It is pure arithmetic with no I/O, so the calibrate command and the
// history reader share one estimator.
//
// The model, on the verdict's test scale (natural logs of relative
// metrics, raw values of absolute ones):
//
//	x_ij = mu + a_i + e_ij,   a_i ~ (0, σ²_between),   e_ij ~ (0, σ²_within)
//
// for session i = 1..K and trial j = 1..n_i. a_i is the session's offset
// (one server start: another memory layout, another CUDA graph capture,
// another clock), e_ij the trial-to-trial wobble within it. Only more
// sessions shrink the uncertainty about a_i; more trials of one session
// never do.
package noise

import (
	"errors"
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Estimate is the method-of-moments (ANOVA) fit of the one-way
// random-effects model to one (cell, metric).
type Estimate struct {
	// Sessions is K, the sessions with at least one value; Trials the
	// values in all.
	Sessions int `json:"sessions"`
	Trials   int `json:"trials"`
	// Mean is the grand mean of all values (trial-weighted).
	Mean float64 `json:"mean"`
	// WithinVar is the within-session mean square MSW, unbiased for
	// σ²_within, on WithinDF = N-K degrees of freedom.
	WithinVar float64 `json:"within_var"`
	WithinDF  float64 `json:"within_df"`
	// BetweenVar is (MSB - MSW)/n0, unbiased for σ²_between before it is
	// truncated at 0. BetweenDF is K-1, the session contrasts it rests on
	// (see verdict.MinBetweenDF for why not Satterthwaite's (MSB-MSW)² /
	// (MSB²/(K-1) + MSW²/(N-K)), which is kept in SatterthwaiteDF).
	BetweenVar float64 `json:"between_var"`
	BetweenDF  float64 `json:"between_df"`
	// SatterthwaiteDF is the Satterthwaite degrees of freedom of the
	// untruncated difference (MSB-MSW)/n0, shown for the reader: near 0
	// when MSB barely exceeds MSW.
	SatterthwaiteDF float64 `json:"satterthwaite_df,omitempty"`
	// Truncated says the moment estimate of σ²_between came out negative
	// (the session means agree better than the trials predict, which
	// happens by chance when σ²_between is small) and was set to 0. Its
	// BetweenDF is then K-1, the number of session contrasts the zero
	// rests on, since the Satterthwaite formula describes the untruncated
	// difference only.
	Truncated bool `json:"truncated,omitempty"`
	// RawBetween is the untruncated moment estimate, kept so a reader can
	// see how far below 0 it fell.
	RawBetween float64 `json:"raw_between"`
}

// OneWay fits the model to groups: groups[i] holds session i's values on
// the test scale. Sessions of unequal size are allowed (a trial that was
// invalid is simply absent); empty sessions are skipped. It needs two
// sessions and at least one session with two values, else the two
// variances cannot be told apart.
//
// With n0 = (N - Σn_i²/N)/(K-1) (n0 = n in a balanced design),
//
//	E[MSW] = σ²_within,   E[MSB] = σ²_within + n0·σ²_between,
//
// so (MSB - MSW)/n0 is unbiased for σ²_between (Searle, Casella and
// McCulloch 1992, §3.5). REML would give the same answer in the balanced
// case when the estimate is positive; the moment estimator is kept for its
// closed form and its exact unbiasedness.
func OneWay(groups [][]float64) (Estimate, error) {
	var e Estimate
	var sum float64
	sizes := make([]int, 0, len(groups))
	means := make([]float64, 0, len(groups))
	var ssw float64
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		m := 0.0
		for _, x := range g {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Estimate{}, fmt.Errorf("session %d: value %v is not finite", len(sizes)+1, x)
			}
			m += x
		}
		sum += m
		m /= float64(len(g))
		for _, x := range g {
			ssw += (x - m) * (x - m)
		}
		sizes = append(sizes, len(g))
		means = append(means, m)
		e.Trials += len(g)
	}
	e.Sessions = len(sizes)
	k, n := float64(e.Sessions), float64(e.Trials)
	switch {
	case e.Sessions < 2:
		return Estimate{}, fmt.Errorf("%d session(s) with values: the between-session variance needs at least 2", e.Sessions)
	case e.Trials-e.Sessions < 1:
		return Estimate{}, errors.New("every session has a single value: the within-session variance needs a session with at least 2")
	}
	e.Mean = sum / n
	var ssb, sumSq float64
	for i, m := range means {
		ni := float64(sizes[i])
		ssb += ni * (m - e.Mean) * (m - e.Mean)
		sumSq += ni * ni
	}
	dfw, dfb := n-k, k-1
	msw, msb := ssw/dfw, ssb/dfb
	n0 := (n - sumSq/n) / dfb
	e.WithinVar, e.WithinDF = msw, dfw
	e.RawBetween = (msb - msw) / n0
	if e.RawBetween <= 0 {
		e.BetweenVar, e.BetweenDF, e.Truncated = 0, dfb, e.RawBetween < 0
		return e, nil
	}
	e.BetweenVar, e.BetweenDF = e.RawBetween, verdict.MinBetweenDF(e.Sessions)
	e.SatterthwaiteDF = (msb - msw) * (msb - msw) / (msb*msb/dfb + msw*msw/dfw)
	return e, nil
}
