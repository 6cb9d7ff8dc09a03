package verdict

import (
	"math"
	"sort"

	"github.com/montanaflynn/stats"

	"github.com/perfgate/perfgate/gate/metrics"
)

// pendingCell is a cell while it is being decided: the test-scale values
// (logs for relative metrics) next to the Cell being filled in.
type pendingCell struct {
	cell Cell
	sign float64 // +1 lower-is-better, -1 higher-is-better
	tol  float64 // tolerance on the test scale
	// xbs holds the baseline's sessions (one slice of trials each; one
	// session unless the baseline is a history segment), xc the
	// candidate's single session. ibs and ic are the trials' indices.
	xbs [][]float64
	xc  []float64
	ibs [][]int
	ic  []int
	// cstart maps a candidate trial's index to its server start (nil: one
	// session); see starts.go.
	cstart   map[int]int
	sessions int // baseline sessions; 1 for an ordinary baseline file
	// ss and df are the within-session sum of squares and its degrees of
	// freedom (all sessions of both arms): the cell's sample variance is
	// ss/df.
	ss, df float64
	// nonPositive: a relative metric with a zero value in some trial; a
	// ratio cannot be formed and the cell stays inconclusive.
	nonPositive bool
	// missing names the arm ("baseline", "candidate") that lacks this
	// gated metric: no test, the cell stays inconclusive.
	missing string
	// within and between are the posterior variances the test uses (see
	// moderate and poolBetween), with their degrees of freedom; a
	// between DF of 0 means an assumed value taken as exact.
	within, withinDF   float64
	between, betweenDF float64
	betweenSource      string
	// tooSpread: the metric's cells' variances spread too far for a prior
	// (see minPriorDF), so within is the cell's own.
	tooSpread bool
	// parts is the variance of the estimate split by what shrinks it.
	parts sePart
}

func newPending(workload string, m metrics.Metric, rule Rule, bvs [][]float64, bis [][]int, cv []float64, ci []int) *pendingCell {
	abs := Absolute(m.ID)
	var all []float64
	for _, s := range bvs {
		all = append(all, s...)
	}
	pc := &pendingCell{
		cell: Cell{
			Workload:  workload,
			Metric:    m.ID,
			Label:     metrics.Label(m.ID),
			Unit:      m.Unit,
			Direction: m.Direction.String(),
			Gated:     rule.Gated,
			Absolute:  abs,
			Baseline:  summariseArm(all, abs),
			Candidate: summariseArm(cv, abs),
			Tolerance: 100 * rule.Tolerance,
		},
		sign:     1,
		ibs:      bis,
		ic:       ci,
		sessions: max(len(bvs), 1),
	}
	if len(bvs) > 1 {
		pc.cell.Baseline.Sessions = len(bvs)
	}
	if m.Direction == metrics.HigherIsBetter {
		pc.sign = -1
	}
	if abs {
		pc.tol = rule.Tolerance
		pc.xbs, pc.xc = bvs, cv
	} else {
		pc.tol = math.Log1p(rule.Tolerance)
		for _, s := range bvs {
			pc.xbs = append(pc.xbs, logs(s, &pc.nonPositive))
		}
		pc.xc = logs(cv, &pc.nonPositive)
	}
	if len(bvs) > 1 && !pc.nonPositive {
		// The level of a several-session baseline is the mean of its
		// session means, the centre the test compares.
		c := pc.baseLevel()
		if !abs {
			c = math.Exp(c)
		}
		pc.cell.Baseline.Centre = c
	}
	pc.sumSquares()
	return pc
}

// sumSquares recomputes ss and df from the current values.
func (pc *pendingCell) sumSquares() {
	pc.ss, pc.df = 0, 0
	for _, x := range pc.allSessions() {
		if len(x) >= 2 {
			mu := mean(x)
			for _, v := range x {
				pc.ss += (v - mu) * (v - mu)
			}
			pc.df += float64(len(x) - 1)
		}
	}
}

// ownVar is the cell's within-session sample variance (0 without df).
func (pc *pendingCell) ownVar() float64 {
	if pc.df == 0 {
		return 0
	}
	return pc.ss / pc.df
}

// trimmedVar is the within-session variance without each session's trial
// farthest from its median (sessions of minOutlierTrials or more only).
func (pc *pendingCell) trimmedVar() (float64, float64) {
	var ss, df float64
	for _, x := range pc.allSessions() {
		switch {
		case len(x) >= minOutlierTrials:
			ss += variance(withoutFarthest(x)) / trimBias(len(x)) * float64(len(x)-2)
			df += float64(len(x) - 2)
		case len(x) >= 2:
			ss += variance(x) * float64(len(x)-1)
			df += float64(len(x) - 1)
		}
	}
	if df == 0 {
		return 0, 0
	}
	return ss / df, df
}

// baseLevel is the baseline's level on the test scale: the mean of its
// sessions' means.
func (pc *pendingCell) baseLevel() float64 { return levelOf(pc.xbs) }

// baseShape returns the baseline's number of sessions with trials, m, and
// h, the mean of 1/n over them: the baseline level's within-session
// variance is σw²·h/m, and its between-session variance σb²/m.
func (pc *pendingCell) baseShape() (m, h float64) { return shapeOf(pc.xbs) }

