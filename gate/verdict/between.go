package verdict

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// The between-session half of the noise model. A stored baseline was
// measured in another server session than the candidate, and a session's
// true level differs from another's by more than its trials wobble (shared
// studies, §6): the log ratio of the arms then has variance
//
//	σw²·(1/nc + h/m) + σb²·(1 + 1/m)
//
// for a baseline of m sessions (h the mean of 1/n over them; m = 1, h =
// 1/nb for one baseline file): the candidate's session brings one σb², the
// mean of m baseline sessions σb²/m. No number of trials of one session
// shrinks the σb² terms; a candidate over K server starts
// (trials.restarts) brings σb²/K instead (starts.go).

// DefaultBetween is the between-session coefficient of variation the
// verdict assumes, taken as exact, for a relative metric when neither
// calibration, history nor the baseline's own sessions give an estimate.
//
// It is the top of what the studies report for runs that should have
// performed alike (shared/docs/studies.md §6: latency statistics 3-8 %
// apart between sessions), for every metric alike. An assumption below the
// true noise makes unchanged builds fail: with 1 % assumed for throughput
// (the pooled spread of fixed-rate studies) and a true 2 %, 11-22 % of
// uncalibrated A/A gates exited 1, every false cell a throughput, and 72 %
// at 4 %; at fixed concurrency throughput and TPOT measure the same decode
// speed, so one cannot be quieter than the other. An assumption at or
// above the truth keeps Holm's bound, so the uncalibrated gate holds alpha
// for any between-session CV up to 8 % on every metric family
// (TestUncalibratedHoldsAlpha), at the price it states plainly: it passes
// nothing its tolerance could not show across sessions, stays
// inconclusive, and says that `perfgate calibrate` or a history of
// promoted runs would decide it.
const DefaultBetween = 0.08

// DefaultBetweenCV is the between-session coefficient of variation the
// verdict assumes for metric id when nothing measured it: DefaultBetween
// for relative metrics, 0 for ratio metrics (success_rate), which the
// studies show no session effect for.
func DefaultBetweenCV(id string) float64 {
	if Absolute(id) {
		return 0
	}
	return DefaultBetween
}

// assumedBetween is the between-session variance (test scale) assumed for
// metric id: Policy.AssumedBetween's entry for id, else its "*" entry,
// else DefaultBetweenCV. It also says whether the policy set it.
func (p *Policy) assumedBetween(id string) (float64, bool) {
	cv, set := p.AssumedBetween[id]
	if !set {
		cv, set = p.AssumedBetween["*"]
	}
	if !set {
		cv = DefaultBetweenCV(id)
	}
	if Absolute(id) {
		return cv * cv, set
	}
	return math.Log1p(cv * cv), set
}

// ownBetween is the cell's own between-session estimate before shrinkage:
// the prior from calibration or history (Policy.Noise) and, for a baseline
// of m >= 2 sessions, the spread of its session means, which estimates
// σb² + σw²·h (one-way random effects by the method of moments, on m−1
// degrees of freedom; truncated at 0). The two are pooled by their degrees
// of freedom. df 0: no estimate.
func (pc *pendingCell) ownBetween(p *Policy) (v, df float64, source string) {
	var sources []string
	if pr, ok := p.Noise.Lookup(pc.cell.Workload, pc.cell.Metric); ok && pr.BetweenDF > 0 && pr.BetweenVar >= 0 {
		v, df = pr.BetweenVar*pr.betweenDF(), pr.betweenDF()
		sources = append(sources, orDefault(pr.Source, "prior"))
	}
	m, h := pc.baseShape()
	if m >= 2 {
		means := make([]float64, 0, len(pc.xbs))
		for _, x := range pc.xbs {
			if len(x) > 0 {
				means = append(means, mean(x))
			}
		}
		est := math.Max(0, variance(means)-pc.within*h)
		v += est * (m - 1)
		df += m - 1
		sources = append(sources, "sessions")
	}
	if df == 0 {
		return 0, 0, ""
	}
	return v / df, df, strings.Join(sources, "+")
}