// levelOf is the mean of the sessions' means, sessions without trials
// left out: each session weighs alike, as the between-session term
// assumes (σb²/sessions), however many trials it ran.
func levelOf(sessions [][]float64) float64 {
	var s float64
	n := 0
	for _, x := range sessions {
		if len(x) > 0 {
			s += mean(x)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// shapeOf returns the number of sessions with trials, k, and the mean of
// 1/n over them: a level's within-session variance is σw²·h/k.
func shapeOf(sessions [][]float64) (k, h float64) {
	for _, x := range sessions {
		if len(x) > 0 {
			k++
			h += 1 / float64(len(x))
		}
	}
	if k > 0 {
		h /= k
	}
	return k, h
}

// nb is the baseline's trial count.
func (pc *pendingCell) nb() int {
	n := 0
	for _, x := range pc.xbs {
		n += len(x)
	}
	return n
}

func logs(v []float64, nonPositive *bool) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		l, ok := testValue(x, false)
		if !ok {
			*nonPositive = true
			continue
		}
		out[i] = l
	}
	return out
}

// summariseArm fills an Arm from raw values.
func summariseArm(v []float64, abs bool) Arm {
	a := Arm{N: len(v), Values: append([]float64(nil), v...)}
	if len(v) == 0 {
		return a
	}
	sorted := append([]float64(nil), v...)
	sort.Float64s(sorted)
	a.Median = metrics.MedianOf(sorted)
	if abs || sorted[0] <= 0 {
		a.Centre = mean(v)
	} else {
		var nz bool
		a.Centre = math.Exp(mean(logs(v, &nz)))
	}
	if len(v) >= 2 {
		sd := math.Sqrt(variance(v))
		if abs {
			a.CV = sd
		} else if m := mean(v); m > 0 {
			a.CV = sd / m
		}
	}
	return a
}

// mean is the module's one arithmetic mean (metrics.MeanOf: 0 for no
// values); variance uses montanaflynn/stats as MeanOf does, whose sums are
// scaled so that large values (token counts per minute, say) neither
// overflow nor lose precision; the verdict only adds its conventions for
// short inputs.
func mean(x []float64) float64 { return metrics.MeanOf(x) }

// variance is the unbiased sample variance; 0 for fewer than 2 values.
func variance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	v, err := stats.SampleVariance(x)
	if err != nil {
		return 0
	}
	return v
}

// MeanVar is the mean and the unbiased sample variance of x (variance 0
// for fewer than 2 values), by mean and variance above: the one sample
// spread of perfgate, exported for the paired A/B verdict (block means),
// the history analysis (session means), the baseline's session summaries
// and SampleSD. x must not be empty.
func MeanVar(x []float64) (float64, float64) {
	return mean(x), variance(x)
}

// testable reports whether the cell's values can enter the noise model.
func (pc *pendingCell) testable() bool { return !pc.nonPositive && pc.missing == "" }

// byMetric groups the testable cells by metric, in report order.
func byMetric(cells []*pendingCell) ([]string, map[string][]*pendingCell) {
	groups := map[string][]*pendingCell{}
	set := map[string]bool{}
	for _, pc := range cells {
		if pc.testable() {
			groups[pc.cell.Metric] = append(groups[pc.cell.Metric], pc)
			set[pc.cell.Metric] = true
		}
	}
	return orderedIDs(set), groups
}

// withinFloor is the policy's noise floor as a variance on the test scale.
func withinFloor(p *Policy, abs bool) float64 {
	if abs {
		return p.MinAbs * p.MinAbs
	}
	// A log-normal with coefficient of variation v has log-variance
	// log(1+v²).
	return math.Log1p(p.MinCV * p.MinCV)
}

// withinPriors fits, per metric, the empirical-Bayes prior of the cells'
// within-session variances (see fitPrior). Metrics are never mixed: a p99
// is noisier than a median.
//
// With trimmed set, each session's trial farthest from its median is left
// out of the fit: the prior the outlier rule judges trials against must
// not be inflated by the very trials it is looking for (a 30 % hit in a
// quarter of the sessions would otherwise leave no prior at all).
func withinPriors(cells []*pendingCell, p *Policy, trimmed bool) map[string]varPrior {
	ids, groups := byMetric(cells)
	out := map[string]varPrior{}
	for _, id := range ids {
		g := groups[id]
		vs, dfs := make([]float64, len(g)), make([]float64, len(g))
		for i, pc := range g {
			vs[i], dfs[i] = pc.ownVar(), pc.df
			if trimmed {
				vs[i], dfs[i] = pc.trimmedVar()
			}
		}
		out[id] = fitPrior(vs, dfs, withinFloor(p, g[0].cell.Absolute), float64(p.MinPooledDF), !trimmed)
	}
	return out
}

// moderate is the within-session half of the noise model: it fits the
// per-metric priors, takes out outlier trials (see outliers.go) against
// them, refits, and gives every cell its posterior within-session
// variance. It returns the per-metric summaries of Comparison.Noise.
func moderate(cells []*pendingCell, p *Policy) []Noise {
	first := withinPriors(cells, p, true)
	for _, pc := range cells {
		if pc.testable() {
			pc.dropOutliers(first[pc.cell.Metric], p)
		}
	}
	priors := withinPriors(cells, p, false)
	ids, groups := byMetric(cells)
	var out []Noise
	for _, id := range ids {
		pr := priors[id]
		n := Noise{Metric: id, DF: pr.DF, Usable: pr.DF > 0}
		if pr.DF > 0 {
			n.Sigma = math.Sqrt(pr.V)
		}
		for _, pc := range groups[id] {
			pc.within, pc.withinDF = pr.posterior(pc.ownVar(), pc.df)
			pc.tooSpread = pr.TooSpread
			if pc.df > 0 {
				n.Pooled++
			}
		}
		out = append(out, n)
	}
	return out
}