// poolBetween gives every testable cell its between-session variance.
// The cells' own estimates (see ownBetween) are pooled per metric, weighted
// by their degrees of freedom, and every cell of the metric uses the pool
// on its total degrees of freedom: this is the limit of the within-session
// posterior when the prior's weight d0 is large against each cell's d. A
// per-cell empirical-Bayes fit, as for the within-session noise, was tried
// and failed its seeded test (3.5 % A/A false alarms with a 10-session
// baseline): estimates on 2-9 degrees of freedom, truncated at zero, are
// too rough to fit a prior's shape to, and a cell whose estimate came out
// near zero kept almost no between-session noise. Without any estimate of
// the metric the assumed default (Policy.AssumedBetween or
// DefaultBetweenCV) is used, taken as exact. It returns the metrics that
// fell back on the documented defaults and those on the policy's
// assumption.
func poolBetween(cells []*pendingCell, noise []Noise, p *Policy) (defaulted, assumed []string) {
	ids, groups := byMetric(cells)
	for _, id := range ids {
		g := groups[id]
		var pooled, pooledDF float64
		srcs := map[string]bool{}
		for _, pc := range g {
			v, df, src := pc.ownBetween(p)
			pooled += v * df
			pooledDF += df
			if df > 0 {
				srcs[src] = true
			}
		}
		pr := varPrior{}
		if pooledDF > 0 {
			pr = varPrior{V: pooled / pooledDF, DF: pooledDF}
		}
		source := strings.Join(slices.Sorted(maps.Keys(srcs)), ",")
		usedDefault, usedAssumed := false, false
		for _, pc := range g {
			switch {
			case pr.DF > 0:
				pc.between, pc.betweenDF, pc.betweenSource = pr.V, pr.DF, source
			default:
				v, set := p.assumedBetween(id)
				pc.between, pc.betweenDF = v, 0
				if set {
					pc.betweenSource, usedAssumed = "assumed", true
				} else {
					pc.betweenSource, usedDefault = "default", true
				}
			}
		}
		for i := range noise {
			if noise[i].Metric == id && pr.DF > 0 {
				noise[i].Between, noise[i].BetweenDF = math.Sqrt(pr.V), pr.DF
			}
		}
		if usedDefault {
			defaulted = append(defaulted, id)
		}
		if usedAssumed {
			assumed = append(assumed, id)
		}
	}
	return defaulted, assumed
}

// betweenWarnings are the comparison-level caveats of poolBetween.
func betweenWarnings(defaulted, assumed []string, p *Policy) []string {
	var out []string
	if len(defaulted) > 0 {
		byCV := map[float64][]string{}
		for _, id := range defaulted {
			cv := DefaultBetweenCV(id)
			byCV[cv] = append(byCV[cv], id)
		}
		cvs := make([]float64, 0, len(byCV))
		for cv := range byCV {
			cvs = append(cvs, cv)
		}
		sort.Float64s(cvs)
		var parts []string
		for _, cv := range cvs {
			if cv == 0 {
				parts = append(parts, "none for "+strings.Join(byCV[cv], ", "))
				continue
			}
			parts = append(parts, fmt.Sprintf("CV %.1f%% for %s", 100*cv, strings.Join(byCV[cv], ", ")))
		}
		out = append(out, "between-session noise not calibrated: assumed the top of the published studies' range, "+strings.Join(parts, "; ")+
			", so only changes beyond that noise are decided; run `perfgate calibrate` or promote baselines into a history of 3 or more runs to measure it")
	}
	if len(assumed) > 0 {
		out = append(out, "between-session noise not calibrated: the policy's assumed_between is used ("+assumedParts(assumed, p)+")")
	}
	return out
}

// assumedParts says which assumed_between entry each metric took: the
// metrics with their own entry by name, those that took the "*" entry as a
// count, so a policy of "*=0" reads as one short clause instead of every
// metric id of the comparison.
func assumedParts(assumed []string, p *Policy) string {
	var parts []string
	star := 0
	for _, id := range assumed {
		cv, own := p.AssumedBetween[id]
		if !own {
			star++
			continue
		}
		parts = append(parts, fmt.Sprintf("CV %.1f%% for %s", 100*cv, id))
	}
	if star > 0 {
		parts = append(parts, fmt.Sprintf("`*` = CV %.1f%% for %d other metric(s)", 100*p.AssumedBetween["*"], star))
	}
	return strings.Join(parts, "; ")
}
